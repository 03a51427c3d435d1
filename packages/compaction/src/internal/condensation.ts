/**
 * Condensation: from the lowest depth up, while a depth holds at least
 * `minFanIn` parentless summaries, they are condensed in conversation order in
 * groups of `minFanIn..maxFanIn` (`chunking.ts`), the groups of one depth
 * concurrently.
 *
 * @internal
 */
import { Summarizer } from "@precis/core"
import { DagStore, type StoreError } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Chunking from "./chunking.js"
import { ProgressEvent } from "../CompactionProgress.js"
import type { ProviderUnavailableError } from "../CompactionError.js"
import * as Step from "./step.js"

/** Condenses until no depth has enough parentless siblings; returns the summaries written. */
export const condensation = (
  run: Step.Run
): Effect.Effect<number, StoreError.StoreError | ProviderUnavailableError, DagStore.DagStore | Summarizer.Summarizer> =>
  Effect.gen(function*() {
    const dag = yield* DagStore.DagStore
    const summarizer = yield* Summarizer.Summarizer
    const { options, sessionId } = run
    let condensed = 0
    while (true) {
      const next = Chunking.nextToCondense(yield* dag.parentless(sessionId), options.minFanIn)
      if (next === undefined) break
      const { depth, siblings } = next
      const groups = Chunking.condenseGroups(siblings, options.minFanIn, options.maxFanIn)
      yield* run.report(ProgressEvent.CondenseStarted({ sessionId, depth, groups: groups.length }))
      const done = yield* Ref.make(0)
      yield* Effect.forEach(
        groups,
        (children) =>
          Step.step(run, {
            summarize: summarizer.summarizeSummaries(children, { targetTokens: options.condenseTargetTokens }),
            targetTokens: options.condenseTargetTokens,
            write: (summary) =>
              Effect.as(
                dag.insertCondensed({
                  sessionId,
                  content: summary.text,
                  tier: summary.tier,
                  tokenEstimate: summary.outputTokens,
                  alsoKeys: summary.alsoKeys,
                  childIds: children.map((child) => child.id)
                }),
                true
              ),
            progress: (tiers) =>
              Effect.map(
                Ref.updateAndGet(done, (n) => n + 1),
                (n) => ProgressEvent.CondensedWritten({ sessionId, depth, done: n, total: groups.length, tiers })
              )
          }).pipe(
            Effect.withSpan("CompactionManager.condense", {
              attributes: { "precis.session_id": sessionId, "precis.depth": depth, "precis.children": children.length }
            })
          ),
        { concurrency: options.concurrency, discard: true }
      )
      condensed += groups.length
    }
    return condensed
  })
