/**
 * The tuning of the extraction and the budget it sets: the largest estimate
 * a reply may have.
 *
 * @internal
 */
import type { Provider } from "@precis/core"

/** Tuning knobs of the extraction; every field has a default. */
export interface Options {
  /** Share of the input a normal leaf reply may use, at most `targetTokens`. Default 0.3. */
  readonly normalRatio?: number | undefined
  /**
   * Share of the input a normal condensation may use, at most `targetTokens`. Default 0.6: its
   * material is summaries, what the leaves already chose, so it is cut less.
   */
  readonly condenseRatio?: number | undefined
  /** Lines at the start of a long tool output that need no fact to be kept. Default 5. */
  readonly headLines?: number | undefined
  /** Lines at the end of a long tool output that need no fact to be kept. Default 5. */
  readonly tailLines?: number | undefined
  /** Lines longer than this are split into sentences; longer sentences are cut. Default 400. */
  readonly maxSegmentChars?: number | undefined
  /** Share of the budget kept for changes of state (status updates, test results, commits), newest first. Default 0.25. */
  readonly stateShare?: number | undefined
  /** Share of the budget kept for the user's and the assistant's prose, the user's requests first, recent turns before older ones. Default 0.3. */
  readonly proseShare?: number | undefined
}

/** The defaults of {@link Options}. */
export const defaults = {
  normalRatio: 0.3,
  condenseRatio: 0.6,
  headLines: 5,
  tailLines: 5,
  maxSegmentChars: 400,
  stateShare: 0.25,
  proseShare: 0.3
} as const

/** `n`, or `fallback` when it is missing or not a finite number. */
export const finite = (n: number | undefined, fallback: number): number =>
  n === undefined || !Number.isFinite(n) ? fallback : n

/**
 * The largest estimate the reply may have: for a normal request
 * `min(targetTokens, ratio × input)` (`normalRatio` for a leaf,
 * `condenseRatio` for a condensation), which keeps it strictly shorter than
 * its input; for an aggressive one `targetTokens - 1`, strictly under the
 * target. At least 1.
 */
export const budget = (
  task: Provider.SummaryTask,
  inputTokens: number,
  options: Options = {}
): number => {
  const target = Math.floor(finite(task.targetTokens, 1))
  if (task.kind === "aggressive") return Math.max(1, target - 1)
  const given = task.kind === "condense"
    ? finite(options.condenseRatio, defaults.condenseRatio)
    : finite(options.normalRatio, defaults.normalRatio)
  const ratio = Math.min(1, Math.max(0, given))
  return Math.max(1, Math.min(target, Math.floor(inputTokens * ratio)))
}
