/**
 * `compact --provider openai` against a base URL that redirects: to the same
 * origin the summaries are written (the request re-sent with its body and
 * key); to another origin the run stops at the first call, in one line
 * naming where it leads, with no retry (one call per tier), no fallback summary and the key
 * never sent there.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { modelServer } from "./utils/model.js"
import { assertOneLineFailure, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const file = write(dir, "redirect.jsonl", sessionJsonl(40))
const KEY = "sk-redirect-KEY12345"

const compact = (baseUrl: string, db: string) =>
  runCli(["compact", file, "--db", db, "--provider", "openai", "--leaf-chunk-tokens", "150", "--json"], {
    env: { PRECIS_OPENAI_MODEL: "m", PRECIS_OPENAI_BASE_URL: baseUrl, PRECIS_OPENAI_API_KEY: KEY }
  })

describe("compact with a base URL that redirects", () => {
  it.live("to the same origin: followed, the summaries written by the model", () =>
    Effect.gen(function*() {
      const server = yield* modelServer((request) =>
        request.url.startsWith("/v1/")
          ? { status: 307, content: "moved", headers: { location: "/v2/chat/completions" } }
          : { status: 200, content: "Edited the modules; tests ran." }
      )
      const result = yield* compact(server.baseUrl, path.join(dir, "same.db"))
      assert.strictEqual(result.code, 0, result.stderr)
      const moved = server.seen.filter((request) => request.url.startsWith("/v2/"))
      assert.isAbove(moved.length, 0)
      assert.strictEqual(moved.length, server.seen.length - moved.length)
      for (const request of moved) assert.strictEqual(request.authorization, `Bearer ${KEY}`)
      expect(result.stdout).not.toContain("fallback\":1")
    }).pipe(Effect.scoped))

  it.live("to another origin: one line at the first call, no retry, no summary, the key kept", () =>
    Effect.gen(function*() {
      const elsewhere = yield* modelServer(() => ({ status: 200, content: "never" }))
      for (const status of [307, 308]) {
        const server = yield* modelServer(() => ({
          status,
          content: "moved",
          headers: { location: `http://localhost:${elsewhere.port}/v1/chat/completions` }
        }))
        const db = path.join(dir, `other-${status}.db`)
        const result = yield* compact(server.baseUrl, db)
        assertOneLineFailure(result, /redirects to another origin \(http:\/\/localhost:\d+\/v1\/chat\/completions\)/)
        expect(result.stderr).not.toContain(KEY)
        // One call per model tier (the normal, then the aggressive), none retried.
        assert.isAtMost(server.seen.length, 2)
        const shown = yield* runCli(["show", "--db", db, "--json"])
        assert.deepStrictEqual(JSON.parse(shown.stdout).nodes, [])
      }
      assert.strictEqual(elsewhere.seen.length, 0)
    }).pipe(Effect.scoped))
})
