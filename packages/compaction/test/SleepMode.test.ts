import { assert, describe, expect, it } from "@effect/vitest"
import { ConversationTurn, type Provider, ProviderError } from "@precis/core"
import { Store } from "@precis/store"
import { ScriptedProvider, StoreInvariants } from "@precis/testing"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as CompactionManager from "../src/CompactionManager.js"
import * as SleepMode from "../src/SleepMode.js"
import { managerLayer, requestCount, shortReply, waitUntil } from "./helpers.js"

/** `count` turns of about 50 tokens, ids `${prefix}${i}`, alternating user/assistant. */
const turns = (count: number, prefix = "t") =>
  Array.from({ length: count }, (_, i) =>
    ConversationTurn.make({
      role: i % 2 === 0 ? "user" : "assistant",
      content: `${prefix}${i} ${"x".repeat(190)}`,
      id: `${prefix}${i}`
    }))

const append = (sessionId: string, count: number, prefix?: string) =>
  Effect.flatMap(Store.all, (store) => store.appendTurns(sessionId, turns(count, prefix)))

const stats = Effect.flatMap(SleepMode.SleepMode, (sleep) => sleep.stats)
const sleepMode = SleepMode.SleepMode
const uncovered = (sessionId: string) =>
  Effect.flatMap(Store.all, (store) => store.uncoveredTurns(sessionId))

/** Lets the forked fibers run until they wait on the clock. */
const settle = Effect.gen(function*() {
  for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
})

/** Advances the TestClock by `duration` and lets what woke up run. */
const advance = (duration: Duration.DurationInput) => Effect.zipRight(TestClock.adjust(duration), settle)

/** The manager over a scripted provider (leaves of at most 200 tokens, a fresh tail of 4), with Sleep Mode on top. */
const sleepLayer = (
  options: SleepMode.Options,
  provider: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider> = ScriptedProvider.respond(shortReply)
) =>
  SleepMode.layer(options).pipe(
    Layer.provideMerge(managerLayer(provider, { leafChunkTokens: 200, freshTailTurns: 4 }))
  )

/** A provider that hangs on every call while `state.hanging`, and replies shortly otherwise. */
const switchable = () => {
  const state = { hanging: true }
  const layer = ScriptedProvider.respond((request) => state.hanging ? ScriptedProvider.hang : shortReply(request))
  return { state, layer }
}

describe("SleepMode", () => {
  it.effect("starts no cycle before the idle threshold, and one at the first check after it", () =>
    Effect.gen(function*() {
      yield* append("s", 24)
      yield* settle
      yield* advance("4 minutes")
      expect((yield* stats).cyclesCompleted).toBe(0)
      expect(yield* requestCount).toBe(0)
      yield* advance("59 seconds")
      expect((yield* stats).cyclesCompleted).toBe(0)
      yield* advance("1 second")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 1))
      const after = yield* stats
      // 24 turns, a fresh tail of 4: 20 evictable, all within one batch.
      expect(after.turnsProcessed).toBe(20)
      expect(after.summariesCreated).toBe(8) // 7 leaves of at most 3 turns, one condensed node
      expect(after.errors).toBe(0)
      expect(after.lastCycleAt).toBe(5 * 60_000)
      expect((yield* uncovered("s")).map((t) => t.id)).toEqual(["t20", "t21", "t22", "t23"])
      expect(yield* StoreInvariants.violations()).toEqual([])
    }).pipe(Effect.provide(sleepLayer({})))
  )

  it.scoped("clears a session's backlog in one cycle, in batches of batchSize, and skips sessions with too few", () =>
    Effect.gen(function*() {
      yield* append("big", 52, "b")
      yield* append("small", 7, "s") // 3 evictable turns: fewer than minUnprocessedTurns
      const events = yield* (yield* sleepMode).subscribe
      expect(yield* (yield* sleepMode).backlog).toEqual({ sessions: 1, turns: 48 })
      yield* settle
      yield* advance("5 minutes")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 1))
      // 52 turns, a fresh tail of 4: all 48 evictable in one cycle, not 20 a minute.
      expect((yield* stats).turnsProcessed).toBe(48)
      expect((yield* uncovered("big")).map((t) => t.id)).toEqual(["b48", "b49", "b50", "b51"])
      expect((yield* uncovered("small")).length).toBe(7)
      expect(yield* (yield* sleepMode).backlog).toEqual({ sessions: 0, turns: 0 })
      // Batches of 20 turns: no leaf covers turns of two batches (b19|b20, b39|b40).
      const leaves = yield* Effect.flatMap(Store.all, (store) => store.summaries("big", { depth: 0 }))
      for (const leaf of leaves) {
        const turnIds = leaf.sourceTurnIds ?? []
        const batches = new Set(turnIds.map((id) => Math.floor(Number(id.slice(1)) / 20)))
        expect(batches.size, turnIds.join(",")).toBe(1)
      }
      yield* advance("1 minute")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 2))
      expect((yield* stats).turnsProcessed).toBe(48)
      const seen = Chunk.toReadonlyArray(yield* Queue.takeAll(events))
      expect(seen.filter((e) => e._tag === "CycleStarted").map((e) => e.sessions)).toEqual([["big"]])
      expect(seen.filter((e) => e._tag === "SessionCompacted").map((e) => e.stats.turnsCompacted)).toEqual([48])
      expect(yield* StoreInvariants.violations()).toEqual([])
    }).pipe(Effect.provide(sleepLayer({ batchSize: 20 }))))

  it.scoped("compacts parallelSessions sessions at once: their first requests are all in flight together", () => {
    const provider = switchable()
    return Effect.gen(function*() {
      for (const s of ["a", "b", "c"]) yield* append(s, 12, s)
      yield* settle
      yield* advance("5 minutes")
      // The provider hangs: two sessions wait on it at once, the third waits for one of them.
      yield* waitUntil(Effect.map(requestCount, (n) => n === 2))
      yield* settle
      expect(yield* requestCount).toBe(2)
      provider.state.hanging = false
      yield* (yield* sleepMode).recordActivity
      yield* advance("5 minutes")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 1))
      for (const s of ["a", "b", "c"]) expect((yield* uncovered(s)).length).toBe(4)
      expect(yield* StoreInvariants.violations()).toEqual([])
    }).pipe(Effect.provide(sleepLayer({ parallelSessions: 2 }, provider.layer)))
  })

  it.effect("says when the next cycle may start: the first check past the idle threshold after the last activity", () =>
    Effect.gen(function*() {
      const sleep = yield* sleepMode
      yield* settle
      expect(yield* sleep.nextCycleAt).toBe(5 * 60_000)
      yield* advance("150 seconds")
      yield* sleep.recordActivity
      // Idle from 7m30s; the checks fall on whole minutes.
      expect(yield* sleep.nextCycleAt).toBe(8 * 60_000)
    }).pipe(Effect.provide(sleepLayer({}))))

  it.effect("compacts a session past the soft mark of its budget even with few evictable turns", () =>
    Effect.gen(function*() {
      yield* append("s", 12) // about 600 tokens
      yield* settle
      yield* advance("5 minutes")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 1))
      expect((yield* stats).turnsProcessed).toBeGreaterThan(0)
    }).pipe(Effect.provide(sleepLayer({ minUnprocessedTurns: 100, budget: 1_000 }))))

  it.effect("does nothing under minUnprocessedTurns without a budget", () =>
    Effect.gen(function*() {
      yield* append("s", 12)
      yield* settle
      yield* advance("10 minutes")
      const s = yield* stats
      expect(s.cyclesCompleted).toBeGreaterThan(0)
      expect(s.turnsProcessed).toBe(0)
      expect(yield* requestCount).toBe(0)
    }).pipe(Effect.provide(sleepLayer({ minUnprocessedTurns: 100 }))))

  it.effect("a cycle brings the search index up to date, even with no session due", () =>
    Effect.gen(function*() {
      yield* append("s", 12)
      yield* settle
      yield* advance("5 minutes")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 1))
      expect((yield* stats).turnsProcessed).toBe(0)
      // Nothing left for the agent's next search to index.
      expect(yield* Effect.flatMap(Store.all, (store) => store.indexSearch)).toBe(0)
    }).pipe(Effect.provide(sleepLayer({ minUnprocessedTurns: 100 }))))

  it.scoped("activity interrupts a running cycle at once, and the agent's compact then runs", () => {
    const provider = switchable()
    return Effect.gen(function*() {
      yield* append("s", 24)
      const events = yield* (yield* sleepMode).subscribe
      yield* settle
      yield* advance("5 minutes")
      // The cycle is waiting on the provider (it hangs; the summarizer's timeout is far on the clock).
      yield* waitUntil(Effect.map(requestCount, (n) => n === 1))
      expect((yield* stats).cyclesCompleted).toBe(0)
      // No clock time passes: recordActivity returns once the cycle has stopped.
      yield* (yield* sleepMode).recordActivity
      const after = yield* stats
      expect(after.cyclesInterrupted).toBe(1)
      expect(after.cyclesCompleted).toBe(0)
      expect(after.processingTime).toEqual(Duration.zero)
      const seen = Chunk.toReadonlyArray(yield* Queue.takeAll(events)).map((e) => e._tag)
      expect(seen).toEqual(["CycleStarted", "CycleInterrupted"])
      // The foreground compaction takes the session at once (nothing holds its lock or lease).
      provider.state.hanging = false
      const result = yield* (yield* CompactionManager.CompactionManager).compact("s")
      expect(result.turnsCompacted).toBe(20)
      expect(yield* StoreInvariants.violations()).toEqual([])
      // The idle clock restarted: no cycle until 5 minutes after the activity.
      yield* advance("4 minutes")
      expect((yield* stats).cyclesCompleted).toBe(0)
      yield* advance("1 minute")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 1))
    }).pipe(Effect.provide(sleepLayer({}, provider.layer)))
  })

  it.effect("a delayed provider: activity mid-cycle keeps what was written and stops the rest", () =>
    Effect.gen(function*() {
      yield* append("s", 24)
      yield* settle
      yield* advance("5 minutes")
      // Each call takes 10 seconds; let three leaves be written.
      yield* advance("30 seconds")
      yield* (yield* sleepMode).recordActivity
      const summaries = yield* Effect.flatMap(Store.all, (store) => store.summaries("s"))
      expect(summaries.length).toBe(3)
      expect((yield* stats).cyclesInterrupted).toBe(1)
      expect((yield* stats).processingTime).toEqual(Duration.seconds(30))
      expect(yield* StoreInvariants.violations()).toEqual([])
      // The next idle cycle completes the work.
      yield* advance("5 minutes")
      yield* advance("1 minute")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 1))
      expect((yield* uncovered("s")).length).toBe(4)
    }).pipe(
      Effect.provide(
        sleepLayer(
          {},
          ScriptedProvider.always(ScriptedProvider.delayed("10 seconds", "a short summary"))
        )
      )
    ))

  it.effect("no cycle starts while a busy effect runs", () =>
    Effect.gen(function*() {
      yield* append("s", 24)
      yield* settle
      const sleep = yield* sleepMode
      const agent = yield* Effect.fork(sleep.busy(Effect.sleep("20 minutes")))
      yield* settle
      yield* advance("20 minutes")
      yield* Fiber.join(agent)
      expect((yield* stats).cyclesCompleted).toBe(0)
      expect(yield* requestCount).toBe(0)
      yield* advance("5 minutes")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 1))
    }).pipe(Effect.provide(sleepLayer({}))))

  it.effect("closing the scope during a cycle interrupts it and stops the worker", () => {
    const provider = switchable()
    return Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(sleepLayer({}, provider.layer), scope)
      const inScope = <A, E>(effect: Effect.Effect<A, E, SleepMode.SleepMode | Store.Store>) =>
        Effect.provide(effect, context)
      const calls = Effect.provide(requestCount, context)
      yield* inScope(append("s", 24))
      yield* settle
      yield* advance("5 minutes")
      yield* waitUntil(Effect.map(calls, (n) => n === 1))
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* settle
      assert(Exit.isExit(yield* Fiber.await(closing)))
      expect((yield* inScope(stats)).cyclesInterrupted).toBe(1)
      // The worker is gone: no further checks, no further calls.
      provider.state.hanging = false
      yield* advance("1 hour")
      expect(yield* calls).toBe(1)
      expect((yield* inScope(stats)).cyclesCompleted).toBe(0)
    })
  })

  it.scoped("counts failed cycles and backs off exponentially, capped, until a cycle succeeds", () => {
    const state = { failing: true }
    const provider = ScriptedProvider.respond((request) =>
      state.failing
        ? ScriptedProvider.fail(new ProviderError.UnauthorizedError({ provider: "scripted", status: 401 }))
        : shortReply(request)
    )
    return Effect.gen(function*() {
      yield* append("s", 24)
      const events = yield* (yield* sleepMode).subscribe
      yield* settle
      const errorsAt = (after: Duration.DurationInput) =>
        Effect.zipRight(advance(after), Effect.map(stats, (s) => s.errors))
      expect(yield* errorsAt("5 minutes")).toBe(1) // next check in 2 minutes
      expect(yield* errorsAt("119 seconds")).toBe(1)
      expect(yield* errorsAt("1 second")).toBe(2) // next in 4
      expect(yield* errorsAt("239 seconds")).toBe(2)
      expect(yield* errorsAt("1 second")).toBe(3) // next in 8, capped at 5
      expect(yield* errorsAt("299 seconds")).toBe(3)
      expect(yield* errorsAt("1 second")).toBe(4)
      const failed = Chunk.toReadonlyArray(yield* Queue.takeAll(events)).filter((e) => e._tag === "CycleFailed")
      expect(failed.map((e) => Duration.toMinutes(e.retryIn))).toEqual([2, 4, 5, 5])
      expect(failed[0]!.sessionId).toBe("s")
      expect(failed[0]!.error).toContain("check the API key")
      // The provider heals: the next cycle succeeds, and checks are back to every minute.
      state.failing = false
      yield* advance("5 minutes")
      yield* waitUntil(Effect.map(stats, (s) => s.cyclesCompleted === 5))
      expect((yield* stats).turnsProcessed).toBe(20)
      yield* advance("1 minute")
      expect((yield* stats).cyclesCompleted).toBe(6)
      expect((yield* stats).errors).toBe(4)
    }).pipe(Effect.provide(sleepLayer({ maxBackoff: "5 minutes" }, provider)))
  })

  it.effect("disabled, it never runs a cycle", () =>
    Effect.gen(function*() {
      yield* append("s", 24)
      yield* settle
      yield* advance("2 hours")
      expect(yield* stats).toEqual({
        cyclesCompleted: 0,
        cyclesInterrupted: 0,
        turnsProcessed: 0,
        summariesCreated: 0,
        errors: 0,
        lastCycleAt: undefined,
        processingTime: Duration.zero
      })
      expect(yield* requestCount).toBe(0)
      yield* (yield* sleepMode).recordActivity
    }).pipe(Effect.provide(sleepLayer({ enabled: false }))))

  it.effect("reads its options from Config, and refuses options that make no sense", () =>
    Effect.gen(function*() {
      const read = yield* SleepMode.config.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(
          new Map([
            ["PRECIS_SLEEP_ENABLED", "false"],
            ["PRECIS_SLEEP_IDLE_THRESHOLD", "2 minutes"],
            ["PRECIS_SLEEP_CHECK_INTERVAL", "10"],
            ["PRECIS_SLEEP_MIN_UNPROCESSED_TURNS", "3"],
            ["PRECIS_SLEEP_BATCH_SIZE", "7"],
            ["PRECIS_SLEEP_SOFT_MARK", "0.65"],
            ["PRECIS_SLEEP_MAX_BACKOFF", "1 hour"]
          ])
        ))
      )
      expect(read.enabled).toBe(false)
      expect(Duration.toMillis(Duration.decode(read.idleThreshold!))).toBe(120_000)
      expect(Duration.toMillis(Duration.decode(read.checkInterval!))).toBe(10_000)
      expect(read.minUnprocessedTurns).toBe(3)
      expect(read.batchSize).toBe(7)
      expect(read.softMark).toBe(0.65)
      expect(Duration.toMinutes(Duration.decode(read.maxBackoff!))).toBe(60)
      // Only the variables set give a value: the defaults apply when the layer is built.
      expect(yield* SleepMode.config.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))).toEqual({})
      const bad: ReadonlyArray<readonly [string, string]> = [
        ["PRECIS_SLEEP_ENABLED", "sometimes"],
        ["PRECIS_SLEEP_IDLE_THRESHOLD", "abc"],
        ["PRECIS_SLEEP_CHECK_INTERVAL", "0 seconds"],
        ["PRECIS_SLEEP_MIN_UNPROCESSED_TURNS", "0"],
        ["PRECIS_SLEEP_BATCH_SIZE", "0"],
        ["PRECIS_SLEEP_SOFT_MARK", "2"],
        ["PRECIS_SLEEP_MAX_BACKOFF", "-1 minutes"]
      ]
      for (const [name, value] of bad) {
        const refused = yield* Effect.either(
          SleepMode.config.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([[name, value]]))))
        )
        assert(Either.isLeft(refused), `${name}=${value} accepted`)
        expect(String(refused.left)).toContain(`Invalid data at ${name}: "must be`)
      }
      const refused = yield* Effect.either(Layer.build(sleepLayer({ checkInterval: 0, softMark: 2 })))
      assert(Either.isLeft(refused))
      assert(refused.left._tag === "InvalidSleepOptionsError")
      expect(refused.left.problems.map((problem) => problem.option)).toEqual(["checkInterval", "softMark"])
    }).pipe(Effect.scoped))

  it.effect("a bad duration string fails the build with InvalidSleepOptionsError, not a defect", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(sleepLayer({ idleThreshold: "abc" as Duration.DurationInput, budget: 0 }))
      )
      assert(Exit.isFailure(exit))
      assert.isFalse(Cause.isDie(exit.cause))
      const error = Option.getOrThrow(Cause.failureOption(exit.cause))
      assert(error._tag === "InvalidSleepOptionsError")
      expect(error.message).toBe(
        `invalid sleep mode options: idleThreshold must be a finite duration such as "30 seconds" (got "abc"); ` +
          "budget must be an integer >= 1 (got 0)"
      )
    }).pipe(Effect.scoped))
})
