/**
 * One compaction of a session: a leaf pass, condensation, and with a
 * `budget`, a second leaf pass down to the low-water mark; then the stored
 * session state brought up to date.
 *
 * @internal
 */
import { type Summarizer, TokenEstimator } from "@precis/core"
import type { DagStore, StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as ActiveContext from "../ActiveContext.js"
import type * as CompactionOptions from "../CompactionOptions.js"
import { condensation } from "./condensation.js"
import { leafPass } from "./leafPass.js"
import type { ProviderUnavailableError } from "../CompactionError.js"
import type { CompactionStats } from "./outcome.js"
import * as Step from "./step.js"

/** Compacts a session (the caller holds its lock) and returns what it did. */
export const compactSession = (
  sessionId: string,
  options: CompactionOptions.ResolvedOptions
): Effect.Effect<
  CompactionStats,
  StoreError.StoreError | ProviderUnavailableError,
  TurnStore.TurnStore | DagStore.DagStore | Summarizer.Summarizer
> =>
  Effect.gen(function*() {
    const run = yield* Step.makeRun(sessionId, options)
    const first = yield* leafPass(run, options.freshTailTokens, options.maxTurns)
    let condensed = yield* condensation(run)
    let leaves = first.leaves
    let turnsCompacted = first.turns
    // The low-water mark: with a budget, a second pass shrinks the tail to what the summaries leave of it.
    const turnsLeft = options.maxTurns === undefined ? undefined : options.maxTurns - first.turns
    if (options.budget !== undefined && turnsLeft !== 0) {
      const estimator = yield* TokenEstimator.TokenEstimator
      const goal = options.lowWater * options.budget
      const active = yield* ActiveContext.load(sessionId)
      if (active.tokens > goal) {
        const summaryTokens = active.summaries.reduce((n, s) => n + ActiveContext.summaryTokens(estimator, s), 0)
        const tailTokens = Math.max(0, Math.floor(goal - summaryTokens))
        const second = yield* leafPass(run, Math.min(tailTokens, options.freshTailTokens ?? tailTokens), turnsLeft)
        if (second.leaves > 0) condensed += yield* condensation(run)
        leaves += second.leaves
        turnsCompacted += second.turns
      }
    }

    // A run that summarized turns brings the stored session state up to date (to the last turn its first
    // leaf pass read, without reading the turns again), for readers that cannot write.
    if (turnsCompacted > 0) yield* ActiveContext.refreshState(sessionId, first.read)

    const stats = {
      leafSummariesCreated: leaves,
      condensedSummariesCreated: condensed,
      turnsCompacted,
      tiersUsed: yield* Ref.get(run.tiers)
    }
    yield* Effect.annotateCurrentSpan({
      "precis.leaves": stats.leafSummariesCreated,
      "precis.condensed": stats.condensedSummariesCreated,
      "precis.turns_compacted": stats.turnsCompacted
    })
    return stats
  })
