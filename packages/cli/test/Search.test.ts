/**
 * `precis search` over a compacted store of two sessions.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { assertOneLineFailure, escape, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const db = path.join(dir, "search.db")

beforeAll(async () => {
  const flags = ["--leaf-chunk-tokens", "150", "--fresh-tail", "6", "--min-fan-in", "2", "--max-fan-in", "4", "--json"]
  for (const name of ["alpha", "beta"]) {
    const result = await Effect.runPromise(
      runCli(["compact", write(dir, `${name}.jsonl`, sessionJsonl(30, `${name}-`)), "--db", db, ...flags])
    )
    assert.strictEqual(result.code, 0, result.stderr)
  }
})

describe("precis search", () => {
  it.live("prints one line per hit, turns with their leaf, matches marked", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["search", "module3.ts", "--db", db, "--session", "alpha"])
      assert.strictEqual(result.code, 0, result.stderr)
      const lines = result.stdout.split("\n")
      const turn = lines.find((l) => l.startsWith("turn alpha-3 (seq 3, leaf "))
      expect(turn).toMatch(/^turn alpha-3 \(seq 3, leaf [\w-]+\) in alpha: …edited src\/«module3\.ts» and ran/)
      assert.isTrue(lines.every((l) => / in alpha: /.test(l)), result.stdout)
    }))

  it.live("--json, every session by default, --limit", () =>
    Effect.gen(function*() {
      const all = JSON.parse((yield* runCli(["search", "retry budget", "--db", db, "--json", "--limit", "50"])).stdout)
      assert.strictEqual(all.session, null)
      assert.deepStrictEqual(new Set(all.hits.map((h: { sessionId: string }) => h.sessionId)), new Set(["alpha", "beta"]))
      assert.strictEqual(all.hits.length, 50)
      const one = JSON.parse((yield* runCli(["search", "retry", "--db", db, "--json", "--limit", "3"])).stdout)
      assert.strictEqual(one.hits.length, 3)
      for (const hit of one.hits) assert.includeMembers(Object.keys(hit), ["kind", "id", "sessionId", "snippet", "rank"])
      const uncovered = JSON.parse((yield* runCli(["search", "module29.ts", "--db", db, "--json", "--session", "beta"])).stdout)
      assert.deepStrictEqual(uncovered.hits.map((h: { id: string; leafId?: string }) => [h.id, h.leafId]), [["beta-29", undefined]])
    }))

  it.live("odd queries are text; no match is said; a missing store is an error", () =>
    Effect.gen(function*() {
      for (const query of ["\"", "NEAR(", "-x", "*", "a AND OR"]) {
        const result = yield* runCli(["search", "--db", db, "--", query])
        assert.strictEqual(result.code, 0, `${query}: ${result.stderr}`)
      }
      assert.strictEqual((yield* runCli(["search", "zebra", "--db", db])).stdout, "no match for \"zebra\"")
      const missing = path.join(dir, "missing.db")
      assertOneLineFailure(yield* runCli(["search", "x", "--db", missing]), /no such store/)
      assert.isFalse(fs.existsSync(missing))
      assertOneLineFailure(yield* runCli(["search", "x", "--db", db, "--limit", "0"]), /--limit must be an integer >= 1/)
    }))

  it.live("--session must name a session of the store: another is one line naming those it holds, not \"no match\"", () =>
    Effect.gen(function*() {
      for (const session of ["nonexistent", "alph", "ALPHA", "alpha-"]) {
        for (const args of [["module3.ts"], ["zebra"], ["module3.ts", "--json"]]) {
          const result = yield* runCli(["search", ...args, "--db", db, "--session", session])
          assertOneLineFailure(result, new RegExp(`^precis: unknown session '${escape(session)}' in .*search\\.db \\(sessions: alpha, beta\\)$`))
          assert.strictEqual(result.stdout, "")
        }
      }
      // A store without sessions says so.
      const empty = path.join(dir, "empty.db")
      yield* Effect.provide(Effect.void, storeLayer(empty))
      assertOneLineFailure(
        yield* runCli(["search", "x", "--db", empty, "--session", "s"]),
        /^precis: unknown session 's' in .*empty\.db \(sessions: none\)$/
      )
      // The sessions it holds are searched as before.
      const alpha = yield* runCli(["search", "zebra", "--db", db, "--session", "alpha"])
      assert.strictEqual(alpha.code, 0, alpha.stderr)
      assert.strictEqual(alpha.stdout, "no match for \"zebra\"")
    }))
})
