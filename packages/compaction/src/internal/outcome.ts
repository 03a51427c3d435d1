/**
 * What a compaction tells its caller when it ends: what it did.
 * `CompactionManager` exports the stats; they are declared here, once, so
 * that the engine's modules name them without importing the manager.
 *
 * @internal
 */
import { Summary } from "@precis/core"

/**
 * What one compaction did: `leafSummariesCreated`, `condensedSummariesCreated`,
 * `turnsCompacted` (turns newly covered by leaves) and `tiersUsed` (the tiers
 * of the summaries this run created).
 */
export interface CompactionStats {
  readonly leafSummariesCreated: number
  readonly condensedSummariesCreated: number
  /** Turns newly covered by leaves. */
  readonly turnsCompacted: number
  /** The tiers of the summaries this run created. */
  readonly tiersUsed: Summary.TierCounts
}

/**
 * What `CompactionManager.compactAll` did to one session (the sum of its
 * runs, when new turns gave it work again).
 */
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

/**
 * What a redo of fallback summaries did (`CompactionManager.redoFallbacks`):
 * the fallbacks `redone` by a model tier, those `stillFallback` (their redo
 * fell back again: kept as they were), and the `tiersUsed` by the new
 * summaries, kept or not.
 */
export interface RedoStats {
  /** Fallback summaries rewritten by a model tier. */
  readonly redone: number
  /** Fallback summaries whose redo fell back again (kept as they were). */
  readonly stillFallback: number
  /** The tiers of the new summaries, the ones kept and the ones not. */
  readonly tiersUsed: Summary.TierCounts
}

/** No work done. */
export const noStats: CompactionStats = {
  leafSummariesCreated: 0,
  condensedSummariesCreated: 0,
  turnsCompacted: 0,
  tiersUsed: Summary.emptyTierCounts
}

/** The work of two runs (one session's batches, or a worker's sessions). */
export const addStats = (a: CompactionStats, b: CompactionStats): CompactionStats => ({
  leafSummariesCreated: a.leafSummariesCreated + b.leafSummariesCreated,
  condensedSummariesCreated: a.condensedSummariesCreated + b.condensedSummariesCreated,
  turnsCompacted: a.turnsCompacted + b.turnsCompacted,
  tiersUsed: {
    normal: a.tiersUsed.normal + b.tiersUsed.normal,
    aggressive: a.tiersUsed.aggressive + b.tiersUsed.aggressive,
    fallback: a.tiersUsed.fallback + b.tiersUsed.fallback
  }
})
