import { assert, describe, expect, it } from "@effect/vitest"
import {
  AlsoLine,
  ConversationTurn,
  OptionError,
  type Provider,
  ProviderError,
  Summarizer,
  SummaryTask,
  TokenEstimator,
  Transcript
} from "@precis/core"
import { Store } from "@precis/store"
import { Fixtures, ScriptedProvider, StoreInvariants } from "@precis/testing"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as TestClock from "effect/TestClock"
import * as Tracer from "effect/Tracer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ActiveContext from "../src/ActiveContext.js"
import * as CompactionError from "../src/CompactionError.js"
import * as CompactionManager from "../src/CompactionManager.js"
import * as CompactionOptions from "../src/CompactionOptions.js"
import * as CompactionProgress from "../src/CompactionProgress.js"
import { depsLayer, managerLayer, requestCount, shortReply, storeLayer, waitUntil } from "./helpers.js"

const tokensOf = (turn: ConversationTurn.ConversationTurn) => TokenEstimator.approximate.estimate(Transcript.formatTurn(turn))

/** `count` turns of exactly `tokens` tokens each (alternating user/assistant). */
const sizedTurns = (count: number, tokens: number, prefix = "t") => {
  const start = Date.parse("2025-01-01T00:00:00Z")
  return Array.from({ length: count }, (_, i) => {
    const role = i % 2 === 0 ? "user" : "assistant"
    const timestamp = new Date(start + i * 60_000).toISOString()
    const frame = Transcript.formatTurn({ role, content: "", timestamp }).length
    return ConversationTurn.make({ role, content: "x".repeat(tokens * 4 - frame), id: `${prefix}${i}`, timestamp })
  })
}

const setup = (sessionId: string, turns: ReadonlyArray<ConversationTurn.ConversationTurn>) =>
  Effect.flatMap(Store.all, (store) => store.appendTurns(sessionId, turns))

const manager = CompactionManager.CompactionManager
const store = Store.all

const leafRequests = Effect.map(
  Effect.flatMap(ScriptedProvider.ScriptedProvider, (r) => r.requests),
  (rs) => rs.filter((r) => r.task?.kind === "leaf")
)

describe("CompactionManager", () => {
  it.effect("summarizes everything but the fresh tail, each evicted turn exactly once", () =>
    Effect.gen(function*() {
      yield* setup("s", sizedTurns(40, 50))
      const stats = yield* (yield* manager).compact("s", { leafChunkTokens: 200 })
      expect(stats).toEqual({
        leafSummariesCreated: 6, // 24 evicted turns of 50 tokens, 4 per chunk
        condensedSummariesCreated: 1, // 6 leaves: one group of 6
        turnsCompacted: 24,
        tiersUsed: { normal: 7, aggressive: 0, fallback: 0 }
      })
      const uncovered = yield* (yield* store).uncoveredTurns("s")
      expect(uncovered.map((t) => t.id)).toEqual(Array.from({ length: 16 }, (_, i) => `t${24 + i}`))
      expect(yield* StoreInvariants.violations({ freshTailTurns: 16, minFanIn: 4, maxFanIn: 8, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("fresh tail of 0, 1, the turn count and one more", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      const covered = (id: string) => Effect.map(s.uncoveredTurns(id), (u) => 10 - u.length)
      for (const [tail, expected] of [[0, 10], [1, 9], [10, 0], [11, 0]] as const) {
        const id = `tail-${tail}`
        yield* setup(id, sizedTurns(10, 10))
        const stats = yield* cm.compact(id, { freshTailTurns: tail })
        expect(stats.turnsCompacted).toBe(expected)
        expect(yield* covered(id)).toBe(expected)
        expect(stats.leafSummariesCreated).toBe(expected === 0 ? 0 : 1)
      }
      expect(yield* StoreInvariants.violations()).toEqual([])
      // Only sessions with something to evict called the model.
      expect((yield* leafRequests).length).toBe(2)
    }).pipe(Effect.provide(managerLayer())))

  it.effect("chunks greedily: an exact fit, one token over, an oversized turn, empty content", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      const leafSizes = (id: string) =>
        Effect.map(s.summaries(id, { depth: 0 }), (leaves) => leaves.map((l) => l.sourceTurnIds?.length))
      const options = { freshTailTurns: 0, minFanIn: 100, maxFanIn: 100 }

      yield* setup("exact", sizedTurns(9, 10))
      yield* cm.compact("exact", { ...options, leafChunkTokens: 30 })
      expect(yield* leafSizes("exact")).toEqual([3, 3, 3])

      yield* setup("over", sizedTurns(9, 10))
      yield* cm.compact("over", { ...options, leafChunkTokens: 29 })
      // The last turn alone has less material than half a chunk: it joins the leaf before it.
      expect(yield* leafSizes("over")).toEqual([2, 2, 2, 3])

      const big = sizedTurns(7, 10)
      big[3] = ConversationTurn.make({ ...big[3]!, content: "y".repeat(400) })
      yield* setup("big", big)
      yield* cm.compact("big", { ...options, leafChunkTokens: 30 })
      expect(yield* leafSizes("big")).toEqual([3, 1, 3])

      const empty = [Fixtures.turn("user", "", { id: "e0" }), Fixtures.turn("assistant", "", { id: "e1" })]
      yield* setup("empty", empty)
      const stats = yield* cm.compact("empty", { ...options, leafChunkTokens: 30 })
      expect(stats.turnsCompacted).toBe(2)
      expect(yield* leafSizes("empty")).toEqual([2])
      expect(yield* StoreInvariants.violations()).toEqual([])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("gives each leaf the previous leaf as prior summary, across runs", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      yield* setup("prior", sizedTurns(6, 10))
      yield* cm.compact("prior", { freshTailTurns: 2, leafChunkTokens: 20, minFanIn: 100, maxFanIn: 100 })
      yield* setup("prior", sizedTurns(10, 10))
      yield* cm.compact("prior", { freshTailTurns: 2, leafChunkTokens: 20, minFanIn: 100, maxFanIn: 100 })
      const requests = yield* leafRequests
      const leaves = yield* (yield* store).summaries("prior", { depth: 0 })
      expect(requests.length).toBe(4)
      expect(requests.map((r) => (r.task === undefined ? undefined : SummaryTask.priorSummary(r.task)))).toEqual([undefined, ...leaves.slice(0, 3).map((l) => l.content)])
      expect(requests.map((r) => r.task?.targetTokens)).toEqual([1200, 1200, 1200, 1200])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("builds a bounded DAG: depths, fan-in, descendant counts, time ranges and links", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      yield* setup("dag", sizedTurns(70, 10))
      // Every turn is its own leaf: 54 leaves -> 7 groups (8,8,8,8,8,7,7) -> 1 group of 7.
      const stats = yield* cm.compact("dag", { leafChunkTokens: 10 })
      expect(stats.leafSummariesCreated).toBe(54)
      expect(stats.condensedSummariesCreated).toBe(8)
      const depth1 = yield* s.summaries("dag", { depth: 1 })
      expect(depth1.map((d) => d.sourceSummaryIds?.length)).toEqual([8, 8, 8, 8, 8, 7, 7])
      const [top] = yield* s.parentless("dag")
      expect(top!.depth).toBe(2)
      expect(top!.descendantCount).toBe(61)
      expect(top!.timeRangeStart).toBe("2025-01-01T00:00:00.000Z")
      expect(top!.timeRangeEnd).toBe("2025-01-01T00:53:00.000Z")
      expect((yield* s.children(top!.id)).map((c) => c.id)).toEqual(depth1.map((d) => d.id))
      expect((yield* s.sourceTurns(top!.id)).length).toBe(54)
      const condenseRequests = (yield* (yield* ScriptedProvider.ScriptedProvider).requests).filter((r) =>
        r.task?.kind === "condense"
      )
      expect(condenseRequests.map((r) => r.task?.targetTokens)).toEqual(Array(8).fill(2000))
      expect(yield* StoreInvariants.violations({ freshTailTurns: 16, minFanIn: 4, maxFanIn: 8, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("leaves a remainder below minFanIn for a later run", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      yield* setup("rest", sizedTurns(11, 10))
      // 11 leaves with fan-in 4..5: two groups of 5, one leaf left parentless.
      const stats = yield* cm.compact("rest", { freshTailTurns: 0, leafChunkTokens: 10, minFanIn: 4, maxFanIn: 5 })
      expect(stats.condensedSummariesCreated).toBe(2)
      expect((yield* s.parentless("rest")).map((p) => p.depth)).toEqual([1, 1, 0])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("a second run with nothing new creates nothing and calls no model", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const sql = yield* store
      yield* setup("again", sizedTurns(60, 10))
      yield* cm.compact("again", { leafChunkTokens: 30 })
      const before = yield* sql.summaries("again")
      const calls = yield* requestCount
      const stats = yield* cm.compact("again", { leafChunkTokens: 30 })
      expect(stats).toEqual({
        leafSummariesCreated: 0,
        condensedSummariesCreated: 0,
        turnsCompacted: 0,
        tiersUsed: { normal: 0, aggressive: 0, fallback: 0 }
      })
      expect(yield* sql.summaries("again")).toEqual(before)
      expect(yield* requestCount).toBe(calls)
    }).pipe(Effect.provide(managerLayer())))

  it.effect("shouldCompact: strictly above threshold * budget, on the active context only", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const turns = sizedTurns(30, 10)
      yield* setup("trigger", turns)
      const active = turns.reduce((n, t) => n + tokensOf(t), 0)
      expect(active).toBe(300)
      expect(yield* cm.shouldCompact("trigger", 600, { threshold: 0.5 })).toBe(false) // at: 300 > 300 is false
      expect(yield* cm.shouldCompact("trigger", 601, { threshold: 0.5 })).toBe(false) // just below: limit 300.5
      expect(yield* cm.shouldCompact("trigger", 599, { threshold: 0.5 })).toBe(true) // just above: limit 299.5
      expect(yield* cm.shouldCompact("trigger", 400)).toBe(false) // default 0.75: limit 300
      expect(yield* cm.shouldCompact("trigger", 399)).toBe(true)
      const status = yield* cm.status("trigger", 399)
      expect(status).toEqual({ activeTokens: 300, limit: 0.75 * 399, evictableTurns: 14, condensable: false, shouldCompact: true })

      yield* cm.compact("trigger")
      // 300 tokens were stored, but the active context is now one leaf plus 16 turns.
      const context = yield* cm.context("trigger")
      expect(context.tokens).toBe(160 + context.summaries[0]!.tokenEstimate!)
      expect(yield* cm.shouldCompact("trigger", 399)).toBe(false)
      expect(yield* cm.shouldCompact("trigger", 100)).toBe(false) // over budget, but nothing left to compact
      expect((yield* cm.status("trigger", 100)).activeTokens).toBe(context.tokens)

      const invalid = yield* Effect.flip(cm.shouldCompact("trigger", 0))
      expect(invalid.message).toBe("invalid compaction options: budget must be an integer >= 1 (got 0)")
    }).pipe(Effect.provide(managerLayer())))

  it.effect("an agent loop compacts rarely, never twice in a row, and stops when the session stops growing", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const turns = sizedTurns(240, 50)
      const budget = 4000
      let compactions = 0
      let largest = 0
      for (const turn of turns) {
        yield* setup("loop", [turn])
        let status = yield* cm.status("loop", budget)
        if (status.shouldCompact) {
          compactions++
          yield* cm.compact("loop")
          status = yield* cm.status("loop", budget)
          expect(status.shouldCompact).toBe(false)
        }
        largest = Math.max(largest, status.activeTokens)
      }
      // 12,000 tokens in, 3,000 at most active: a compaction about every 45 turns, not every turn.
      expect(compactions).toBeGreaterThanOrEqual(3)
      expect(compactions).toBeLessThanOrEqual(6)
      expect((yield* requestCount) / turns.length).toBeLessThan(0.05)
      expect(largest).toBeLessThanOrEqual(0.75 * budget)
      for (let i = 0; i < 3; i++) expect(yield* cm.shouldCompact("loop", budget)).toBe(false)
      expect(yield* StoreInvariants.violations({ freshTailTurns: 16, minFanIn: 4, maxFanIn: 8, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer())), 60_000)

  it.effect("keeps a tool result with its call at the fresh-tail boundary", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      const turns = [
        ...Fixtures.conversation(6),
        Fixtures.turn("assistant", "call ls", { id: "call" }),
        Fixtures.turn("tool", "a.ts b.ts", { id: "r1" }),
        Fixtures.turn("user", "[tool_result] c.ts", { id: "r2", metadata: { type: "tool_result" } }),
        Fixtures.turn("assistant", "done", { id: "end" })
      ]
      yield* setup("tools", turns)
      // A tail of 2 would start at r2 (a tool result): the boundary moves before the call.
      const stats = yield* cm.compact("tools", { freshTailTurns: 2 })
      expect(stats.turnsCompacted).toBe(6)
      expect((yield* s.uncoveredTurns("tools")).map((t) => t.id)).toEqual(["call", "r1", "r2", "end"])
      expect(yield* StoreInvariants.violations({ freshTailTurns: 2 })).toEqual([])
      // A tail of 1 starts at "end": the call and its results may be summarized together.
      yield* cm.compact("tools", { freshTailTurns: 1 })
      expect((yield* s.uncoveredTurns("tools")).map((t) => t.id)).toEqual(["end"])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("a leaf never separates a tool result from its call", () =>
    Effect.gen(function*() {
      const turns = sizedTurns(6, 10)
      turns[2] = ConversationTurn.make({ ...turns[2]!, role: "tool" }) // same size as "user"
      yield* setup("chunk-tools", turns)
      yield* (yield* manager).compact("chunk-tools", { freshTailTurns: 0, leafChunkTokens: 20, minFanIn: 100, maxFanIn: 100 })
      const leaves = yield* (yield* store).summaries("chunk-tools", { depth: 0 })
      expect(leaves.map((l) => l.sourceTurnIds)).toEqual([["t0"], ["t1", "t2"], ["t3", "t4"], ["t5"]])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("one compaction per session at a time: a concurrent call waits, then finds nothing", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      yield* setup("race", sizedTurns(40, 10))
      const fiber = yield* Effect.fork(
        Effect.all([cm.compact("race", { leafChunkTokens: 30 }), cm.compact("race", { leafChunkTokens: 30 })], {
          concurrency: 2
        })
      )
      // 24 evicted turns, 3 per chunk: 8 leaves and 1 condensation, 10 seconds each.
      for (let i = 0; i < 12; i++) yield* TestClock.adjust("10 seconds")
      const [a, b] = yield* Fiber.join(fiber)
      expect([a.leafSummariesCreated, b.leafSummariesCreated].sort()).toEqual([0, 8])
      expect(a.turnsCompacted + b.turnsCompacted).toBe(24)
      expect((yield* leafRequests).length).toBe(8)
      expect(yield* StoreInvariants.violations({ freshTailTurns: 16, minFanIn: 4, maxFanIn: 8, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.respond((r) => ScriptedProvider.delayed("10 seconds", `summary of ${(r.task === undefined ? 0 : SummaryTask.material(r.task).length)}`))))))

  it.effect("different sessions compact in parallel", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      yield* setup("p1", sizedTurns(20, 10))
      yield* setup("p2", sizedTurns(20, 10))
      const fiber = yield* Effect.fork(Effect.all([cm.compact("p1"), cm.compact("p2")], { concurrency: 2 }))
      yield* TestClock.adjust("10 seconds")
      // One leaf each, no condensation: both are done after a single delay.
      yield* waitUntil(Effect.map(Fiber.poll(fiber), Option.isSome))
      const stats = yield* Fiber.join(fiber)
      expect(stats.map((s) => s.leafSummariesCreated)).toEqual([1, 1])
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.respond(() => ScriptedProvider.delayed("10 seconds", "short"))))))

  it.effect("condenses the groups of one depth concurrently, at most `concurrency` at once", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      yield* setup("groups", sizedTurns(24, 10))
      const fiber = yield* Effect.fork(
        cm.compact("groups", { freshTailTurns: 0, leafChunkTokens: 10, minFanIn: 2, maxFanIn: 2, concurrency: 4 })
      )
      yield* waitUntil(Effect.map(requestCount, (n) => n >= 24 + 4))
      expect(yield* requestCount).toBe(28) // 24 leaves, then 4 of the 12 depth-0 groups
      yield* TestClock.adjust("10 seconds")
      yield* waitUntil(Effect.map(requestCount, (n) => n >= 32))
      expect((yield* s.summaries("groups", { depth: 1 })).length).toBe(4)
      for (let i = 0; i < 10; i++) yield* TestClock.adjust("10 seconds")
      const stats = yield* Fiber.join(fiber)
      expect(stats.condensedSummariesCreated).toBe(12 + 6 + 3 + 1)
      expect(yield* StoreInvariants.violations({ minFanIn: 2, maxFanIn: 2, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.respond((r) =>
      r.task?.kind === "condense" ? ScriptedProvider.delayed("10 seconds", "merged") : shortReply(r)
    )))))

  it("every compaction option says what it is (a description annotation): one field is one option", () => {
    const options = SchemaAST.getPropertySignatures(Schema.typeSchema(CompactionOptions.Options).ast)
    assert.strictEqual(options.length, 13)
    assert.deepStrictEqual(options.filter((o) => Option.isNone(SchemaAST.getDescriptionAnnotation(o))).map((o) => o.name), [])
  })

  it.effect("reports progress to the reporter in context: chunks done and tiers so far; none by default", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const events: Array<CompactionProgress.ProgressEvent> = []
      yield* setup("progress", sizedTurns(24, 10))
      yield* setup("silent", sizedTurns(24, 10))
      // Without a reporter the same compaction runs and reports to no one.
      assert.strictEqual((yield* cm.compact("silent", { freshTailTurns: 4, leafChunkTokens: 50 })).leafSummariesCreated, 4)
      yield* cm.compact("progress", { freshTailTurns: 4, leafChunkTokens: 50 }).pipe(
        CompactionProgress.reporting((event) => Effect.sync(() => events.push(event)))
      )
      expect(events.map((e) => e._tag)).toEqual([
        "LeafPassStarted",
        "LeafWritten",
        "LeafWritten",
        "LeafWritten",
        "LeafWritten",
        "CondenseStarted",
        "CondensedWritten"
      ])
      expect(events[0]).toMatchObject({ chunks: 4, turns: 20 })
      expect(events[4]).toMatchObject({ done: 4, total: 4, tiers: { normal: 4, aggressive: 0, fallback: 0 } })
      expect(events[6]).toMatchObject({ depth: 0, done: 1, total: 1, tiers: { normal: 5, aggressive: 0, fallback: 0 } })
      assert.deepStrictEqual([...new Set(events.map((e) => e.sessionId))], ["progress"])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("traces compact, each leaf and each condensation in spans", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.Span> = []
      const base = yield* Effect.tracer
      const recording = Tracer.make({
        span: (...args) => {
          const span = base.span(...args)
          spans.push(span)
          return span
        },
        context: (f, fiber) => base.context(f, fiber)
      })
      yield* setup("spans", sizedTurns(24, 10))
      yield* (yield* manager).compact("spans", { freshTailTurns: 4, leafChunkTokens: 50 }).pipe(Effect.withTracer(recording))
      const named = (name: string) => spans.filter((s) => s.name === name)
      expect(named("CompactionManager.leaf").length).toBe(4)
      expect(named("CompactionManager.condense").length).toBe(1)
      const [compact] = named("CompactionManager.compact")
      expect(compact!.attributes.get("precis.session_id")).toBe("spans")
      expect(compact!.attributes.get("precis.leaves")).toBe(4)
      expect(compact!.attributes.get("precis.condensed")).toBe(1)
      expect(named("CompactionManager.condense")[0]!.attributes.get("precis.children")).toBe(4)
      // The Summarizer's spans nest under the leaf spans.
      const leafIds = new Set(named("CompactionManager.leaf").map((s) => s.spanId))
      const summarize = named("Summarizer.summarizeTurns")
      expect(summarize.length).toBe(4)
      expect(summarize.every((s) => Option.exists(s.parent, (p) => leafIds.has(p.spanId)))).toBe(true)
    }).pipe(Effect.provide(managerLayer())))

  it.effect("records every tier the summarizer fell back to", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      yield* setup("tiers", sizedTurns(20, 10))
      const stats = yield* cm.compact("tiers", { freshTailTurns: 8, leafChunkTokens: 40 })
      expect(stats.tiersUsed).toEqual({ normal: 0, aggressive: 0, fallback: 3 })
      expect((yield* s.summaries("tiers", { depth: 0 })).map((l) => l.tier)).toEqual(["fallback", "fallback", "fallback"])
      expect(yield* StoreInvariants.violations()).toEqual([])
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.alwaysFail()))))

  it.effect("interrupted mid-leaf-pass: finished leaves stay, a rerun completes the work", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      yield* setup("cut", sizedTurns(40, 10))
      const fiber = yield* Effect.fork(cm.compact("cut", { leafChunkTokens: 30 }))
      yield* waitUntil(Effect.map(requestCount, (n) => n >= 3))
      yield* Fiber.interrupt(fiber)
      expect((yield* s.summaries("cut")).length).toBe(2)
      expect(yield* StoreInvariants.violations({ freshTailTurns: 16 })).toEqual([])

      const stats = yield* cm.compact("cut", { leafChunkTokens: 30 })
      expect(stats.leafSummariesCreated).toBe(6)
      expect(stats.turnsCompacted).toBe(18)
      expect((yield* s.uncoveredTurns("cut")).length).toBe(16)
      expect(yield* StoreInvariants.violations({ freshTailTurns: 16, minFanIn: 4, maxFanIn: 8, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer(hangOnCall(3)))))

  it.effect("interrupted mid-condensation: finished parents stay linked, the rest is redone", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      const s = yield* store
      const options = { freshTailTurns: 0, leafChunkTokens: 10, minFanIn: 2, maxFanIn: 2, concurrency: 4 }
      yield* setup("cut2", sizedTurns(12, 10))
      // Call 14 is the second depth-0 group (after 12 leaves): it hangs while the other five finish.
      const fiber = yield* Effect.fork(cm.compact("cut2", options))
      yield* waitUntil(Effect.map(s.summaries("cut2", { depth: 1 }), (written) => written.length >= 5))
      expect(yield* requestCount).toBe(18)
      yield* Fiber.interrupt(fiber)
      expect((yield* s.summaries("cut2", { depth: 1 })).length).toBe(5)
      expect((yield* s.parentless("cut2", { depth: 0 })).length).toBe(2)
      expect(yield* StoreInvariants.violations({ minFanIn: 2, maxFanIn: 2 })).toEqual([])

      const stats = yield* cm.compact("cut2", options)
      expect(stats.leafSummariesCreated).toBe(0)
      expect(stats.condensedSummariesCreated).toBe(1 + 3 + 1)
      expect(yield* StoreInvariants.violations({ minFanIn: 2, maxFanIn: 2, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer(hangOnCall(14)))))

  it.effect("the active context is the parentless summaries and the uncovered turns, counted", () =>
    Effect.gen(function*() {
      const cm = yield* manager
      yield* setup("ctx", [
        ...Fixtures.conversation(4),
        Fixtures.turn("tool", "exit 0", { id: "r", timestamp: "2025-01-01T00:04:00.000Z" })
      ])
      yield* cm.compact("ctx", { freshTailTurns: 2 })
      const context = yield* cm.context("ctx")
      expect(context.summaries.length).toBe(1)
      expect(context.turns.map((t) => t.id)).toEqual(["t3", "r"])
      expect(context.tokens).toBe(
        context.summaries[0]!.tokenEstimate! + context.turns.reduce((n, t) => n + tokensOf(t), 0)
      )
    }).pipe(Effect.provide(managerLayer())))

  it.effect("ActiveContext.load needs only a store, and is what the manager's context returns", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-active-"))
      const filename = path.join(dir, "active.db")
      const fromManager = yield* Effect.gen(function*() {
        yield* setup("active", sizedTurns(30, 10))
        yield* (yield* manager).compact("active", { leafChunkTokens: 50, freshTailTurns: 4 })
        return yield* (yield* manager).context("active")
      }).pipe(Effect.provide(managerLayer(undefined, undefined, filename)))
      // No Summarizer and no provider: the store alone.
      const loaded = yield* ActiveContext.load("active").pipe(Effect.provide(storeLayer(filename)))
      fs.rmSync(dir, { recursive: true, force: true })
      expect(fromManager.summaries.length).toBeGreaterThan(0)
      expect(fromManager.turns.map((t) => t.id)).toEqual(["t26", "t27", "t28", "t29"])
      expect(loaded).toEqual(fromManager)
    }))

  it.effect("a file-backed DAG survives reopening", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-dag-"))
      const filename = path.join(dir, "dag.db")
      const first = yield* Effect.gen(function*() {
        yield* setup("file", sizedTurns(40, 10))
        yield* (yield* manager).compact("file", { leafChunkTokens: 10 })
        return yield* (yield* manager).context("file")
      }).pipe(Effect.provide(managerLayer(undefined, undefined, filename)))
      const [reopened, problems, again] = yield* Effect.gen(function*() {
        const cm = yield* manager
        return [yield* cm.context("file"), yield* StoreInvariants.violations({ freshTailTurns: 16 }), yield* cm.compact("file", { leafChunkTokens: 10 })] as const
      }).pipe(Effect.provide(managerLayer(undefined, undefined, filename)))
      fs.rmSync(dir, { recursive: true, force: true })
      expect(reopened).toEqual(first)
      expect(problems).toEqual([])
      expect(again.leafSummariesCreated + again.condensedSummariesCreated).toBe(0)
    }))
})

describe("options", () => {
  it("validates with readable reasons", () => {
    const reason = (options: CompactionOptions.Options) =>
      Either.match(CompactionOptions.resolveOptions(options), { onLeft: (e) => e.message, onRight: () => "ok" })
    expect(reason({})).toBe("ok")
    expect(reason({ minFanIn: 1 })).toBe("invalid compaction options: minFanIn must be an integer >= 2 (got 1)")
    expect(reason({ minFanIn: 9 })).toBe(
      "invalid compaction options: maxFanIn must be an integer >= minFanIn (got 8 < 9)"
    )
    expect(reason({ freshTailTurns: -1, threshold: 0 })).toBe(
      "invalid compaction options: freshTailTurns must be an integer >= 0 (got -1); " +
        "threshold must be a number in (0, 1] (got 0)"
    )
    expect(reason({ leafChunkTokens: 0.5 })).toContain("leafChunkTokens must be an integer >= 1")
    expect(Either.getOrThrow(CompactionOptions.resolveOptions({}))).toMatchObject(
      CompactionOptions.defaults
    )
  })

  it("every option refuses what is out of its bounds, naming it", () => {
    const cases: ReadonlyArray<readonly [CompactionOptions.Options, string]> = [
      [{ freshTailTurns: 1.5 }, "freshTailTurns must be an integer >= 0 (got 1.5)"],
      [{ freshTailTokens: -1 }, "freshTailTokens must be an integer >= 0 (got -1)"],
      [{ budget: 0 }, "budget must be an integer >= 1 (got 0)"],
      [{ budget: Number.NaN }, "budget must be an integer >= 1 (got NaN)"],
      [{ lowWater: 0 }, "lowWater must be a number in (0, 1] (got 0)"],
      [{ leafChunkTokens: Number.POSITIVE_INFINITY }, "leafChunkTokens must be an integer >= 1 (got Infinity)"],
      [{ maxTurns: 0 }, "maxTurns must be an integer >= 1 (got 0)"],
      [{ minFanIn: 1 }, "minFanIn must be an integer >= 2 (got 1)"],
      [{ maxFanIn: 1 }, "maxFanIn must be an integer >= 2 (got 1)"],
      [{ threshold: 5 }, "threshold must be a number in (0, 1] (got 5)"],
      [{ concurrency: 0 }, "concurrency must be an integer >= 1 (got 0)"],
      [{ leafTargetTokens: -3 }, "leafTargetTokens must be an integer >= 1 (got -3)"],
      [{ condenseTargetTokens: 0 }, "condenseTargetTokens must be an integer >= 1 (got 0)"],
      [{ alsoLine: "yes" as unknown as boolean }, `alsoLine must be true or false (got "yes")`]
    ]
    for (const [options, message] of cases) {
      const result = CompactionOptions.resolveOptions(options)
      if (Either.isRight(result)) return assert.fail(`accepted ${JSON.stringify(options)}`)
      expect(result.left.message).toBe(`invalid compaction options: ${message}`)
    }
  })

  it("a budget given bounds the fresh tail at a quarter of it; the status budget does not", () => {
    const withBudget = Either.getOrThrow(CompactionOptions.resolveOptions({ budget: 32_000 }))
    assert.strictEqual(withBudget.freshTailTokens, 8_000)
    assert.strictEqual(Either.getOrThrow(CompactionOptions.resolveOptions({}, 32_000)).freshTailTokens, undefined)
    assert.strictEqual(Either.getOrThrow(CompactionOptions.resolveOptions({ budget: 32_000, freshTailTokens: 5 })).freshTailTokens, 5)
  })

  it("fromBudget: a sixteenth of the budget per leaf and a turn per 2000 tokens of tail, within their bounds, valid", () => {
    assert.deepStrictEqual(CompactionOptions.fromBudget(32_000), { leafChunkTokens: 2_000, freshTailTurns: 16 })
    assert.deepStrictEqual(CompactionOptions.fromBudget(16_000), { leafChunkTokens: 1_000, freshTailTurns: 8 })
    assert.deepStrictEqual(CompactionOptions.fromBudget(20_000), { leafChunkTokens: 1_250, freshTailTurns: 10 })
    assert.deepStrictEqual(CompactionOptions.fromBudget(8_000), { leafChunkTokens: 500, freshTailTurns: 4 })
    assert.deepStrictEqual(CompactionOptions.fromBudget(1), { leafChunkTokens: 500, freshTailTurns: 4 })
    assert.deepStrictEqual(CompactionOptions.fromBudget(1_000_000), {
      leafChunkTokens: CompactionOptions.defaults.leafChunkTokens,
      freshTailTurns: CompactionOptions.defaults.freshTailTurns
    })
    for (const budget of [1, 999, 16_000, 123_457, 10 ** 9]) {
      expect(Either.isRight(CompactionOptions.resolveOptions(CompactionOptions.fromBudget(budget)))).toBe(true)
    }
  })

  it("reports every problem, each with its option, and names them as asked", () => {
    const error = Either.getLeft(
      CompactionOptions.resolveOptions({ freshTailTurns: 1.5, concurrency: 0, minFanIn: 5, maxFanIn: 3, threshold: 2 }, -1)
    ).pipe(Option.getOrThrow)
    expect(error.problems).toEqual([
      { option: "freshTailTurns", message: "must be an integer >= 0 (got 1.5)" },
      { option: "threshold", message: "must be a number in (0, 1] (got 2)" },
      { option: "concurrency", message: "must be an integer >= 1 (got 0)" },
      { option: "budget", message: "must be an integer >= 1 (got -1)" }
    ])
    // A rule across options is checked once each option is within its own bounds.
    const inverted = Either.getLeft(CompactionOptions.resolveOptions({ minFanIn: 5, maxFanIn: 3 })).pipe(Option.getOrThrow)
    expect(inverted.problems).toEqual([
      { option: "maxFanIn", message: "must be an integer >= minFanIn (got 3 < 5)", other: "minFanIn" }
    ])
    const flag = (option: string) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
    expect([...error.problems, ...inverted.problems].map((problem) => OptionError.describeProblem(problem, flag))).toEqual([
      "--fresh-tail-turns must be an integer >= 0 (got 1.5)",
      "--threshold must be a number in (0, 1] (got 2)",
      "--concurrency must be an integer >= 1 (got 0)",
      "--budget must be an integer >= 1 (got -1)",
      "--max-fan-in must be an integer >= --min-fan-in (got 3 < 5)"
    ])
  })

  it.effect("status reports a bad budget together with bad options", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* manager).status("x", 0, { minFanIn: 1 }))
      assert(error._tag === "InvalidOptionsError")
      expect(error.problems.map((problem) => problem.option)).toEqual(["minFanIn", "budget"])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("compact refuses invalid options before touching the store", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* manager).compact("x", { maxFanIn: 2 }))
      expect(error._tag).toBe("InvalidOptionsError")
      expect(yield* requestCount).toBe(0)
    }).pipe(Effect.provide(managerLayer())))

  it.effect("layerConfig reads PRECIS_COMPACTION_* and rejects nonsense", () =>
    Effect.gen(function*() {
      const withEnv = (env: Record<string, string>) =>
        Effect.flatMap(manager, (cm) =>
          Effect.flatMap(setup("cfg", sizedTurns(10, 10)), () => cm.compact("cfg"))).pipe(
            Effect.provide(
              CompactionManager.layerConfig().pipe(
                Layer.provideMerge(depsLayer()),
                Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
              )
            )
          )
      const stats = yield* withEnv({ PRECIS_COMPACTION_FRESH_TAIL_TURNS: "4", PRECIS_COMPACTION_LEAF_CHUNK_TOKENS: "20" })
      expect(stats.turnsCompacted).toBe(6)
      expect(stats.leafSummariesCreated).toBe(3)
      const bad = yield* Effect.exit(withEnv({ PRECIS_COMPACTION_MIN_FAN_IN: "9" }))
      assert(Exit.isFailure(bad))
      expect(String(bad.cause)).toContain(
        `Invalid data at PRECIS_COMPACTION_MAX_FAN_IN: "must be an integer >= PRECIS_COMPACTION_MIN_FAN_IN (got 8 < 9)"`
      )
    }))

  it.effect("a layer with options that make no sense fails when it is built, before any call", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(managerLayer(undefined, { minFanIn: 1, threshold: 5 })).pipe(Effect.scoped))
      if (Exit.isSuccess(exit)) return assert.fail("built")
      assert.isFalse(Cause.isDie(exit.cause))
      const error = Option.getOrThrow(Cause.failureOption(exit.cause))
      assert(error._tag === "InvalidOptionsError")
      expect(error.problems.map((problem) => problem.option)).toEqual(["minFanIn", "threshold"])
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(Layer.build(managerLayer(undefined, { minFanIn: 3 })).pipe(Effect.scoped))))
    }))

  const every = {
    PRECIS_COMPACTION_FRESH_TAIL_TURNS: "3",
    PRECIS_COMPACTION_FRESH_TAIL_TOKENS: "900",
    PRECIS_COMPACTION_BUDGET: "8000",
    PRECIS_COMPACTION_LOW_WATER: "0.4",
    PRECIS_COMPACTION_LEAF_CHUNK_TOKENS: "700",
    PRECIS_COMPACTION_MAX_TURNS: "50",
    PRECIS_COMPACTION_MIN_FAN_IN: "3",
    PRECIS_COMPACTION_MAX_FAN_IN: "5",
    PRECIS_COMPACTION_THRESHOLD: "0.6",
    PRECIS_COMPACTION_CONCURRENCY: "2",
    PRECIS_COMPACTION_LEAF_TARGET_TOKENS: "300",
    PRECIS_COMPACTION_CONDENSE_TARGET_TOKENS: "400",
    PRECIS_COMPACTION_ALSO_LINE: "false"
  }
  const readConfig = (env: Record<string, string>) =>
    Effect.either(
      Effect.withConfigProvider(CompactionOptions.config, ConfigProvider.fromMap(new Map(Object.entries(env))))
    )

  it.effect("config honours all 13 PRECIS_COMPACTION_* variables, and only those set", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* readConfig(every), Either.right({
        freshTailTurns: 3,
        freshTailTokens: 900,
        budget: 8000,
        lowWater: 0.4,
        leafChunkTokens: 700,
        maxTurns: 50,
        minFanIn: 3,
        maxFanIn: 5,
        threshold: 0.6,
        concurrency: 2,
        leafTargetTokens: 300,
        condenseTargetTokens: 400,
        alsoLine: false
      }))
      assert.deepStrictEqual(yield* readConfig({}), Either.right({}))
    }))

  it.effect("config refuses each variable out of its bounds, naming it", () =>
    Effect.gen(function*() {
      const bad: Record<keyof typeof every, string> = {
        PRECIS_COMPACTION_FRESH_TAIL_TURNS: "-1",
        PRECIS_COMPACTION_FRESH_TAIL_TOKENS: "1.5",
        PRECIS_COMPACTION_BUDGET: "0",
        PRECIS_COMPACTION_LOW_WATER: "0",
        PRECIS_COMPACTION_LEAF_CHUNK_TOKENS: "many",
        PRECIS_COMPACTION_MAX_TURNS: "0",
        PRECIS_COMPACTION_MIN_FAN_IN: "1",
        PRECIS_COMPACTION_MAX_FAN_IN: "1",
        PRECIS_COMPACTION_THRESHOLD: "5",
        PRECIS_COMPACTION_CONCURRENCY: "0",
        PRECIS_COMPACTION_LEAF_TARGET_TOKENS: "-3",
        PRECIS_COMPACTION_CONDENSE_TARGET_TOKENS: "NaN",
        PRECIS_COMPACTION_ALSO_LINE: "perhaps"
      }
      for (const [name, value] of Object.entries(bad)) {
        const read = yield* readConfig({ [name]: value })
        if (Either.isRight(read)) return assert.fail(`${name}=${value} accepted`)
        expect(String(read.left)).toMatch(new RegExp(`^\\(Invalid data at ${name}: "must be `))
      }
    }))
})

describe("a budget bounds the fresh tail in tokens and compaction reaches the low-water mark", () => {
  const turns = sizedTurns(40, 500) // 20,000 tokens, 500 a turn
  const activeAfter = (sessionId: string, options: CompactionOptions.Options) =>
    Effect.gen(function*() {
      yield* setup(sessionId, turns)
      yield* (yield* manager).compact(sessionId, { leafChunkTokens: 2000, ...options })
      return yield* (yield* manager).context(sessionId)
    })

  it.effect("without a budget the tail is 16 turns, whatever their size", () =>
    Effect.gen(function*() {
      const context = yield* activeAfter("none", {})
      expect(context.turns).toHaveLength(16)
      expect(context.tokens).toBeGreaterThan(8_000)
    }).pipe(Effect.provide(managerLayer())))

  it.effect("with a budget the tail holds at most a quarter of it (freshTailTokens)", () =>
    Effect.gen(function*() {
      const context = yield* activeAfter("quarter", { budget: 8_000 })
      // FreshTail.tokensFor(8000) = 2000 tokens: 4 turns of 500
      expect(context.turns).toHaveLength(4)
      expect(context.tokens).toBeLessThanOrEqual(0.5 * 8_000)
      expect(yield* StoreInvariants.violations({ freshTailTurns: 0, minFanIn: 4, maxFanIn: 8, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("a pass left above lowWater x budget runs a second leaf pass down to it", () =>
    Effect.gen(function*() {
      // A tail of 6000 tokens leaves the context above 0.5 x 8000 after the first pass...
      const second = yield* activeAfter("low", { budget: 8_000, freshTailTokens: 6_000 })
      expect(second.tokens).toBeLessThanOrEqual(0.5 * 8_000)
      expect(second.turns.length).toBeLessThanOrEqual(7)
      // ...which a low-water mark of 1 (no second pass) keeps.
      const first = yield* activeAfter("high", { budget: 8_000, freshTailTokens: 6_000, lowWater: 1 })
      expect(first.turns).toHaveLength(12)
      expect(first.tokens).toBeGreaterThan(0.5 * 8_000)
    }).pipe(Effect.provide(managerLayer())))
})

/** A provider that fails with `error` while `state.failing`, and replies shortly otherwise. */
const switchable = (error: ProviderError.ProviderError) => {
  const state = { failing: true }
  return {
    state,
    layer: ScriptedProvider.respond((request: Provider.ChatRequest) =>
      state.failing ? ScriptedProvider.fail(error) : shortReply(request)
    )
  }
}

describe("a provider that fails", () => {
  const unauthorized = new ProviderError.UnauthorizedError({ provider: "scripted", status: 401 })
  const unavailable = new ProviderError.ServerError({ provider: "scripted", status: 503 })

  it.effect("permanently (refused credentials): compaction stops at once and stores no fallback", () => {
    const provider = switchable(unauthorized)
    return Effect.gen(function*() {
      yield* setup("p", sizedTurns(40, 50))
      const exit = yield* Effect.exit((yield* manager).compact("p", { leafChunkTokens: 200 }))
      assert(Exit.isFailure(exit))
      const error = Option.getOrThrow(Cause.failureOption(exit.cause))
      assert(error._tag === "ProviderUnavailableError")
      assert.isTrue(CompactionError.isCompactionError(error))
      assert.isFalse(CompactionError.isCompactionError(unauthorized))
      expect(error.reason).toBe("UnauthorizedError")
      expect(error.written).toBe(0)
      expect(error.message).toContain("session p stopped")
      expect(error.message).toContain("check the API key")
      expect(yield* (yield* store).summaries("p")).toEqual([])
      // Two calls (the normal and the aggressive tier of the first chunk), not one per chunk.
      expect(yield* requestCount).toBe(2)
      // Once the configuration is fixed, a rerun does the whole work.
      provider.state.failing = false
      const stats = yield* (yield* manager).compact("p", { leafChunkTokens: 200 })
      expect(stats.leafSummariesCreated).toBe(6)
      expect(stats.tiersUsed.fallback).toBe(0)
      expect(yield* StoreInvariants.violations({ freshTailTurns: 16, minFanIn: 4, maxFanIn: 8, condensedFully: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer(provider.layer)))
  })

  it.effect("transiently (503): the fallbacks are stored, and redoFallbacks rewrites them in place later", () => {
    const provider = switchable(unavailable)
    return Effect.gen(function*() {
      yield* setup("r", sizedTurns(40, 50))
      const first = yield* (yield* manager).compact("r", { leafChunkTokens: 200 })
      expect(first.tiersUsed).toEqual({ normal: 0, aggressive: 0, fallback: 7 })
      const before = yield* (yield* store).summaries("r")
      expect(before.every((s) => s.tier === "fallback")).toBe(true)

      // Still failing: nothing is rewritten.
      const again = yield* (yield* manager).redoFallbacks("r")
      expect(again).toEqual({ redone: 0, stillFallback: 7, tiersUsed: { normal: 0, aggressive: 0, fallback: 7 } })

      provider.state.failing = false
      const redo = yield* (yield* manager).redoFallbacks("r")
      expect(redo).toEqual({ redone: 7, stillFallback: 0, tiersUsed: { normal: 7, aggressive: 0, fallback: 0 } })
      const after = yield* (yield* store).summaries("r")
      // Same nodes, same links and ranges: only text, tier and estimate changed.
      const shape = (s: (typeof after)[number]) => ({
        id: s.id,
        depth: s.depth,
        parentId: s.parentId,
        sourceTurnIds: s.sourceTurnIds,
        sourceSummaryIds: s.sourceSummaryIds,
        timeRangeStart: s.timeRangeStart,
        timeRangeEnd: s.timeRangeEnd
      })
      expect(after.map(shape)).toEqual(before.map(shape))
      expect(after.every((s) => s.tier === "normal")).toBe(true)
      expect(after.every((s) => !s.content.includes("[TRUNCATED"))).toBe(true)
      // Each leaf was redone after the one before it: its prior summary is that leaf's new text.
      const redoLeafRequests = (yield* Effect.flatMap(ScriptedProvider.ScriptedProvider, (r) => r.requests))
        .filter((r) => r.task?.kind === "leaf").slice(-6)
      expect(redoLeafRequests.slice(1).every((r) => (r.task === undefined ? undefined : SummaryTask.priorSummary(r.task))?.startsWith("leaf of ") === true)).toBe(true)
      // The condensed node was redone from its redone children.
      const condensedRequest = (yield* Effect.flatMap(ScriptedProvider.ScriptedProvider, (r) => r.requests))
        .filter((r) => r.task?.kind === "condense").at(-1)!
      expect(SummaryTask.material(condensedRequest.task!)).not.toContain("[TRUNCATED")
      expect(yield* StoreInvariants.violations({ freshTailTurns: 16, minFanIn: 4, maxFanIn: 8, condensedFully: true })).toEqual([])
      // Nothing left to redo.
      expect((yield* (yield* manager).redoFallbacks("r")).redone).toBe(0)
    }).pipe(Effect.provide(managerLayer(provider.layer)))
  })

  it.effect("redoFallbacks stops at a permanent failure too", () => {
    const provider = switchable(unavailable)
    return Effect.gen(function*() {
      yield* setup("q", sizedTurns(30, 50))
      yield* (yield* manager).compact("q", { leafChunkTokens: 200 })
      const failing = switchable(unauthorized)
      const exit = yield* Effect.exit(
        Effect.flatMap(manager, (m) => m.redoFallbacks("q")).pipe(
          Effect.provide(CompactionManager.layer().pipe(
            Layer.provide(Summarizer.layer().pipe(Layer.provide(failing.layer)))
          ))
        )
      )
      assert(Exit.isFailure(exit))
      expect(Option.getOrThrow(Cause.failureOption(exit.cause))._tag).toBe("ProviderUnavailableError")
      expect((yield* (yield* store).summaries("q")).every((s) => s.tier === "fallback")).toBe(true)
    }).pipe(Effect.provide(managerLayer(provider.layer)))
  })
})

/** A provider that hangs on its `n`th call (1-based) and replies shortly otherwise. */
function hangOnCall(n: number) {
  let calls = 0
  return ScriptedProvider.respond((request: Provider.ChatRequest) => {
    calls++
    return calls === n ? ScriptedProvider.hang : shortReply(request)
  })
}

describe("CompactionManager maxTurns", () => {
  it.effect("summarizes at most maxTurns of the oldest evictable turns per run, a rerun goes on", () =>
    Effect.gen(function*() {
      yield* setup("m", sizedTurns(40, 50))
      const first = yield* (yield* manager).compact("m", { leafChunkTokens: 200, maxTurns: 10 })
      expect(first.turnsCompacted).toBe(10)
      expect((yield* (yield* store).uncoveredTurns("m"))[0]!.id).toBe("t10")
      const second = yield* (yield* manager).compact("m", { leafChunkTokens: 200, maxTurns: 10, budget: 1_000 })
      // With a budget the low-water pass runs too, within what is left of the 10 turns.
      expect(second.turnsCompacted).toBe(10)
      expect(yield* StoreInvariants.violations()).toEqual([])
      const bad = yield* Effect.either((yield* manager).compact("m", { maxTurns: 0 }))
      assert(Either.isLeft(bad))
      expect(bad.left.message).toContain("maxTurns must be an integer >= 1 (got 0)")
    }).pipe(Effect.provide(managerLayer())))
})

describe("the Also line: a summary's dropped keys appended within its target", () => {
  const start = Date.parse("2025-01-01T00:00:00Z")
  const work = [
    "Fix the PDF route for spotter-4te.",
    "Reading the route.\nsrc/routes/invoices.ts",
    "Tests ran.\n3 failed: RangeError in src/services/pdf.ts",
    "Fixed it; closed #12."
  ].map((content, i) =>
    ConversationTurn.make({
      role: ["user", "assistant", "tool", "assistant"][i]!,
      content,
      id: `w${i}`,
      timestamp: new Date(start + i * 60_000).toISOString()
    })
  )
  // A model that forgets every line naming a path (the failing line among them).
  const forgetful = ScriptedProvider.dropping((line) => line.includes("/"))
  const estimate = TokenEstimator.approximate.estimate
  const leafOf = (options: CompactionOptions.Options = {}) =>
    Effect.gen(function*() {
      yield* setup("a", work)
      yield* (yield* manager).compact("a", { freshTailTurns: 0, ...options })
      const [leaf] = (yield* (yield* store).summaries("a")).filter((s) => s.depth === 0)
      return leaf!
    })
  // What the forgetful model replies for the whole session as one leaf.
  const reply = Transcript.formatTurns(work).split("\n").filter((line) => !line.includes("/")).join("\n")

  it.effect("lists the most important dropped keys, and the stored estimate counts the line", () =>
    Effect.gen(function*() {
      const leaf = yield* leafOf()
      // A count is no key of an Also line: what it counted is gone with its lines.
      expect(leaf.content).toBe(`${reply}\nAlso: RangeError; src/routes/invoices.ts; src/services/pdf.ts`)
      // The keys are stored with it, as data.
      expect(leaf.alsoKeys).toEqual(["RangeError", "src/routes/invoices.ts", "src/services/pdf.ts"])
      expect(leaf.tokenEstimate).toBe(estimate(leaf.content))
      expect(leaf.tokenEstimate).toBeLessThanOrEqual(CompactionOptions.defaults.leafTargetTokens)
    }).pipe(Effect.provide(managerLayer(forgetful))))

  it.effect("never past the target: the keys that fit, none when the summary alone reaches it", () =>
    Effect.gen(function*() {
      const twoKeys = `${reply}\nAlso: RangeError; src/routes/invoices.ts`
      const fits = yield* leafOf({ leafTargetTokens: estimate(twoKeys) })
      expect(fits.content).toBe(twoKeys)
    }).pipe(Effect.provide(managerLayer(forgetful))))

  it.effect("no line when the summary reaches its target alone", () =>
    Effect.gen(function*() {
      const leaf = yield* leafOf({ leafTargetTokens: estimate(reply) })
      expect(leaf.content).toBe(reply)
    }).pipe(Effect.provide(managerLayer(forgetful))))

  it.effect("no line when turned off", () =>
    Effect.gen(function*() {
      const leaf = yield* leafOf({ alsoLine: false })
      expect(leaf.content).toBe(reply)
      expect(leaf.tokenEstimate).toBe(estimate(reply))
    }).pipe(Effect.provide(managerLayer(forgetful))))

  it.effect("no line when nothing was dropped", () =>
    Effect.gen(function*() {
      const leaf = yield* leafOf()
      expect(leaf.content).not.toContain("Also:")
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.dropping((line) => line.startsWith("  Reading"))))))

  it.effect("PRECIS_COMPACTION_ALSO_LINE=false turns it off through layerConfig", () =>
    Effect.gen(function*() {
      const leaf = yield* leafOf()
      expect(leaf.content).toBe(reply)
    }).pipe(
      Effect.provide(
        CompactionManager.layerConfig().pipe(
          Layer.provideMerge(depsLayer(forgetful)),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["PRECIS_COMPACTION_ALSO_LINE", "false"]]))))
        )
      )
    ))

  it.effect("a condensation that keeps its children's Also lines carries one Also line, at its end", () =>
    Effect.gen(function*() {
      // Two leaves that each lose a path line, and a condensation of them.
      const twoLeaves = [...work.slice(0, 2), work[3]!, ...work.slice(1, 3)].map((turn, i) =>
        ConversationTurn.make({ ...turn, id: `k${i}`, timestamp: new Date(start + i * 60_000).toISOString() })
      )
      yield* setup("k", twoLeaves)
      yield* (yield* manager).compact("k", { freshTailTurns: 0, leafChunkTokens: 30, minFanIn: 2 })
      const all = yield* (yield* store).summaries("k")
      const withAlso = (text: string) => text.split("\n").filter((line) => line.startsWith("Also: "))
      expect(all.filter((s) => s.depth === 0 && withAlso(s.content).length === 1).length).toBeGreaterThanOrEqual(2)
      const parent = all.find((s) => s.depth === 1)!
      expect(withAlso(parent.content)).toHaveLength(1)
      expect(parent.content.split("\n").at(-1)).toMatch(/^Also: .*src\/routes\/invoices\.ts.*src\/services\/pdf\.ts/)
      // Every summary's stored keys are those of its line; the parent's begin with its children's (data, in order).
      for (const summary of all) expect(AlsoLine.line(summary.alsoKeys ?? [])).toBe(withAlso(summary.content)[0] ?? "Also: ")
      const childKeys = all.filter((s) => s.depth === 0).flatMap((s) => s.alsoKeys ?? [])
      expect(parent.alsoKeys!.slice(0, childKeys.length)).toEqual(childKeys)
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.dropping((line) => line.includes("/") && !line.startsWith("Also: "))))))

  it.effect("condensation reads a child's Also line as content: what it drops of it comes back on its own line", () =>
    Effect.gen(function*() {
      yield* setup("c", work)
      const stats = yield* (yield* manager).compact("c", { freshTailTurns: 0, leafChunkTokens: 12, minFanIn: 2 })
      expect(stats.condensedSummariesCreated).toBe(1)
      const all = yield* (yield* store).summaries("c")
      const leaves = all.filter((s) => s.depth === 0)
      const parent = all.find((s) => s.depth === 1)!
      const also = "Also: RangeError; src/routes/invoices.ts; src/services/pdf.ts"
      expect(leaves.filter((leaf) => leaf.content.endsWith(`\n${also}`))).toHaveLength(1)
      expect(parent.tier).toBe("normal")
      // The model dropped the children's Also lines (they name paths); the check found their keys again.
      expect(parent.content).not.toContain(`${also}\n`)
      expect(parent.content.split("\n").at(-1)).toBe(also)
    }).pipe(Effect.provide(managerLayer(forgetful))))
})
