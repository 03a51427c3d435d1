/**
 * The compaction property: over random sessions, options, provider behaviours
 * and interruptions, every invariant holds after every run. On SQLite under the
 * TestClock (provider delays and tier timeouts in seconds); on PostgreSQL on the
 * real clock, every duration a thousand times shorter (the `pg` driver's own
 * timers do not run under the TestClock), each run on a fresh database.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { type Provider, Summarizer, ToolMetadata } from "@precis/core"
import { Store } from "@precis/store"
import { Arbitraries, Fixtures, ScriptedProvider, StoreInvariants } from "@precis/testing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as CompactionManager from "../src/CompactionManager.js"
import * as CompactionOptions from "../src/CompactionOptions.js"
import * as FreshTail from "../src/FreshTail.js"
import { managerLayer, pgStoreLayer, requestCount, runPumped, shortReply, skipPg } from "./helpers.js"

const options = FastCheck.integer({ min: 2, max: 4 }).chain((minFanIn) =>
  FastCheck.record({
    freshTailTurns: FastCheck.integer({ min: 0, max: 12 }),
    leafChunkTokens: FastCheck.integer({ min: 1, max: 60 }),
    minFanIn: FastCheck.constant(minFanIn),
    maxFanIn: FastCheck.integer({ min: minFanIn, max: minFanIn + 5 }),
    concurrency: FastCheck.integer({ min: 1, max: 4 })
  })
)

const cases = {
  // With tool calls paired by id, parallel ones written both ways (one assistant turn, or a turn per call).
  turns: Arbitraries.turns({ maxLength: 60 }),
  cuts: FastCheck.array(FastCheck.nat(), { maxLength: 2 }),
  opts: options,
  outcomes: FastCheck.array(Arbitraries.outcome, { maxLength: 25 }),
  interruptAfter: FastCheck.option(FastCheck.integer({ min: 0, max: 10 }), { nil: undefined })
}

type Case = { readonly [K in keyof typeof cases]: (typeof cases)[K] extends FastCheck.Arbitrary<infer T> ? T : never }

/** How a run lets time pass: the TestClock's, or the real one. */
interface Clock {
  /** Runs a compaction to its end. */
  readonly finish: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Lets a waiting provider call (a delay, a timeout) move on. */
  readonly pass: Effect.Effect<void>
}

const testClock: Clock = { finish: runPumped, pass: TestClock.adjust("61 seconds") }
const realClock: Clock = { finish: identity, pass: Effect.sleep("1 millis") }

type Manager = Layer.Layer<
  CompactionManager.CompactionManager | Store.Store | SqlClient.SqlClient | ScriptedProvider.ScriptedProvider,
  CompactionOptions.InvalidOptionsError | Summarizer.InvalidSummarizerOptionsError
>

/** Starts a compaction and interrupts it once the provider has received `calls` more requests (if it gets there). */
const interruptedCompaction = (clock: Clock, sessionId: string, opts: CompactionOptions.Options, calls: number) =>
  Effect.gen(function*() {
    const cm = yield* CompactionManager.CompactionManager
    const start = yield* requestCount
    const fiber = yield* Effect.fork(cm.compact(sessionId, opts))
    for (let i = 0; i < 2_000; i++) {
      for (let j = 0; j < 5; j++) yield* Effect.yieldNow()
      if (Option.isSome(yield* Fiber.poll(fiber))) return
      if ((yield* requestCount) - start >= calls) return yield* Fiber.interrupt(fiber)
      yield* clock.pass
    }
  })

/**
 * The property, with `clock`, over the manager `manager` builds around a
 * scripted provider (a fresh store per run); with `toolPairs`, tool calls and
 * results paired by id are checked too (`StoreInvariants.Expectations`).
 */
const property = (
  clock: Clock,
  manager: (provider: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>) => Manager,
  outcome: (outcome: ScriptedProvider.Outcome) => ScriptedProvider.Outcome = identity,
  toolPairs = false
) =>
({ cuts, interruptAfter, opts, outcomes, turns }: Case) =>
  Effect.gen(function*() {
    const cm = yield* CompactionManager.CompactionManager
    const store = yield* Store.all
    const bounds = { freshTailTurns: opts.freshTailTurns, minFanIn: opts.minFanIn, maxFanIn: opts.maxFanIn, toolPairs }
    // The session grows in batches; each batch is followed by compactions.
    const splits = [...cuts.map((c) => c % (turns.length + 1)), turns.length].sort((a, b) => a - b)
    let from = 0
    for (const to of splits) {
      yield* store.appendTurns("prop", turns.slice(from, to))
      from = to
      if (interruptAfter !== undefined) {
        yield* interruptedCompaction(clock, "prop", opts, interruptAfter)
        expect(yield* StoreInvariants.violations(bounds)).toEqual([])
      }
      yield* clock.finish(cm.compact("prop", opts))
      expect(yield* StoreInvariants.violations({ ...bounds, condensedFully: true })).toEqual([])
      // Nothing is left to evict but the fresh tail (and what keeps a tool result with its call).
      expect(FreshTail.start(yield* store.uncoveredTurns("prop"), opts.freshTailTurns)).toBe(0)
    }
    const before = yield* store.summaries("prop")
    const again = yield* clock.finish(cm.compact("prop", opts))
    expect(again.leafSummariesCreated + again.condensedSummariesCreated + again.turnsCompacted).toBe(0)
    expect((yield* store.summaries("prop")).length).toBe(before.length)
    const stored = yield* store.turns("prop")
    expect(stored.length).toBe(new Set(turns.map((t) => t.id ?? Math.random())).size)
  }).pipe(
    Effect.provide(manager(ScriptedProvider.layer(outcomes.map(outcome), { whenExhausted: shortReply })))
  )

/** A delay of N seconds becomes N milliseconds (the PostgreSQL run's tier timeout is 120 ms). */
const scaled = (outcome: ScriptedProvider.Outcome): ScriptedProvider.Outcome =>
  outcome._tag === "Delayed"
    ? ScriptedProvider.delayed(Duration.millis(Duration.toSeconds(outcome.delay)), outcome.text)
    : outcome

const NAME = "every invariant holds after every run, interrupted or not, whatever the provider does"

// Runs of this property take seconds: a failure ends the check at once (`endOnFailure`, its seed and path
// printed to replay it) instead of a shrinking that would run for hours and look like a hang.
describe("properties", () => {
  it.effect.prop(NAME, cases, property(testClock, (provider) => managerLayer(provider)), {
    timeout: 120_000,
    fastCheck: { numRuns: 15, endOnFailure: true }
  })

  it.effect.prop(
    "a tool result is never on the other side of the tail boundary from its call, nor in another leaf: parallel calls in one turn",
    { ...cases, turns: Arbitraries.turns({ maxLength: 60, parallelCalls: ["one turn"] }) },
    property(testClock, (provider) => managerLayer(provider), identity, true),
    { timeout: 120_000, fastCheck: { numRuns: 15, endOnFailure: true } }
  )

  // Parallel calls written a turn per call, as Claude Code sessions are: the tail boundary and the
  // leaves pair results with their calls by call id (`FreshTail.start`, the chunking's pairs), so
  // neither splits [user, assistant(c0), assistant(c1), tool(c0), tool(c1)] (the test below) nor
  // [assistant(call-0), assistant(call-1), tool(call-0)] at leafChunkTokens 1.
  it.effect.prop(
    "a tool result is never on the other side of the tail boundary from its call, nor in another leaf: a turn per call",
    { ...cases, turns: Arbitraries.turns({ maxLength: 60, parallelCalls: ["a turn per call"] }) },
    property(testClock, (provider) => managerLayer(provider), identity, true),
    { timeout: 120_000, fastCheck: { numRuns: 30, endOnFailure: true } }
  )

  // The tail's counterexample fast-check found before, written out.
  it.effect("parallel calls a turn each: the results stay with their calls across the tail boundary", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      const cm = yield* CompactionManager.CompactionManager
      const call = (id: string) =>
        Fixtures.turn("assistant", ToolMetadata.callLine("Bash", "{}"), {
          id: `a-${id}`,
          metadata: ToolMetadata.make({ toolCalls: [{ id, name: "Bash", arguments: "{}" }] })
        })
      const result = (id: string) =>
        Fixtures.turn("tool", "ok", { id: `r-${id}`, metadata: ToolMetadata.make({ toolCallId: id, toolName: "Bash" }) })
      yield* store.appendTurns("s", [Fixtures.turn("user", "go", { id: "u" }), call("c0"), call("c1"), result("c0"), result("c1")])
      yield* runPumped(cm.compact("s", { freshTailTurns: 2 }))
      expect(yield* StoreInvariants.violations({ freshTailTurns: 2, toolPairs: true })).toEqual([])
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.respond(shortReply)))))

  describe.skipIf(skipPg)("PostgreSQL", () => {
    it.live.prop(
      NAME,
      cases,
      property(
        realClock,
        (provider) =>
          CompactionManager.layer().pipe(
            Layer.provideMerge(
              Layer.mergeAll(pgStoreLayer(), Summarizer.layer({ timeout: "120 millis" }).pipe(Layer.provideMerge(provider)))
            )
          ),
        scaled
      ),
      { timeout: 180_000, fastCheck: { numRuns: 8, endOnFailure: true } }
    )
  })
})
