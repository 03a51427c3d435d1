/**
 * `precis summarize FILE`: one summary of a file's turns, with the extractive
 * provider and with an OpenAI-compatible server.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { stripAnsi } from "../src/internal/console.js"
import { fakeOpenAi, SECRET } from "./utils/openAi.js"
import { assertOneLineFailure, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("summarize", () => {
  const file = write(dir, "summarize.jsonl", sessionJsonl(12, "s"))

  it.live("--json prints { text, tier, inputTokens, outputTokens } and nothing on stderr", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", file, "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
      const summary = JSON.parse(result.stdout)
      assert.deepStrictEqual(Object.keys(summary).sort(), ["inputTokens", "outputTokens", "text", "tier"])
      assert.strictEqual(summary.tier, "normal")
      assert.isAbove(summary.text.length, 0)
      assert.isAbove(summary.inputTokens, summary.outputTokens)
      assert.isAbove(summary.outputTokens, 0)
    }))

  it.live("prints the text, then the tier and token counts", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", file, "--target-tokens", "50"])
      assert.strictEqual(result.code, 0, result.stderr)
      expect(result.stdout).toMatch(/\n\ntier: (normal|aggressive|fallback) · \d+ tokens in · \d+ tokens out$/)
      expect(result.stdout).toContain("src/module")
    }))

  it.live("reads --prior from a file, and fails with one line when it is missing", () =>
    Effect.gen(function*() {
      const prior = write(dir, "prior.txt", "Earlier: the team chose SQLite for the store.")
      const ok = yield* runCli(["summarize", file, "--prior", prior, "--json"])
      assert.strictEqual(ok.code, 0, ok.stderr)
      const missing = yield* runCli(["summarize", file, "--prior", path.join(dir, "no-prior.txt")])
      assertOneLineFailure(missing, /no-prior\.txt: no such file$/)
    }))

  it.live("fails with one line for a file without turns", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", write(dir, "empty.jsonl", "\n")])
      assertOneLineFailure(result, /^precis: no turns found in \S*empty\.jsonl as auto$/)
    }))

  it.live("fails with one line for a missing input file", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", path.join(dir, "absent.jsonl")])
      assertOneLineFailure(result, /absent\.jsonl: no such file$/)
    }))

  it.live("rejects a non-numeric --target-tokens, naming the option", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", file, "--target-tokens", "many"])
      assert.strictEqual(result.code, 1)
      expect(stripAnsi(result.stderr)).toContain("--target-tokens must be an integer >= 1")
      assert.strictEqual(result.stdout, "")
    }))

  it.live("reports a bad PRECIS_SUMMARIZER_* setting as one line", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", file], { env: { PRECIS_SUMMARIZER_MAX_TOKENS: "lots" } })
      assertOneLineFailure(result, /configuration error: PRECIS_SUMMARIZER_MAX_TOKENS/)
    }))
})

describe("summarize --provider openai", () => {
  const file = write(dir, "openai.jsonl", sessionJsonl(6))
  const server = fakeOpenAi()

  it.live("without PRECIS_OPENAI_MODEL says to set it, and writes nothing", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "nomodel.db")
      for (const args of [["summarize", file], ["compact", file, "--db", db]]) {
        const result = yield* runCli([...args, "--provider", "openai"])
        assertOneLineFailure(result, /--provider openai needs a model: set PRECIS_OPENAI_MODEL/)
      }
      assert.isFalse(fs.existsSync(db))
    }))

  it.live("talks to an OpenAI-compatible server with the configured model and key", () =>
    Effect.gen(function*() {
      server.status = 200
      server.seen.length = 0
      const result = yield* runCli(["summarize", file, "--provider", "openai", "--json"], {
        env: { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: server.baseUrl, PRECIS_OPENAI_API_KEY: SECRET }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(JSON.parse(result.stdout).text, "Edited src/module1.ts.")
      assert.strictEqual(JSON.parse(result.stdout).tier, "normal")
      assert.strictEqual(server.seen.length, 1)
      assert.strictEqual(server.seen[0]!.body.model, "tiny-model")
      assert.strictEqual(server.seen[0]!.authorization, `Bearer ${SECRET}`)
    }))

  it.live("a refused key is an error naming the cause, and is never printed, even with --verbose", () =>
    Effect.gen(function*() {
      server.status = 401
      const result = yield* runCli(["summarize", file, "--provider", "openai", "--json", "--verbose"], {
        env: { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: server.baseUrl, PRECIS_OPENAI_API_KEY: SECRET }
      })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stdout, "")
      expect(result.stderr).toMatch(/precis: .*openai\.jsonl: not summarized: the provider fails in a way that will not heal \(UnauthorizedError: .*HTTP 401/)
      expect(result.stdout + result.stderr).not.toContain(SECRET)
      expect(result.stdout + result.stderr).not.toContain("DO-NOT-PRINT")
    }))

  it.live("--timeout bounds each tier: a server that stalls ends in the fallback after two deadlines", () =>
    Effect.gen(function*() {
      server.stall = true
      server.seen.length = 0
      const result = yield* runCli(["summarize", file, "--provider", "openai", "--json", "--timeout", "1"], {
        env: { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: server.baseUrl, PRECIS_SUMMARIZER_TIMEOUT: "1 hour" }
      }).pipe(Effect.ensuring(Effect.sync(() => (server.stall = false))))
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(JSON.parse(result.stdout).tier, "fallback")
      assert.strictEqual(server.seen.length, 2)
    }))

  it.live("a --timeout that is not a duration is refused, naming the option", () =>
    Effect.gen(function*() {
      for (const bad of ["soon", "0", "-3", "-1 seconds"]) {
        const result = yield* runCli(["summarize", file, "--timeout", bad])
        assertOneLineFailure(
          result,
          new RegExp(`^precis: --timeout must be a positive finite duration such as "30 seconds" \\(got .*\\)$`)
        )
      }
    }))
})
