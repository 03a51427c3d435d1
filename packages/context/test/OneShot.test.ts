import { assert, describe, expect, it } from "@effect/vitest"
import { CompactionManager } from "@precis/compaction"
import { ConversationTurn, type Provider, TokenEstimator } from "@precis/core"
import { Store } from "@precis/store"
import { ScriptedProvider, StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import { toolSession } from "../../compaction/test/helpers.js"
import * as Assembler from "../src/Assembler.js"
import * as AssemblerConfig from "../src/AssemblerConfig.js"
import * as Layout from "../src/Layout.js"
import { assemblerLayer } from "./helpers.js"

const estimator = TokenEstimator.approximate
const sent = (assembled: Assembler.Assembled) => estimator.estimate(Layout.render(assembled))

// A tool-heavy session: each step a request, a test run and its 40-line log, a minute apart. Its raw
// turns are about ten times its material (what a summarizer reads).
const toolHeavy = (steps: number) => {
  const start = Date.parse("2025-01-01T00:00:00Z")
  return Array.from({ length: steps }, (_, i) => {
    const call = { id: `c${i}`, name: "Bash", arguments: JSON.stringify({ command: `pnpm test mod${i}` }) }
    const log = Array.from({ length: 40 }, (_, j) => `  PASS test/mod${i}/case${j}.test.ts (12 tests) ${j}ms`)
    return [
      { role: "user", content: `Step ${i}: make module ${i} pass its tests.` },
      { role: "assistant", content: `Running the tests of module ${i}.`, metadata: { toolCalls: [call] } },
      { role: "tool", content: [...log, `Tests  ${480 + i} passed`].join("\n"), metadata: { toolCallId: call.id, toolName: "Bash" } }
    ]
  }).flat().map((turn, k) =>
    ConversationTurn.make({ ...turn, id: `t${k}`, timestamp: new Date(start + k * 60_000).toISOString() })
  )
}

// Every summary about 300 tokens.
const reply = (request: Provider.ChatRequest): ScriptedProvider.Outcome =>
  ScriptedProvider.reply(`${request.task?.kind ?? "?"} summary `.padEnd(1200, "."))

describe("Assembler, assembled once", () => {
  it.effect("a session that fits its budget whole is given whole, verbatim: every turn, no summary", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      yield* (yield* CompactionManager.CompactionManager).compact("s", { freshTailTurns: 2, leafChunkTokens: 40 })
      expect((yield* store.summaries("s")).length).toBeGreaterThan(0)
      const readOnly = yield* Assembler.makeReadOnly(AssemblerConfig.oneShot)
      const whole = yield* readOnly.assemble("s", { budget: 4000 })
      assert.deepStrictEqual(whole.summaries, [])
      assert.deepStrictEqual(whole.pinned, [])
      assert.deepStrictEqual(whole.turns.map((t) => [t.id, t.content]), toolSession.map((t) => [t.id, t.content]))
      expect(whole.header.length).toBeGreaterThan(0)
      expect(whole.tokens).toBeLessThanOrEqual(4000)
      assert.strictEqual(whole.tokens, sent(whole))
      assert.deepStrictEqual(whole.report.stages.map((s) => s.stage), ["whole"])
      // Not whole: when asked not to, or when the turns do not fit the budget.
      const summarized = yield* (yield* Assembler.makeReadOnly({ ...AssemblerConfig.oneShot, whole: false })).assemble("s", { budget: 4000 })
      assert.notDeepEqual(summarized.turns.map((t) => t.content), toolSession.map((t) => t.content))
      const tight = yield* readOnly.assemble("s", { budget: 200 })
      assert.notInclude(tight.report.stages.map((s) => s.stage), "whole")
      expect(tight.tokens).toBeLessThanOrEqual(200)
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("the header goes before a turn does: a session that fits only without it is whole without it", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      const readOnly = yield* Assembler.makeReadOnly(AssemblerConfig.oneShot)
      const turnsOnly = estimator.estimate(Layout.render({ summaries: [], turns: toolSession }))
      const whole = yield* readOnly.assemble("s", { budget: turnsOnly })
      assert.strictEqual(whole.header, "")
      assert.deepStrictEqual(whole.turns.map((t) => t.content), toolSession.map((t) => t.content))
      expect(whole.tokens).toBeLessThanOrEqual(turnsOnly)
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("fills at least 80% of its budget from a DAG of the default leaf size over a tool-heavy session, never past it", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolHeavy(300))
      // The defaults: leaf chunks of 20,000 tokens of material, far more than a 16k budget holds as raw turns.
      yield* (yield* CompactionManager.CompactionManager).compact("s")
      const readOnly = yield* Assembler.makeReadOnly(AssemblerConfig.oneShot)
      const at16k = yield* readOnly.assemble("s", { budget: 16_000 })
      expect(at16k.tokens).toBeGreaterThanOrEqual(12_800)
      expect(at16k.tokens).toBeLessThanOrEqual(16_000)
      assert.strictEqual(at16k.tokens, sent(at16k))
      assert.deepStrictEqual(yield* StoreInvariants.contextViolations("s", at16k), [])
      // The newest leaf in part: its summary, then its newest turns, the logs in their material form.
      expect(at16k.summaries.length).toBeGreaterThan(0)
      expect(at16k.turns.length).toBeGreaterThan(16)
      const stored = new Map((yield* store.turns("s")).map((t) => [t.id, t.content]))
      const digested = at16k.turns.filter((t) => t.role === "tool" && t.content !== stored.get(t.id ?? ""))
      expect(digested.length).toBeGreaterThan(10)
      for (const t of digested) expect(t.content).toMatch(/Tests {2}\d+ passed/)
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(FastCheck.integer({ min: 3000, max: 60_000 }), (budget) =>
            Effect.runPromise(
              readOnly.assemble("s", { budget }).pipe(
                Effect.map((assembled) => {
                  expect(assembled.tokens).toBeLessThanOrEqual(budget)
                  expect(assembled.tokens).toBeGreaterThanOrEqual(Math.floor(0.8 * budget))
                }),
                Effect.provideService(TokenEstimator.TokenEstimator, estimator)
              )
            )
          ),
          { numRuns: 8 }
        )
      )
    }).pipe(Effect.provide(assemblerLayer(ScriptedProvider.respond(reply)))), 120_000)
})
