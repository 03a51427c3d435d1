/**
 * The one step behind every summary a compaction writes (a leaf, a condensed
 * summary, a fallback redone): summarize, stop on a provider that will not
 * heal, append the Also line, write, then count the tier and report progress.
 *
 * @internal
 */
import { AlsoLine, FactCheck, Summary, TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as CompactionOptions from "../CompactionOptions.js"
import * as CompactionProgress from "../CompactionProgress.js"
import { ProviderUnavailableError } from "../CompactionError.js"

/** What the steps of one run share: the session, the options, the reporter, and the summaries and tiers so far. */
export interface Run {
  readonly sessionId: string
  readonly options: CompactionOptions.ResolvedOptions
  /** The `CompactionProgress.Progress` in context when the run started. */
  readonly report: CompactionProgress.Reporter
  /** Summaries this run has written (stored or rewritten). */
  readonly written: Ref.Ref<number>
  /** The tiers of the summaries this run has made, kept or not. */
  readonly tiers: Ref.Ref<Summary.TierCounts>
}

/** A fresh run of a session, reporting to the `CompactionProgress.Progress` in context. */
export const makeRun = (sessionId: string, options: CompactionOptions.ResolvedOptions): Effect.Effect<Run> =>
  Effect.map(
    Effect.all([Ref.make(0), Ref.make(Summary.emptyTierCounts), CompactionProgress.Progress]),
    ([written, tiers, report]) => ({ sessionId, options, report, written, tiers })
  )

/** One summary to make and write. */
export interface Step<E, R> {
  /** Makes the summary (the `Summarizer`, after reading its material). */
  readonly summarize: Effect.Effect<Summary.Summary, E, R>
  /** The summary's target tokens: the Also line never passes them. */
  readonly targetTokens: number
  /** Writes the summary; `false` when it keeps it out of the store (a redo that fell back again). */
  readonly write: (summary: Summary.Summary) => Effect.Effect<boolean, E, R>
  /** The event to report once it is counted, from the run's tiers so far. */
  readonly progress?: ((tiers: Summary.TierCounts) => Effect.Effect<CompactionProgress.ProgressEvent>) | undefined
}

/**
 * Runs one {@link Step}: a summary that fell back because the provider fails
 * permanently is not written, the run stops with a `ProviderUnavailableError`
 * instead. Returns the summary as written (its Also line included).
 */
export const step = <E, R>(run: Run, step: Step<E, R>): Effect.Effect<Summary.Summary, E | ProviderUnavailableError, R> =>
  Effect.gen(function*() {
    const made = yield* step.summarize
    if (made.failedPermanently) {
      const last = made.escalations[made.escalations.length - 1]!
      return yield* new ProviderUnavailableError({
        sessionId: run.sessionId,
        reason: last.reason,
        detail: last.message,
        written: yield* Ref.get(run.written)
      })
    }
    const summary = run.options.alsoLine ? withAlso(yield* TokenEstimator.TokenEstimator, made, step) : made
    if (yield* step.write(summary)) yield* Ref.update(run.written, (n) => n + 1)
    const tiers = yield* Ref.updateAndGet(run.tiers, (counts) => Summary.incrementTier(counts, summary.tier))
    if (step.progress !== undefined) yield* run.report(yield* step.progress(tiers))
    return summary
  })

// The Also line: the most important keys the summary dropped, as many as fit within its target; those it
// lists are no longer dropped. Its keys are kept with the summary as data (`alsoKeys`).
const withAlso = <E, R>(estimator: TokenEstimator.Service, summary: Summary.Summary, step: Step<E, R>): Summary.Summary => {
  // Even with nothing dropped, Also lines the summary already holds (its children's) merge into one.
  const { keys, text } = AlsoLine.append(summary.text, summary.dropped, estimator, { maxTokens: step.targetTokens })
  return text === summary.text && keys.length === 0 ? summary : new Summary.Summary({
    ...summary,
    text,
    outputTokens: text === summary.text ? summary.outputTokens : estimator.estimate(text),
    dropped: text === summary.text ? summary.dropped : FactCheck.checkKeys(summary.dropped, text).dropped,
    alsoKeys: keys
  }, true)
}
