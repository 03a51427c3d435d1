/**
 * `precis condense FILE --budget N`: the stateless Condenser Pipeline over a file.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { afterAll } from "vitest"
import { runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("condense", () => {
  const file = write(dir, "dag.jsonl", sessionJsonl(40))

  it.live("condense FILE --budget N prints the stateless pipeline's context, never over N", () =>
    Effect.gen(function*() {
      const json = yield* runCli(["condense", file, "--budget", "300", "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const condensed = JSON.parse(json.stdout)
      assert.isAtMost(condensed.tokens, 300)
      const summarize = condensed.report.stages.find((s: { stage: string }) => s.stage === "summarize")
      assert.isTrue(summarize.acted)
      assert.isAbove(summarize.summarized, 0)
      assert.strictEqual(condensed.summaries.length, 1)
      const missing = yield* runCli(["condense", file])
      assert.strictEqual(missing.code, 1)
      expect(missing.stderr).toContain("condense needs --budget N")
    }))

})
