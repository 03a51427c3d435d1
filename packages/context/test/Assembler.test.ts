import { assert, describe, expect, it } from "@effect/vitest"
import { ActiveContext, CompactionManager } from "@precis/compaction"
import { ConversationTurn, SessionState, TokenEstimator } from "@precis/core"
import { Store, type StoreError, TurnStore } from "@precis/store"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { toolSession } from "../../compaction/test/helpers.js"
import * as Assembler from "../src/Assembler.js"
import * as AssemblerConfig from "../src/AssemblerConfig.js"
import type { InvalidContextOptionsError } from "../src/ContextError.js"
import * as Layout from "../src/Layout.js"
import { assemblerLayer, requestCount, storeLayer } from "./helpers.js"

const estimator = TokenEstimator.approximate

// The options an error names (the message of any other error).
const optionsOf = (error: StoreError.StoreError | InvalidContextOptionsError) =>
  error._tag === "InvalidContextOptionsError" ? error.problems.map((p) => p.option) : [error.message]
const decode = Schema.decodeUnknownSync(SessionState.StateFromJson)

const turn = (role: string, content: string, id: string, metadata?: Record<string, unknown>) =>
  ConversationTurn.make({ role, content, id, ...(metadata === undefined ? {} : { metadata }) })
const log = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `  PASS test/case${i}.test.ts (12 tests) ${i}ms`).join("\n")

// 12 steps of a user request, a build call and its long log.
const builds = Array.from({ length: 12 }, (_, i) => [
  turn("user", `step ${i}: check the build`, `step${i}`),
  turn("assistant", "Running npm run build.", `build${i}`, {
    toolCalls: [{ id: `call-build${i}`, name: "bash", arguments: JSON.stringify({ command: "npm run build" }) }]
  }),
  turn("tool", log(400), `log${i}`, { toolCallId: `call-build${i}`, toolName: "bash" })
]).flat()

const assembler = Assembler.Assembler
const sent = (assembled: Assembler.Assembled) => estimator.estimate(Layout.render(assembled))

describe("Assembler", () => {
  it.effect("a first assembly: old tool output masked, a compaction only when that is still over the low-water mark", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", builds)
      const budget = 16_000
      const masked = yield* (yield* assembler).assemble("s", { budget })
      expect(masked.tokens).toBe(sent(masked))
      expect(masked.tokens).toBeLessThanOrEqual(budget * AssemblerConfig.defaults.lowWater)
      expect(masked.report.stages.map((s) => [s.stage, s.acted])).toEqual([
        ["mask", true],
        ["summarize", false],
        ["forget", false],
        ["window", false],
        ["expand", false]
      ])
      assert.deepStrictEqual([masked.rebuilt, masked.sharedTokens], [true, 0])
      expect(yield* requestCount).toBe(0)
      // A tight budget: the masked context is still over the low-water mark, so the DAG summarizes.
      const tight = yield* (yield* Assembler.make({ expand: false })).assemble("s", { budget: 1200 })
      expect(tight.tokens).toBeLessThanOrEqual(600)
      const summarize = tight.report.stages.find((s) => s.stage === "summarize")!
      expect(summarize.acted).toBe(true)
      expect(summarize.summarized).toBeGreaterThan(0)
      expect(tight.summaries.length).toBeGreaterThan(0)
      // compact: false never calls the model.
      const calls = yield* requestCount
      const fitted = yield* (yield* Assembler.make({ compact: false })).assemble("s", { budget: 300 })
      expect(fitted.tokens).toBeLessThanOrEqual(300)
      expect(fitted.tokens).toBe(sent(fitted))
      expect(yield* requestCount).toBe(calls)
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("pins the first request, puts the header after the summaries within its share, and saves the state", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      const budget = 2000
      const assembled = yield* (yield* assembler).assemble("s", { budget })
      // The header cites the first request the context pins, without its text again.
      const header = SessionState.render(SessionState.fold(toolSession), Math.floor(budget * 0.15), undefined, { firstRequestShown: true })
      assert.strictEqual(assembled.header, header)
      assert.include(header, "- first request: shown verbatim in this context [u1]")
      assert.notInclude(header, assembled.pinned[0]!.content)
      assert.strictEqual(assembled.headerTokens, estimator.estimate(assembled.header))
      assert.isAtMost(assembled.headerTokens, budget * 0.15)
      assert.isAtMost(assembled.tokens, budget)
      // The first request first, shown once; the header after the summaries (none here), before the turns.
      assert.deepStrictEqual(assembled.pinned.map((t) => t.id), ["u1"])
      assert.notInclude(assembled.turns.map((t) => t.id), "u1")
      assert.deepStrictEqual(Layout.blocks(assembled).slice(0, 3).map((b) => b.kind), ["request", "state", "turn"])
      assert.isTrue(Layout.render(assembled).startsWith(`${Layout.render({ pinned: assembled.pinned, summaries: [], turns: [] })}\n\n${assembled.header}\n\n`))
      assert.strictEqual(assembled.breakpoint, Layout.blocks(assembled).length - 1)
      const saved = Option.getOrThrow(yield* store.sessionState("s"))
      assert.strictEqual(saved.lastSeq, toolSession.length - 1)
      assert.deepStrictEqual(decode(saved.state), SessionState.fold(toolSession))
      // Off: no header.
      const off = yield* (yield* Assembler.make({ sessionState: false })).assemble("s", { budget })
      assert.deepStrictEqual([off.header, off.headerTokens], ["", 0])
      // A smaller share gives a shorter header.
      const small = yield* (yield* Assembler.make({ stateShare: 0.05 })).assemble("s", { budget })
      assert.isAtMost(estimator.estimate(small.header), budget * 0.05)
      assert.isBelow(small.header.length, assembled.header.length)
      // The caller's system text comes first of all, and counts.
      const system = yield* (yield* Assembler.make({ system: "You are a careful engineer." })).assemble("s", { budget })
      assert.isTrue(Layout.render(system).startsWith("You are a careful engineer.\n\n"))
      assert.strictEqual(system.tokens, sent(system))
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("keeps the pinned first request readable in a small budget: a quarter of it, up to 200 tokens, not a turn's share", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      const request = `Fix the totals in src/money.ts: ${"the VAT must round half up per line, not on the sum. ".repeat(40)}`
      yield* store.appendTurns("s", [turn("user", request, "u1"), ...builds.slice(1, 6)])
      for (const budget of [400, 800, 32_000]) {
        const assembled = yield* (yield* assembler).assemble("s", { budget })
        const pinned = assembled.pinned[0]!
        const tokens = ActiveContext.turnTokens(estimator, pinned)
        expect(tokens).toBeLessThanOrEqual(Math.max(budget * AssemblerConfig.defaults.turnShare, Math.min(200, budget / 4)))
        expect(tokens).toBeGreaterThan(Math.min(200, budget / 4) - 10)
        assert.isTrue(pinned.content.startsWith("Fix the totals in src/money.ts"))
        expect(assembled.tokens).toBeLessThanOrEqual(budget)
      }
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("refuses a config that makes no sense when it is built, and a budget before reading anything, naming them", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      const built = (config: AssemblerConfig.Config) => Effect.flip(Assembler.make(config))
      const share = yield* built({ stateShare: 1 })
      assert.strictEqual(share.message, "invalid context options: stateShare must be a number in [0, 1) (got 1)")
      assert.deepStrictEqual(optionsOf(yield* built({ forget: { decay: -1 } })), ["forget.decay"])
      // A negative reserve would have filled the context past its budget.
      assert.deepStrictEqual(optionsOf(yield* built({ expand: { reserve: -1 } })), ["expand.reserve"])
      // The frame's own: the marks in (0, 1], the low one below the high one.
      const marks = yield* built({ lowWater: 0.9, highWater: 0.8 })
      assert.strictEqual(marks.message, "invalid context options: lowWater must be a number <= highWater (got 0.9 > 0.8)")
      assert.deepStrictEqual(optionsOf(yield* built({ turnShare: 0, highWater: 1.5 })), ["highWater", "turnShare"])
      // On the call: a budget that is no budget, or one the system text does not fit in.
      const budget = yield* Effect.flip((yield* assembler).assemble("s", { budget: 0 }))
      assert.strictEqual(budget.message, "invalid context options: budget must be an integer >= 1 (got 0)")
      const system = yield* Effect.flip((yield* Assembler.make({ system: "x".repeat(400) })).assemble("s", { budget: 10 }))
      assert.deepStrictEqual(optionsOf(system), ["system"])
      assert.isTrue(Option.isNone(yield* store.sessionState("s")))
    }).pipe(Effect.provide(assemblerLayer())))

  it("every setting of the config says what it is (a description annotation): one field is one setting", () => {
    const settings = SchemaAST.getPropertySignatures(Schema.typeSchema(AssemblerConfig.Config).ast)
    expect(settings.length).toBeGreaterThan(10)
    assert.deepStrictEqual(settings.filter((s) => Option.isNone(SchemaAST.getDescriptionAnnotation(s))).map((s) => s.name), [])
  })

  it.effect("layerConfig reads the config from the PRECIS_ASSEMBLER_* variables; a bad one is a ConfigError naming it", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      const withVariables = (variables: Record<string, string>) =>
        Effect.flatMap(Assembler.Assembler, (service) => service.assemble("s", { budget: 8000 })).pipe(
          Effect.provide(Assembler.layerConfig()),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables))))
        )
      assert.notStrictEqual((yield* withVariables({})).header, "")
      assert.strictEqual((yield* withVariables({ PRECIS_ASSEMBLER_SESSION_STATE: "false" })).header, "")
      const bad = yield* Effect.flip(withVariables({ PRECIS_ASSEMBLER_LOW_WATER: "0.9", PRECIS_ASSEMBLER_HIGH_WATER: "0.8" }))
      assert.strictEqual(String(bad), "(Invalid data at PRECIS_ASSEMBLER_LOW_WATER: \"must be a number <= PRECIS_ASSEMBLER_HIGH_WATER (got 0.9 > 0.8)\")")
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("folds the new turns from the uncovered turns it read, reading no turns again", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      const more = [ConversationTurn.make({ role: "user", content: "and JSON too", id: "u3" })]
      yield* store.appendTurns("s", more)
      const reads: Array<string> = []
      const watched = TurnStore.TurnStore.of({
        ...store,
        turns: (sessionId, options) =>
          Effect.suspend(() => {
            reads.push(sessionId)
            return store.turns(sessionId, options)
          })
      })
      const service = yield* Assembler.make({ compact: false }).pipe(Effect.provideService(TurnStore.TurnStore, watched))
      const assembled = yield* service.assemble("s", { budget: 8000 })
      assert.deepStrictEqual(reads, [])
      assert.include(assembled.header, "latest request: and JSON too [u3]")
      const saved = Option.getOrThrow(yield* store.sessionState("s"))
      assert.deepStrictEqual(decode(saved.state), SessionState.fold([...toolSession, ...more]))
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("without a budget: the active context whole, the header at its default size", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      yield* (yield* CompactionManager.CompactionManager).compact("s", { freshTailTurns: 4, leafChunkTokens: 60 })
      const active = yield* ActiveContext.load("s")
      const whole = yield* (yield* assembler).assemble("s")
      assert.deepStrictEqual([whole.summaries, whole.turns, whole.pinned], [active.summaries, active.turns, []])
      assert.strictEqual(whole.header, SessionState.render(SessionState.fold(toolSession), SessionState.defaultMaxTokens))
      assert.strictEqual(whole.tokens, sent(whole))
      assert.deepStrictEqual(whole.report, { tokensBefore: active.tokens, tokensAfter: active.tokens, stages: [] })
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("the budget holds for the text as sent: the blank lines, newlines and labels are counted", () =>
    Effect.gen(function*() {
      // Many short turns: each line's estimate rounds down, and the newlines between them are no turn's.
      const store = yield* Store.all
      yield* store.appendTurns("s", Array.from({ length: 600 }, (_, i) => turn(i % 2 === 0 ? "user" : "assistant", `ok ${i}`, `t${i}`)))
      for (const budget of [300, 1000, 2000, 4000]) {
        const assembled = yield* (yield* Assembler.makeReadOnly(AssemblerConfig.oneShot)).assemble("s", { budget })
        expect(sent(assembled)).toBeLessThanOrEqual(budget)
        expect(assembled.tokens).toBe(sent(assembled))
      }
    }).pipe(Effect.provide(storeLayer())))

  it.effect("the recall note, asked of the assembly, follows the summaries and is counted in the budget", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("note", builds)
      yield* (yield* CompactionManager.CompactionManager).compact("note", { freshTailTurns: 4 })
      // Not expanded: the summaries stay summaries (here the expansion would show all their turns).
      const plain = yield* (yield* Assembler.make({ compact: false, expand: false })).assemble("note", { budget: 3000 })
      const noted = yield* (yield* Assembler.make({ compact: false, expand: false, recallNote: true })).assemble("note", { budget: 3000 })
      assert.isTrue(noted.recallNote)
      expect(noted.summaries.length).toBeGreaterThan(0)
      const text = Layout.render(noted)
      assert.include(text, `${Layout.recallNote(noted.summaries)}\n\n`)
      assert.strictEqual(noted.tokens, estimator.estimate(text))
      expect(noted.tokens).toBeGreaterThan(estimator.estimate(Layout.render(noted, { recallNote: false })))
      expect(noted.tokens).toBeLessThanOrEqual(3000)
      // Layout reads it from the context: no option to repeat.
      assert.strictEqual(Layout.render(noted), Layout.render(noted, { recallNote: true }))
      assert.notInclude(Layout.render(plain), "Summary ids:")
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("the text as sent, the header, the summaries' header lines and the separators included, is never over the budget", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      // 60 turns of 30 tokens: many short leaves, none condensed, whose header lines weigh in a small budget.
      const start = Date.parse("2025-01-01T00:00:00Z")
      yield* store.appendTurns("sent", Array.from({ length: 60 }, (_, i) => {
        const role = i % 2 === 0 ? "user" : "assistant"
        const timestamp = new Date(start + i * 60_000).toISOString()
        return ConversationTurn.make({ role, content: `${role} step ${i}: `.padEnd(110, "x"), id: `t${i}`, timestamp })
      }))
      yield* (yield* CompactionManager.CompactionManager).compact("sent", {
        leafChunkTokens: 60,
        freshTailTurns: 4,
        minFanIn: 100,
        maxFanIn: 100
      })
      for (const budget of [250, 400, 700, 1000]) {
        const assembled = yield* (yield* Assembler.make({ compact: false })).assemble("sent", { budget })
        expect(assembled.header.length).toBeGreaterThan(0)
        expect(estimator.estimate(Layout.render(assembled))).toBeLessThanOrEqual(budget)
      }
    }).pipe(Effect.provide(assemblerLayer())))
})

describe("Assembler, read-only", () => {
  it.effect("never writes: no compaction whatever `compact` says, the state carried forward, not saved", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", builds)
      const readOnly = yield* Assembler.makeReadOnly({ compact: true })
      const before = yield* store.summaries("s")
      const tight = yield* readOnly.assemble("s", { budget: 1200 })
      expect(tight.tokens).toBeLessThanOrEqual(1200)
      assert.notInclude(tight.report.stages.map((s) => s.stage), "summarize")
      assert.deepStrictEqual(yield* store.summaries("s"), before)
      assert.include(tight.header, "step 11: check the build")
      assert.isTrue(Option.isNone(yield* store.sessionState("s")))
    }).pipe(Effect.provide(storeLayer())))

  it.effect("is what the assembler over the manager gives with `compact: false`, filled to the one-shot mark", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", [...toolSession, ...builds])
      yield* (yield* CompactionManager.CompactionManager).compact("s", { freshTailTurns: 6, leafChunkTokens: 300, minFanIn: 2 })
      const budget = 3000
      const assembled = yield* (yield* Assembler.makeReadOnly(AssemblerConfig.oneShot)).assemble("s", { budget })
      expect(assembled.tokens).toBeLessThanOrEqual(Math.floor(budget * AssemblerConfig.oneShotLowWater))
      expect(assembled.report.stages.at(-1)!.acted).toBe(true)
      const compacting = yield* (yield* Assembler.make({ ...AssemblerConfig.oneShot, compact: false })).assemble("s", { budget })
      assert.strictEqual(Layout.render(compacting), Layout.render(assembled))
      assert.deepStrictEqual(compacting.report, assembled.report)
    }).pipe(Effect.provide(assemblerLayer())))
})
