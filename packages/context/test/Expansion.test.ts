import { assert, describe, expect, it } from "@effect/vitest"
import { ActiveContext, CompactionManager } from "@precis/compaction"
import { ConversationTurn, Material, type Provider, type SummaryRecord, TokenEstimator, Transcript } from "@precis/core"
import { DagStore, Store, StoreError } from "@precis/store"
import { Arbitraries, ScriptedProvider, StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Assembler from "../src/Assembler.js"
import * as AssemblerConfig from "../src/AssemblerConfig.js"
import type { InvalidContextOptionsError } from "../src/ContextError.js"
import * as Expansion from "../src/Expansion.js"
import * as Layout from "../src/Layout.js"
import { assemblerLayer, runPumped } from "./helpers.js"

const estimator = TokenEstimator.approximate

// The options an error names (the message of any other error).
const optionsOf = (error: StoreError.StoreError | InvalidContextOptionsError) =>
  error._tag === "InvalidContextOptionsError" ? error.problems.map((p) => p.option) : [error.message]

// Every summary is 50 tokens, so that what an expansion costs is known.
const fixedReply = (request: Provider.ChatRequest): ScriptedProvider.Outcome =>
  ScriptedProvider.reply(`${request.task?.kind ?? "?"} `.padEnd(200, "."))

/** `count` turns of exactly `tokens` tokens each (alternating user/assistant). */
const sizedTurns = (count: number, tokens: number) => {
  const start = Date.parse("2025-01-01T00:00:00Z")
  return Array.from({ length: count }, (_, i) => {
    const role = i % 2 === 0 ? "user" : "assistant"
    const timestamp = new Date(start + i * 60_000).toISOString()
    const frame = Transcript.formatTurn({ role, content: "", timestamp }).length
    return ConversationTurn.make({ role, content: "x".repeat(tokens * 4 - frame), id: `t${i}`, timestamp })
  })
}

// 10 turns of 100 tokens, the newest 2 a fresh tail: 4 leaves of 2 turns, 2 condensed of 2 leaves, 1 on top.
const options = { freshTailTurns: 2, leafChunkTokens: 250, minFanIn: 2, maxFanIn: 2 }
const layer = assemblerLayer(ScriptedProvider.respond(fixedReply), options)
const session = "e"

const compacted = Effect.gen(function*() {
  const store = yield* Store.all
  const manager = yield* CompactionManager.CompactionManager
  yield* store.appendTurns(session, sizedTurns(10, 100))
  yield* manager.compact(session)
  assert.deepStrictEqual(yield* StoreInvariants.violations(), [])
  const active = yield* manager.context(session)
  assert.deepStrictEqual(active.summaries.map((s) => s.depth), [2])
  return { store, manager, active, assembler: yield* Assembler.Assembler }
})

const ids = (summaries: ReadonlyArray<SummaryRecord.SummaryRecord>) => summaries.map((s) => s.id)
const rendered = (context: Layout.Renderable) => estimator.estimate(Layout.render(context))

// Runs of this property take seconds: a failure ends the check at once (`endOnFailure`, its seed and path
// printed to replay it) instead of a shrinking that would run for hours and look like a hang.
describe("Expansion", () => {
  it.effect("shows the highest depth first, then the newest summary of a depth, as far as the budget allows", () =>
    Effect.gen(function*() {
      const { active, store } = yield* compacted
      const top = active.summaries[0]!
      const [older, newer] = yield* store.children(top.id)
      const newerLeaves = yield* store.children(newer!.id)
      // Room for the top's children and for the newer one's leaves, not for the older one's.
      const expected = { summaries: [older!, ...newerLeaves], turns: active.turns }
      const budget = rendered(expected)
      const out = yield* Expansion.expand(active, { budget, reserve: 0 })
      assert.deepStrictEqual(ids(out.summaries), ids(expected.summaries))
      assert.strictEqual(out.expandedSummaries, 2)
      assert.strictEqual(out.expandedLeaves, 0)
      assert.strictEqual(out.rendered, budget)
      assert.strictEqual(out.tokens, ActiveContext.count(estimator, expected))
      assert.strictEqual(out.turns, active.turns)
      assert.deepStrictEqual(yield* StoreInvariants.contextViolations(session, out, { complete: true }), [])
      // One token less: the newer one's leaves no longer fit, the older one's neither (the same size).
      const less = yield* Expansion.expand(active, { budget: budget - 1, reserve: 0 })
      assert.deepStrictEqual(ids(less.summaries), [older!.id, newer!.id])
    }).pipe(Effect.provide(layer)))

  it.effect("fills toward (1 - reserve) x budget, never past it, and stops only when no expansion fits", () =>
    Effect.gen(function*() {
      const { active, store } = yield* compacted
      for (const budget of [1, 500, 700, 760, 900, 1000, 1100, 1300, 1600, 5000]) {
        for (const reserve of [0, Expansion.defaults.reserve, 0.5]) {
          const out = yield* Expansion.expand(active, { budget, reserve })
          const limit = Expansion.limit({ budget, reserve })
          assert.strictEqual(out.tokens, ActiveContext.count(estimator, out))
          assert.strictEqual(out.rendered, rendered(out))
          if (rendered(active) >= limit) {
            assert.strictEqual(out.summaries, active.summaries)
            continue
          }
          expect(out.rendered).toBeLessThanOrEqual(limit)
          assert.deepStrictEqual(yield* StoreInvariants.contextViolations(session, out, { complete: true }), [])
          // Full: no condensed summary left would fit as its children, nor the newest leaf as its turns.
          for (const [i, s] of out.summaries.entries()) {
            if (s.depth === 0) continue
            const children = yield* store.children(s.id)
            const next = [...out.summaries.slice(0, i), ...children, ...out.summaries.slice(i + 1)]
            expect(rendered({ summaries: next, turns: out.turns })).toBeGreaterThan(limit)
          }
          const last = out.summaries.at(-1)
          if (last !== undefined && out.summaries.every((s) => s.depth === 0)) {
            const source = yield* store.sourceTurns(last.id)
            expect(rendered({ summaries: out.summaries.slice(0, -1), turns: [...source, ...out.turns] }))
              .toBeGreaterThan(limit)
          }
        }
      }
      // A large budget shows every turn as itself; without `turns`, the leaves stay.
      const all = yield* Expansion.expand(active, { budget: 5000 })
      assert.deepStrictEqual(all.summaries, [])
      assert.deepStrictEqual(all.turns.map((t) => t.id), (yield* store.turns(session)).map((t) => t.id))
      assert.strictEqual(all.expandedLeaves, 4)
      const leaves = yield* Expansion.expand(active, { budget: 5000, turns: false })
      assert.deepStrictEqual(leaves.summaries.map((s) => s.depth), [0, 0, 0, 0])
      assert.strictEqual(leaves.turns, active.turns)
    }).pipe(Effect.provide(layer)))

  it.effect("steps are estimated from the blocks they swap; when those estimates undershoot, every step is measured", () =>
    Effect.gen(function*() {
      const { active } = yield* compacted
      // Costs more than its parts: a whole text is dearer than its blocks summed, so every estimate undershoots.
      const lumpy: TokenEstimator.Service = {
        ...estimator,
        estimate: (text) => Math.ceil(text.length / 4 + (text.length / 100) ** 2 / 10)
      }
      for (let budget = 500; budget <= 2000; budget += 50) {
        const out = yield* Expansion.expand(active, { budget, reserve: 0 }).pipe(
          Effect.provideService(TokenEstimator.TokenEstimator, lumpy)
        )
        assert.strictEqual(out.rendered, lumpy.estimate(Layout.render(out)))
        expect(out.rendered).toBeLessThanOrEqual(budget)
        expect(out.expandedSummaries + out.expandedLeaves).toBeGreaterThan(0)
        assert.deepStrictEqual(yield* StoreInvariants.contextViolations(session, out, { complete: true }), [])
      }
    }).pipe(Effect.provide(layer)))

  it.effect("only the newest leaves become turns: in their material form, then verbatim where that adds little", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      const manager = yield* CompactionManager.CompactionManager
      const turns = [
        ConversationTurn.make({ role: "user", content: "Run the tests.", id: "u0" }),
        ConversationTurn.make({
          role: "assistant",
          content: "Running npm test.",
          id: "a1",
          metadata: { toolCalls: [{ id: "c1", name: "bash", arguments: JSON.stringify({ command: "npm test" }) }] }
        }),
        ConversationTurn.make({
          role: "tool",
          content: `${"  PASS test/case.test.ts\n".repeat(200)}Error: 1 failed\nexit code 1`,
          id: "r1",
          metadata: { toolCallId: "c1", toolName: "bash" }
        }),
        ...sizedTurns(2, 100)
      ]
      yield* store.appendTurns(session, turns)
      yield* manager.compact(session, { freshTailTurns: 2, leafChunkTokens: 100_000 })
      const active = yield* manager.context(session)
      assert.deepStrictEqual(active.summaries.map((s) => s.depth), [0])
      const out = yield* Expansion.expand(active, { budget: 10_000 })
      assert.deepStrictEqual(out.turns.map((t) => t.id), ["u0", "a1", "r1", "t0", "t1"])
      // The long log stays in the form its summarizer read: its exit status and its error line.
      assert.strictEqual(out.turns[2]!.content, Material.renderContents(turns.slice(0, 3))[2])
      assert.include(out.turns[2]!.content, "Error: 1 failed")
      expect(out.turns[2]!.content.length).toBeLessThan(turns[2]!.content.length / 10)
      assert.deepStrictEqual(out.turns.slice(0, 2), (yield* store.turns(session)).slice(0, 2))
    }).pipe(Effect.provide(layer)))

  it.effect("a rebuild fills the context from the DAG up to the low-water mark, and not with expand: false; nothing stored changes", () =>
    Effect.gen(function*() {
      // The session-state header is measured apart (SessionState.test.ts): here, only the expansion.
      const { active, store } = yield* compacted
      const before = yield* store.summaries(session)
      const budget = 2000
      const assemble = (config: AssemblerConfig.Config) =>
        Effect.flatMap(Assembler.make({ sessionState: false, ...config }), (assembler) => assembler.assemble(session, { budget }))
      const expanded = yield* assemble({ compact: false })
      expect(expanded.tokens).toBeLessThanOrEqual(Math.floor(budget * AssemblerConfig.defaults.lowWater))
      const stage = expanded.report.stages.at(-1)!
      assert.deepStrictEqual([stage.stage, stage.acted], ["expand", true])
      expect(stage.expanded).toBeGreaterThan(0)
      assert.deepStrictEqual(yield* StoreInvariants.contextViolations(session, expanded, { complete: true }), [])
      // With compaction allowed (nothing to compact here), the same context.
      const compacting = yield* assemble({})
      assert.deepStrictEqual(ids(compacting.summaries), ids(expanded.summaries))
      const off = yield* assemble({ compact: false, expand: false })
      assert.deepStrictEqual(ids(off.summaries), ids(active.summaries))
      expect(off.tokens).toBeLessThan(expanded.tokens)
      assert.notInclude(off.report.stages.map((s) => s.stage), "expand")
      // A reserve leaves that share of the low-water mark unfilled.
      const reserved = yield* assemble({ compact: false, expand: { reserve: 0.5 } })
      expect(reserved.tokens).toBeLessThan(expanded.tokens)
      assert.deepStrictEqual(yield* store.summaries(session), before)
      assert.deepStrictEqual(yield* StoreInvariants.violations(), [])
    }).pipe(Effect.provide(layer)))

  it.effect("options are a Schema: a reserve outside [0, 1] or a negative mask size is refused, naming it", () =>
    Effect.gen(function*() {
      const { active } = yield* compacted
      assert.deepStrictEqual(Either.getOrThrow(Expansion.decodeOptions({ budget: 100 })), {
        budget: 100,
        ...Expansion.defaults
      })
      // A negative reserve would fill past the budget.
      const error = yield* Effect.flip(Expansion.expand(active, { budget: 1000, reserve: -0.5, maskMinTokens: -1 }))
      assert.strictEqual(error._tag, "InvalidContextOptionsError")
      assert.deepStrictEqual(optionsOf(error), ["reserve", "maskMinTokens"])
      // As a stage it never fails: the context is left as it was.
      const out = yield* Expansion.stage({ budget: 1000, reserve: -0.5 }).run(active, active.tokens)
      assert.strictEqual(out.context, active)
    }).pipe(Effect.provide(layer)))

  it.effect("a store that fails leaves the context as it was: the stage never fails", () =>
    Effect.gen(function*() {
      const { active, store } = yield* compacted
      const failing = DagStore.DagStore.of({
        ...store,
        children: () => Effect.fail(new StoreError.StoreError({ operation: "DagStore.children", reason: "Io", description: "disk gone" }))
      })
      const out = yield* Expansion.stage({ budget: 5000 }).run(active, active.tokens).pipe(
        Effect.provideService(DagStore.DagStore, failing)
      )
      assert.strictEqual(out.context, active)
    }).pipe(Effect.provide(layer)))

  it.effect("a leaf shown in part never shows a tool result without its call", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      const manager = yield* CompactionManager.CompactionManager
      const turns = [
        ConversationTurn.make({ role: "user", content: `Check the build. ${"Context. ".repeat(800)}`, id: "u0" }),
        ConversationTurn.make({
          role: "assistant",
          content: `I will run the build now. ${"Because the last change touched the parser, ".repeat(50)}`,
          id: "a1",
          metadata: { toolCalls: [{ id: "c1", name: "bash", arguments: JSON.stringify({ command: "npm run build" }) }] }
        }),
        ConversationTurn.make({ role: "tool", content: "build ok", id: "r1", metadata: { toolCallId: "c1", toolName: "bash" } }),
        ...sizedTurns(2, 100)
      ]
      yield* store.appendTurns(session, turns)
      yield* manager.compact(session, { freshTailTurns: 2, leafChunkTokens: 100_000 })
      const active = yield* manager.context(session)
      assert.deepStrictEqual(active.summaries.map((s) => s.depth), [0])
      // Room for the result alone after the summary and the tail, not for its call.
      const out = yield* Expansion.expand(active, { budget: 800 })
      assert.deepStrictEqual(out.turns.map((t) => t.id), ["t0", "t1"])
      const roomier = yield* Expansion.expand(active, { budget: 1_400 })
      assert.deepStrictEqual(roomier.turns.map((t) => t.id), ["a1", "r1", "t0", "t1"])
      // The invariant the context properties check says so of the context this test once caught.
      const orphan = { summaries: active.summaries, turns: roomier.turns.slice(1) }
      assert.deepStrictEqual(yield* StoreInvariants.contextViolations(session, orphan), [
        "tool result r1 is shown without its call a1"
      ])
      assert.deepStrictEqual(yield* StoreInvariants.contextViolations(session, roomier), [])
    }).pipe(Effect.provide(layer)))

  it.effect.prop(
    "whatever the session and budget: within the budget as sent, every turn shown once and in order",
    {
      turns: Arbitraries.turns({ maxLength: 40 }),
      leafChunkTokens: FastCheck.integer({ min: 1, max: 400 }),
      budget: FastCheck.integer({ min: 1, max: 20_000 }),
      reserve: FastCheck.constantFrom(0, 0.15, 0.5),
      turnsToo: FastCheck.boolean()
    },
    ({ budget, leafChunkTokens, reserve, turns, turnsToo }) =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const manager = yield* CompactionManager.CompactionManager
        const assembler = yield* Assembler.make({ compact: false, expand: { reserve, turns: turnsToo } })
        yield* store.appendTurns("p", turns)
        yield* runPumped(manager.compact("p", { freshTailTurns: 3, leafChunkTokens, minFanIn: 2, maxFanIn: 3 }))
        const out = yield* assembler.assemble("p", { budget })
        expect(out.tokens).toBe(rendered(out))
        expect(out.tokens).toBeLessThanOrEqual(budget)
        assert.strictEqual(out.report.stages.find((stage) => stage.stage === "expand")?.stage, "expand")
        const complete = out.report.stages.every((stage) => stage.dropped === 0)
        assert.deepStrictEqual(yield* StoreInvariants.contextViolations("p", out, { complete }), [])
      }).pipe(Effect.provide(assemblerLayer(ScriptedProvider.respond(fixedReply)))),
    { fastCheck: { numRuns: 25, endOnFailure: true }, timeout: 120_000 }
  )
})
