/**
 * An agent loop in miniature: turns arrive one by one, compaction runs when the
 * active context passes 75% of a small budget, and the context the agent would
 * send its model stays bounded. Offline (extractive provider), in memory.
 * Run with `pnpm tsx --conditions=@precis/source examples/agent-loop.ts`.
 */
import { CompactionManager } from "@precis/compaction"
import { type ConversationTurn, Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { Fixtures } from "@precis/testing"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const CompactionLive = CompactionManager.layer({ freshTailTurns: 8, leafChunkTokens: 1_500 }).pipe(
  Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" })),
  Layer.provide(Summarizer.layer()),
  Layer.provide(ExtractiveProvider.layer())
)

const budget = 4_000

// After each turn of the agent loop: store it, compact when needed, assemble the context.
const step = (sessionId: string, turn: ConversationTurn.ConversationTurn) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const manager = yield* CompactionManager.CompactionManager
    yield* store.appendTurns(sessionId, [turn])
    const compacted = (yield* manager.shouldCompact(sessionId, budget)) ? yield* manager.compact(sessionId) : undefined
    return { compacted, context: yield* manager.context(sessionId) }
  })

const turns = Fixtures.conversation(200, {
  content: (i) =>
    i % 2 === 0
      ? `Step ${i}: run \`npm test -- src/module${i % 17}.ts\` and fix what fails.`
      : `Ran the tests: src/module${i % 17}.ts:${10 + i} threw TypeError #${i}; patched it and re-ran, ${i * 3} tests pass.`
})

const program = Effect.gen(function*() {
  let largest = 0
  let compactions = 0
  for (const turn of turns) {
    const { compacted, context } = yield* step("demo", turn)
    largest = Math.max(largest, context.tokens)
    if (compacted !== undefined) {
      compactions++
      yield* Console.log(
        `turn ${turn.id}: compacted ${compacted.turnsCompacted} turns into ${compacted.leafSummariesCreated} leaves ` +
          `and ${compacted.condensedSummariesCreated} condensed; context now ${context.tokens} tokens`
      )
    }
  }
  yield* Console.log(`${turns.length} turns, ${compactions} compactions, largest context ${largest} of ${budget} tokens`)
})

program.pipe(Effect.provide(CompactionLive), Effect.runPromise)
