/**
 * Sleep Mode: the agent never compacts inside its turns; a background fiber
 * does it while the agent is idle. Turns arrive in bursts with idle gaps; each
 * agent turn runs inside `SleepMode.busy` (so no idle cycle runs meanwhile)
 * and only falls back to compacting itself when the hard trigger fires.
 * Offline (extractive provider), in memory, with short intervals so it runs
 * in a few seconds. Run with
 * `pnpm tsx --conditions=@precis/source examples/sleep-mode.ts`.
 */
import { CompactionManager, SleepMode } from "@precis/compaction"
import { Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { Fixtures } from "@precis/testing"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

const budget = 4_000

const Live = SleepMode.layer({
  idleThreshold: "300 millis",
  checkInterval: "100 millis",
  budget, // a session past half of it is compacted while idle
  compaction: { freshTailTurns: 8, leafChunkTokens: 1_500 }
}).pipe(
  Layer.provideMerge(CompactionManager.layer({ freshTailTurns: 8, leafChunkTokens: 1_500 })),
  Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" })),
  Layer.provide(Summarizer.layer()),
  Layer.provide(ExtractiveProvider.layer())
)

const turns = Fixtures.conversation(120, {
  content: (i) =>
    i % 2 === 0
      ? `Step ${i}: run \`npm test -- src/module${i % 17}.ts\` and fix what fails.`
      : `Ran the tests: src/module${i % 17}.ts:${10 + i} threw TypeError #${i}; patched it and re-ran.`
})

const program = Effect.gen(function*() {
  const store = yield* TurnStore.TurnStore
  const manager = yield* CompactionManager.CompactionManager
  const sleep = yield* SleepMode.SleepMode
  // Print what the idle worker does.
  yield* Effect.forkScoped(
    Stream.runForEach(sleep.events, (event) =>
      event._tag === "SessionCompacted"
        ? Console.log(`  idle: compacted ${event.stats.turnsCompacted} turns of ${event.sessionId}`)
        : Effect.void)
  )
  let inTurn = 0
  for (const [i, turn] of turns.entries()) {
    yield* sleep.busy(Effect.gen(function*() {
      yield* store.appendTurns("demo", [turn])
      if (yield* manager.shouldCompact("demo", budget)) {
        inTurn++
        yield* manager.compact("demo")
      }
    }))
    // A burst of 20 turns, then the user steps away for a second.
    yield* Effect.sleep(i % 20 === 19 ? "1 second" : "5 millis")
  }
  const stats = yield* sleep.stats
  const context = yield* manager.context("demo")
  yield* Console.log(
    `${turns.length} turns; compactions inside a turn: ${inTurn}; idle cycles: ${stats.cyclesCompleted} ` +
      `(${stats.turnsProcessed} turns, ${stats.summariesCreated} summaries); context now ${context.tokens} tokens`
  )
})

Effect.runPromise(Effect.scoped(Effect.provide(program, Live))).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
