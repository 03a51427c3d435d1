/**
 * `precis compact [FILE]` and `compact --all`: what they write and print, with
 * the extractive provider and with an OpenAI-compatible server. The flags and
 * variables of the compaction options are in `CompactOptions.test.ts`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, expect, it } from "@effect/vitest"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { stripAnsi } from "../src/internal/console.js"
import { fakeOpenAi, SECRET } from "./utils/openAi.js"
import { assertOneLineFailure, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"
import { compactedStore, dagFlags, type Node } from "./utils/store.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("compact FILE", () => {
  const { compacted, db } = compactedStore(dir)

  it("compact FILE --json imports, then prints the stats and the tier counts only", () => {
    assert.strictEqual(compacted().code, 0, compacted().stderr)
    assert.strictEqual(compacted().stderr, "") // no progress with --json
    const stats = JSON.parse(compacted().stdout)
    assert.strictEqual(stats.session, "dag")
    assert.deepStrictEqual(stats.imported, { turns: 40, added: 40, skipped: 0 })
    assert.strictEqual(stats.turnsCompacted, 34)
    assert.isAtLeast(stats.leafSummariesCreated, 4)
    assert.isAtLeast(stats.condensedSummariesCreated, 1)
    const total = stats.tierCounts.normal + stats.tierCounts.aggressive + stats.tierCounts.fallback
    assert.strictEqual(total, stats.leafSummariesCreated + stats.condensedSummariesCreated)
    assert.deepStrictEqual(stats.tiersUsed, stats.tierCounts)
  })

  it.live("a second compact with nothing new does nothing", () =>
    Effect.gen(function*() {
      const again = yield* runCli(["compact", "--db", db, "--json", ...dagFlags])
      assert.strictEqual(again.code, 0, again.stderr)
      const stats = JSON.parse(again.stdout)
      assert.strictEqual(stats.leafSummariesCreated, 0)
      assert.strictEqual(stats.condensedSummariesCreated, 0)
      assert.strictEqual(stats.turnsCompacted, 0)
      assert.isUndefined(stats.imported)
    }))
})

describe("compact --all", () => {
  const flags = ["--leaf-chunk-tokens", "150", "--fresh-tail", "6", "--min-fan-in", "2", "--max-fan-in", "4"]

  it.live("compacts every session with work, prints a line per session and the totals, then finds nothing", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "all.db")
      for (const [name, turns] of [["a", 40], ["b", 30], ["c", 4]] as const) {
        const imported = yield* runCli(["import", write(dir, `${name}.jsonl`, sessionJsonl(turns, name)), "--db", db])
        assert.strictEqual(imported.code, 0, imported.stderr)
      }
      const text = yield* runCli(["compact", "--all", "--db", db, ...flags])
      assert.strictEqual(text.code, 0, text.stderr)
      const lines = text.stdout.split("\n")
      // c is all fresh tail: nothing to do there.
      expect(lines.filter((line) => /^[abc]: compacted/.test(line)).map((line) => line.slice(0, 2)).sort()).toEqual([
        "a:",
        "b:"
      ])
      expect(lines.find((line) => line.startsWith("2 sessions:"))).toMatch(
        /^2 sessions: compacted 58 turns into \d+ leaf and \d+ condensed summaries$/
      )
      const again = yield* runCli(["compact", "--all", "--db", db, "--json", ...flags])
      assert.strictEqual(again.code, 0, again.stderr)
      const stats = JSON.parse(again.stdout)
      assert.deepStrictEqual(stats.sessions, [])
      assert.strictEqual(stats.totals.turnsCompacted, 0)
      assert.strictEqual(stats.skippedLocked, 0)
      assert.deepStrictEqual(
        yield* StoreInvariants.violations({ freshTailTurns: 6, minFanIn: 2, maxFanIn: 4, condensedFully: true }).pipe(
          Effect.provide(storeLayer(db))
        ),
        []
      )
    }))

  it.live("compact appends the Also line of dropped keys by default; --no-also-line and PRECIS_COMPACTION_ALSO_LINE=false turn it off", () =>
    Effect.gen(function*() {
      const file = write(dir, "also.jsonl", sessionJsonl(40))
      const flags = ["--leaf-chunk-tokens", "300", "--fresh-tail", "6", "--json"]
      const contents = (db: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ content: string }>`SELECT content FROM summaries`).pipe(
          Effect.map((rows) => rows.map((row) => row.content)),
          Effect.provide(storeLayer(db))
        )
      const withLine = path.join(dir, "also-on.db")
      const on = yield* runCli(["compact", file, "--db", withLine, ...flags])
      assert.strictEqual(on.code, 0, on.stderr)
      const alsoLines = (yield* contents(withLine)).flatMap((c) => c.split("\n").filter((l) => l.startsWith("Also: ")))
      assert.isAbove(alsoLines.length, 0)
      for (const [name, args, env] of [
        ["flag", ["--no-also-line"], {}],
        ["variable", [], { PRECIS_COMPACTION_ALSO_LINE: "false" }]
      ] as const) {
        const db = path.join(dir, `also-off-${name}.db`)
        const off = yield* runCli(["compact", file, "--db", db, ...flags, ...args], { env })
        assert.strictEqual(off.code, 0, off.stderr)
        const texts = yield* contents(db)
        assert.isAbove(texts.length, 0)
        assert.isFalse(texts.some((c) => c.includes("\nAlso: ")), name)
      }
    }))

  it.live("--all takes no FILE, --session or --redo-fallbacks", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "all-bad.db")
      const file = write(dir, "all-bad.jsonl", sessionJsonl(4))
      for (const extra of [[file], ["--session", "s"], ["--redo-fallbacks"]]) {
        const result = yield* runCli(["compact", "--all", "--db", db, ...extra])
        assertOneLineFailure(result, /--all compacts the sessions already in the store/)
      }
      assert.isFalse(fs.existsSync(db))
    }))
})

describe("compact output", () => {
  it.live("without --json prints the DAG and the tier counts, and plain progress lines on stderr", () =>
    Effect.gen(function*() {
      const file = write(dir, "plain.jsonl", sessionJsonl(30))
      const db = path.join(dir, "plain.db")
      const result = yield* runCli(["compact", file, "--db", db, "--leaf-chunk-tokens", "150", "--fresh-tail", "4"])
      assert.strictEqual(result.code, 0, result.stderr)
      expect(result.stdout).toMatch(/^imported 30 of 30 turns into session plain$/m)
      expect(result.stdout).toMatch(/^compacted 26 turns into \d+ leaf and \d+ condensed summaries$/m)
      expect(result.stdout).toMatch(/^session plain: 30 turns \(4 not summarized\)/m)
      expect(result.stdout).toMatch(/^depth 1 · /m)
      expect(result.stdout).toMatch(/^tiers this run: normal \d+, aggressive \d+, fallback \d+$/m)
      const progress = result.stderr.split("\n")
      expect(progress[0]).toMatch(/^precis: leaf pass: 26 turns in \d+ chunks$/)
      expect(result.stderr).toMatch(/^precis: leaves \[#+\] (\d+)\/\1 · tiers: normal \d+/m)
      expect(result.stderr).toMatch(/^precis: condensing depth 0: \d+ groups$/m)
      expect(result.stderr).not.toContain("\r")
    }))

  it.live("draws the progress bar in place when stderr is a terminal", () =>
    Effect.gen(function*() {
      const file = write(dir, "tty.jsonl", sessionJsonl(20))
      const written: Array<string> = []
      const result = yield* runCli(
        ["compact", file, "--db", path.join(dir, "tty.db"), "--leaf-chunk-tokens", "150"],
        { stderr: { isTTY: true, write: (text) => void written.push(text) } }
      )
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
      assert.isAbove(written.length, 2)
      for (const chunk of written.slice(0, -1)) expect(chunk).toMatch(/^\r\x1b\[K/)
      assert.strictEqual(written.at(-1), "\n")
    }))

  it.live("--verbose logs each LLM call's timing on stderr, stdout stays one JSON document", () =>
    Effect.gen(function*() {
      const file = write(dir, "verbose.jsonl", sessionJsonl(20))
      const result = yield* runCli([
        "compact",
        file,
        "--db",
        path.join(dir, "verbose.db"),
        "--leaf-chunk-tokens",
        "150",
        "--json",
        "--verbose"
      ])
      assert.strictEqual(result.code, 0, result.stderr)
      const stats = JSON.parse(result.stdout)
      const calls = result.stderr.split("\n").filter((l) => l.includes("LLM call replied"))
      assert.strictEqual(calls.length, stats.leafSummariesCreated + stats.condensedSummariesCreated)
      for (const line of calls) expect(line).toMatch(/level=DEBUG .*elapsedMs=\d/)
      expect(result.stderr).toMatch(/precis: compacted.*elapsedMs=/)
      expect(result.stderr).toContain("precis: leaf pass")
    }))

  it.live("quiet without --verbose: no debug logs", () =>
    Effect.gen(function*() {
      const file = write(dir, "quiet.jsonl", sessionJsonl(20))
      const result = yield* runCli(["compact", file, "--db", path.join(dir, "quiet.db"), "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
    }))

  it.live("rejects bad compaction option values before touching anything", () =>
    Effect.gen(function*() {
      const file = write(dir, "badopt.jsonl", sessionJsonl(4))
      const db = path.join(dir, "badopt.db")
      for (
        const [flag, value, message] of [
          ["--fresh-tail", "-1", "--fresh-tail must be an integer >= 0"],
          ["--budget", "0", "--budget must be an integer >= 1"],
          ["--min-fan-in", "1", "--min-fan-in must be an integer >= 2"],
          ["--leaf-chunk-tokens", "1.5", "--leaf-chunk-tokens must be an integer >= 1"],
          ["--concurrency", "x", "--concurrency must be an integer >= 1"]
        ] as const
      ) {
        const result = yield* runCli(["compact", file, "--db", db, flag, value])
        assert.strictEqual(result.code, 1)
        expect(stripAnsi(result.stderr)).toContain(message)
      }
      const inverted = yield* runCli(["compact", file, "--db", db, "--min-fan-in", "5", "--max-fan-in", "3"])
      assertOneLineFailure(inverted, /^precis: --max-fan-in must be an integer >= --min-fan-in \(got 3 < 5\)$/)
      assert.isFalse(fs.existsSync(db))
    }))
})

describe("compact --provider openai", () => {
  const server = fakeOpenAi()

  it.live("compact with a refused key exits 1 naming the cause, and stores no fallback", () =>
    Effect.gen(function*() {
      server.status = 401
      server.seen.length = 0
      const db = path.join(dir, "refused.db")
      const big = write(dir, "refused.jsonl", sessionJsonl(40))
      const env = { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: server.baseUrl, PRECIS_OPENAI_API_KEY: SECRET }
      const result = yield* runCli(
        ["compact", big, "--db", db, "--provider", "openai", "--leaf-chunk-tokens", "150", "--json"],
        { env }
      )
      assertOneLineFailure(result, /compaction of session refused stopped: .*UnauthorizedError.*HTTP 401/)
      expect(result.stdout + result.stderr).not.toContain(SECRET)
      assert.strictEqual(server.seen.length, 2) // the first chunk's two tiers, then it stopped
      const shown = yield* runCli(["show", "--db", db, "--json"])
      assert.deepStrictEqual(JSON.parse(shown.stdout).nodes, [])
    }))

  it.live("compact against a server that refuses connections exits 1 naming the cause", () =>
    Effect.gen(function*() {
      // A port that was just free: nothing listens there.
      const closed = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const probe = createServer()
          probe.listen(0, "127.0.0.1", () => {
            const port = (probe.address() as AddressInfo).port
            probe.close(() => resolve(port))
          })
        })
      )
      const db = path.join(dir, "nobody.db")
      const result = yield* runCli(
        ["compact", write(dir, "nobody.jsonl", sessionJsonl(40)), "--db", db, "--provider", "openai", "--json"],
        { env: { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: `http://127.0.0.1:${closed}/v1` } }
      )
      assertOneLineFailure(result, /compaction of session nobody stopped: .*TransportError: .*ECONNREFUSED/)
    }))

  it.live("--redo-fallbacks rewrites the fallbacks of a server that failed for a while", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "redo.db")
      const big = write(dir, "redo.jsonl", sessionJsonl(40))
      const env = { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: server.baseUrl }
      const flags = ["--db", db, "--provider", "openai", "--leaf-chunk-tokens", "150", "--json"]
      server.status = 400 // rejected, but nothing a retry or a later run cannot fix: the fallbacks are stored
      const failing = yield* runCli(["compact", big, ...flags], { env })
      assert.strictEqual(failing.code, 0, failing.stderr)
      const first = JSON.parse(failing.stdout)
      assert.isAbove(first.tiersUsed.fallback, 0)
      assert.strictEqual(first.tiersUsed.normal, 0)
      server.status = 200
      const redone = yield* runCli(["compact", ...flags, "--redo-fallbacks"], { env })
      assert.strictEqual(redone.code, 0, redone.stderr)
      const stats = JSON.parse(redone.stdout)
      assert.strictEqual(stats.leafSummariesCreated, 0)
      assert.deepStrictEqual(stats.redo, {
        redone: first.tiersUsed.fallback,
        stillFallback: 0,
        tiersUsed: { normal: first.tiersUsed.fallback, aggressive: 0, fallback: 0 }
      })
      const nodes = JSON.parse((yield* runCli(["show", "--db", db, "--json"])).stdout).nodes as Array<Node>
      assert.isTrue(nodes.every((n) => n.tier === "normal"))
    }))

})
