/**
 * The redo of fallback summaries: each summarized again, lowest depth first
 * (a leaf from its source turns after the leaf before it, a condensed summary
 * from its children), and rewritten in place when a model tier wrote it.
 *
 * @internal
 */
import { Summarizer, type SummaryRecord } from "@precis/core"
import { DagStore, type StoreError } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as CompactionOptions from "../CompactionOptions.js"
import type { ProviderUnavailableError } from "../CompactionError.js"
import type { RedoStats } from "./outcome.js"
import * as Step from "./step.js"

/** Redoes the session's fallback summaries (the caller holds its lock). */
export const redoFallbacks = (
  sessionId: string,
  options: CompactionOptions.ResolvedOptions
): Effect.Effect<RedoStats, StoreError.StoreError | ProviderUnavailableError, DagStore.DagStore | Summarizer.Summarizer> =>
  Effect.gen(function*() {
    const dag = yield* DagStore.DagStore
    const summarizer = yield* Summarizer.Summarizer
    const run = yield* Step.makeRun(sessionId, options)
    let redone = 0
    let stillFallback = 0
    // Lowest depth first, so a condensed summary is redone from children already redone.
    const all = yield* dag.summaries(sessionId)
    const leaves = all.filter((s) => s.depth === 0)
    // The text of each leaf as it is now: a redone leaf is the prior summary of the next.
    const leafText = new Map(leaves.map((leaf) => [leaf.id, leaf.content]))
    const summarizeLeaf = (old: SummaryRecord.SummaryRecord) =>
      Effect.flatMap(dag.sourceTurns(old.id), (turns) => {
        const before = leaves[leaves.findIndex((leaf) => leaf.id === old.id) - 1]
        return summarizer.summarizeTurns(turns, {
          priorSummary: before === undefined ? undefined : leafText.get(before.id),
          targetTokens: options.leafTargetTokens
        })
      })
    const fallbacks = all.filter((s) => s.tier === "fallback").sort((a, b) => a.depth - b.depth)
    for (const old of fallbacks) {
      // A condensed summary is redone from its children.
      const children = old.depth === 0 ? undefined : yield* dag.children(old.id)
      yield* Step.step(run, {
        summarize: children === undefined
          ? summarizeLeaf(old)
          : summarizer.summarizeSummaries(children, { targetTokens: options.condenseTargetTokens }),
        targetTokens: old.depth === 0 ? options.leafTargetTokens : options.condenseTargetTokens,
        // A redo that fell back again keeps the summary it had.
        write: (summary) =>
          summary.tier === "fallback"
            ? Effect.sync(() => {
              stillFallback++
              return false
            })
            : Effect.map(
              dag.rewriteSummary(old.id, {
                content: summary.text,
                tier: summary.tier,
                tokenEstimate: summary.outputTokens,
                alsoKeys: summary.alsoKeys
              }),
              () => {
                if (old.depth === 0) leafText.set(old.id, summary.text)
                redone++
                return true
              }
            )
      })
    }
    return { redone, stillFallback, tiersUsed: yield* Ref.get(run.tiers) }
  })
