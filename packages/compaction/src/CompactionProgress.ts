/**
 * What a compaction reports while it works, beside the manager rather than
 * inside its options: each step's {@link ProgressEvent} goes to the
 * {@link Progress} reporter in context (none by default), so a caller that
 * shows a progress bar provides one around its call ({@link reporting}) and
 * the options stay plain data.
 *
 * @example
 * ```ts
 * import { CompactionManager, CompactionProgress } from "@precis/compaction"
 * import { Console, Effect } from "effect"
 * const run = Effect.flatMap(CompactionManager.CompactionManager, (manager) => manager.compact("session-1")).pipe(
 *   CompactionProgress.reporting((event) => Console.error(event._tag))
 * )
 * ```
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { Summary } from "@precis/core"

/**
 * What a compaction reports: `LeafPassStarted` (`chunks`, `turns`),
 * `LeafWritten` (`done` of `total`, the run's `tiers` so far),
 * `CondenseStarted` (`depth`, `groups`), `CondensedWritten` (a summary of
 * depth `depth + 1`: `done` of `total`, `tiers`).
 *
 * @since 0.1.0
 */
export type ProgressEvent = Data.TaggedEnum<{
  /** The leaf pass is about to summarize `turns` turns in `chunks` chunks. */
  LeafPassStarted: { readonly sessionId: string; readonly chunks: number; readonly turns: number }
  /** A leaf was written; `tiers` counts the summaries of this run so far. */
  LeafWritten: {
    readonly sessionId: string
    readonly done: number
    readonly total: number
    readonly tiers: Summary.TierCounts
  }
  /** `groups` groups of depth `depth` are about to be condensed. */
  CondenseStarted: { readonly sessionId: string; readonly depth: number; readonly groups: number }
  /** A condensed summary of depth `depth + 1` was written. */
  CondensedWritten: {
    readonly sessionId: string
    readonly depth: number
    readonly done: number
    readonly total: number
    readonly tiers: Summary.TierCounts
  }
}>

/**
 * Constructors and matchers of {@link ProgressEvent}.
 *
 * @since 0.1.0
 */
export const ProgressEvent = Data.taggedEnum<ProgressEvent>()

/**
 * Where a compaction's events go.
 *
 * @since 0.1.0
 */
export type Reporter = (event: ProgressEvent) => Effect.Effect<void>

/**
 * The reporter in context: by default none (every event dropped).
 *
 * @since 0.1.0
 */
export class Progress extends Context.Reference<Progress>()("@precis/compaction/Progress", {
  defaultValue: (): Reporter => () => Effect.void
}) {}

/**
 * Runs `self` (a `compact`, say) with its compaction events sent to `reporter`.
 *
 * @since 0.1.0
 */
export const reporting = (reporter: Reporter) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(self, Progress, reporter)
