/**
 * What a compaction tells its caller: its progress while it works, what it
 * did, and the failure that stops it. `CompactionManager` exports them; they
 * live here so that the options and the engine's modules can name them
 * without importing the manager.
 *
 * @internal
 */
import type { Summary } from "@precis/core"
import * as Data from "effect/Data"

/** What a compaction reports while it works, for a progress bar. */
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

/** Constructors and matchers of {@link ProgressEvent}. */
export const ProgressEvent = Data.taggedEnum<ProgressEvent>()

/**
 * The provider failed in a way that will not heal (refused credentials, an
 * unknown model, a server that refuses connections: see
 * `ProviderError.isPermanent`), so compaction stopped instead of storing a
 * fallback truncation for every chunk. What was written before stays; a rerun
 * once the configuration is fixed goes on from there. `reason` is the last
 * error's tag and `detail` its message.
 */
export class ProviderUnavailableError extends Data.TaggedError("ProviderUnavailableError")<{
  readonly sessionId: string
  readonly reason: string
  readonly detail: string
  /** Summaries written by this run before it stopped. */
  readonly written: number
}> {
  override get message(): string {
    return `compaction of session ${this.sessionId} stopped: the provider fails in a way that will not heal ` +
      `(${this.reason}: ${this.detail}); ${this.written} summaries were written before it stopped`
  }
}

/** What one compaction did. */
export interface CompactionStats {
  readonly leafSummariesCreated: number
  readonly condensedSummariesCreated: number
  /** Turns newly covered by leaves. */
  readonly turnsCompacted: number
  /** The tiers of the summaries this run created. */
  readonly tiersUsed: Summary.TierCounts
}

/** What the worker loop did to one session (the sum of its runs, when new turns gave it work again). */
export interface SessionCompactionStats extends CompactionStats {
  readonly sessionId: string
}

/**
 * What one worker loop did: the sessions it compacted (in the order it first
 * finished each), the totals, and how often it found a session with work held
 * by another worker and went on to the next.
 */
export interface CompactAllStats {
  readonly sessions: ReadonlyArray<SessionCompactionStats>
  readonly totals: CompactionStats
  /** Times a session with work was skipped because another holder had its lease. */
  readonly skippedLocked: number
}

/** What a redo of fallback summaries did. */
export interface RedoStats {
  /** Fallback summaries rewritten by a model tier. */
  readonly redone: number
  /** Fallback summaries whose redo fell back again (kept as they were). */
  readonly stillFallback: number
  /** The tiers of the new summaries, the ones kept and the ones not. */
  readonly tiersUsed: Summary.TierCounts
}
