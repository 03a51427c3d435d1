/**
 * The summarize stage over the summary DAG (what the `Assembler` runs with a
 * `CompactionManager` when it rebuilds a context): over `trigger` tokens, it
 * compacts the session, then goes on with the parentless summaries and the
 * turns left uncovered.
 *
 * @internal
 */
import type { CompactionManager } from "@precis/compaction"
import { DagStore, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import { type Stage, unchanged } from "./stage.js"

/**
 * The stage for `sessionId`: over `trigger` tokens, a compaction with
 * `options`. A failed compaction leaves the context to the stages after it:
 * it is logged, and the stage never fails.
 */
export const stage = (
  manager: CompactionManager.Service,
  sessionId: string,
  trigger: number,
  options: { readonly budget: number; readonly lowWater: number }
): Stage<TurnStore.TurnStore | DagStore.DagStore> => ({
  name: "summarize",
  run: (current, tokens) =>
    Effect.gen(function*() {
      if (tokens <= trigger) return unchanged(current)
      const stats = yield* manager.compact(sessionId, options)
      if (stats.turnsCompacted === 0 && stats.condensedSummariesCreated === 0) return unchanged(current)
      const dag = yield* DagStore.DagStore
      const turnStore = yield* TurnStore.TurnStore
      const [summaries, uncovered] = yield* Effect.all([dag.parentless(sessionId), turnStore.uncoveredTurns(sessionId)])
      // The turns as the stages before left them (masked, say), those still uncovered.
      const ids = new Set(uncovered.map((turn) => turn.id))
      return {
        context: { summaries, turns: current.turns.filter((turn) => turn.id !== undefined && ids.has(turn.id)) },
        counts: { summarized: stats.turnsCompacted }
      }
    }).pipe(
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning("Assembler.assemble: compaction failed", error.message), unchanged(current))
      )
    )
})
