import { describe, expect, it } from "@effect/vitest"
import { Arbitraries, ScriptedProvider } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as CompactionManager from "../src/CompactionManager.js"
import * as CompactionOptions from "../src/CompactionOptions.js"
import * as Plan from "../src/internal/plan.js"
import * as MemoryStore from "../src/MemoryStore.js"
import { managerLayer, requestCount, runPumped, shortReply } from "./helpers.js"
import { violations } from "./invariants.js"

const options = FastCheck.integer({ min: 2, max: 4 }).chain((minFanIn) =>
  FastCheck.record({
    freshTailTurns: FastCheck.integer({ min: 0, max: 12 }),
    leafChunkTokens: FastCheck.integer({ min: 1, max: 60 }),
    minFanIn: FastCheck.constant(minFanIn),
    maxFanIn: FastCheck.integer({ min: minFanIn, max: minFanIn + 5 }),
    concurrency: FastCheck.integer({ min: 1, max: 4 })
  })
)

/** Starts a compaction and interrupts it once the provider has received `calls` more requests (if it gets there). */
const interruptedCompaction = (sessionId: string, opts: CompactionOptions.Options, calls: number) =>
  Effect.gen(function*() {
    const cm = yield* CompactionManager.CompactionManager
    const start = yield* requestCount
    const fiber = yield* Effect.fork(cm.compact(sessionId, opts))
    for (let i = 0; i < 2_000; i++) {
      for (let j = 0; j < 5; j++) yield* Effect.yieldNow()
      if (Option.isSome(yield* Fiber.poll(fiber))) return
      if ((yield* requestCount) - start >= calls) return yield* Fiber.interrupt(fiber)
      yield* TestClock.adjust("61 seconds")
    }
  })

describe("properties", () => {
  it.effect.prop(
    "every invariant holds after every run, interrupted or not, whatever the provider does",
    {
      turns: FastCheck.array(Arbitraries.turn, { maxLength: 60, size: "max" }),
      cuts: FastCheck.array(FastCheck.nat(), { maxLength: 2 }),
      opts: options,
      outcomes: FastCheck.array(Arbitraries.outcome, { maxLength: 25 }),
      interruptAfter: FastCheck.option(FastCheck.integer({ min: 0, max: 10 }), { nil: undefined })
    },
    ({ cuts, interruptAfter, opts, outcomes, turns }) =>
      Effect.gen(function*() {
        const cm = yield* CompactionManager.CompactionManager
        const store = yield* MemoryStore.MemoryStore
        const bounds = { freshTailTurns: opts.freshTailTurns, minFanIn: opts.minFanIn, maxFanIn: opts.maxFanIn }
        // The session grows in batches; each batch is followed by compactions.
        const splits = [...cuts.map((c) => c % (turns.length + 1)), turns.length].sort((a, b) => a - b)
        let from = 0
        for (const to of splits) {
          yield* store.appendTurns("prop", turns.slice(from, to))
          from = to
          if (interruptAfter !== undefined) {
            yield* interruptedCompaction("prop", opts, interruptAfter)
            expect(yield* violations(bounds)).toEqual([])
          }
          yield* runPumped(cm.compact("prop", opts))
          expect(yield* violations({ ...bounds, condensedFully: true })).toEqual([])
          // Nothing is left to evict but the fresh tail (and what keeps a tool result with its call).
          expect(Plan.tailStart(yield* store.uncoveredTurns("prop"), opts.freshTailTurns)).toBe(0)
        }
        const before = yield* store.summaries("prop")
        const again = yield* runPumped(cm.compact("prop", opts))
        expect(again.leafSummariesCreated + again.condensedSummariesCreated + again.turnsCompacted).toBe(0)
        expect((yield* store.summaries("prop")).length).toBe(before.length)
        const stored = yield* store.turns("prop")
        expect(stored.length).toBe(new Set(turns.map((t) => t.id ?? Math.random())).size)
      }).pipe(
        Effect.provide(managerLayer(ScriptedProvider.layer(outcomes, { whenExhausted: shortReply })))
      ),
    { timeout: 120_000, fastCheck: { numRuns: 15 } }
  )
})
