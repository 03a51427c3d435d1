/**
 * When to compact, pure: where an active context stands against a budget, and
 * whether a compaction would write anything at all. How a pass cuts its work
 * is `chunking.ts`'s.
 *
 * @internal
 */
import type { ConversationTurn, TokenEstimator } from "@precis/core"
import * as ActiveContext from "../ActiveContext.js"
import type * as CompactionOptions from "../CompactionOptions.js"
import { start as tailStart, type TokenBound, type TurnLike } from "../FreshTail.js"
import { nextToCondense } from "./chunking.js"

/** The token bound of a fresh tail of at most `maxTokens` (none without), turns counted as the active context counts them. */
export const tailBound = (
  estimator: TokenEstimator.Service,
  maxTokens: number | undefined
): TokenBound<ConversationTurn.ConversationTurn> | undefined =>
  maxTokens === undefined
    ? undefined
    : { max: maxTokens, tokens: (turn) => ActiveContext.turnTokens(estimator, turn) }

/**
 * Where an active context stands against a budget (the figures of
 * `CompactionManager.CompactionStatus`). The trigger: compact when the active context's tokens strictly exceed
 * `threshold * budget` (exactly at the limit is not over) and there is
 * something to compact (turns outside the fresh tail, or a depth with at least
 * `minFanIn` parentless summaries), so it stops firing once compaction has done
 * all it can.
 */
export const status = <A extends TurnLike>(
  active: {
    readonly tokens: number
    readonly turns: ReadonlyArray<A>
    readonly summaries: ReadonlyArray<{ readonly depth: number }>
  },
  budget: number,
  options: { readonly threshold: number; readonly freshTailTurns: number; readonly minFanIn: number },
  bound?: TokenBound<A>
) => {
  const limit = options.threshold * budget
  const evictableTurns = tailStart(active.turns, options.freshTailTurns, bound)
  const condensable = nextToCondense(active.summaries, options.minFanIn) !== undefined
  return {
    activeTokens: active.tokens,
    limit,
    evictableTurns,
    condensable,
    shouldCompact: active.tokens > limit && (evictableTurns > 0 || condensable)
  }
}

/**
 * Whether a compaction of a session with these uncovered turns and parentless
 * summaries would write anything (as {@link status} counts it, without a budget).
 */
export const hasWork = (
  estimator: TokenEstimator.Service,
  uncovered: ReadonlyArray<ConversationTurn.ConversationTurn>,
  parentless: ReadonlyArray<{ readonly depth: number }>,
  options: CompactionOptions.ResolvedOptions
): boolean =>
  tailStart(uncovered, options.freshTailTurns, tailBound(estimator, options.freshTailTokens)) > 0 ||
  nextToCondense(parentless, options.minFanIn) !== undefined
