/**
 * The fresh tail: the newest turns of a context, kept as they are. A
 * compaction never summarizes them, and the Condenser's stages protect the
 * same newest part of an assembled context. Its two rules live here, for both:
 *
 * - where it starts ({@link start}): the newest turns, moved earlier so that
 *   no result in it answers a call left out of it (by call id) and so
 *   that calls still waiting for their results are not summarized without
 *   them ({@link inFlight}), and, with a token bound, no more tokens than that
 *   (moved later past tool results);
 * - how many tokens it holds for a context budget ({@link tokensFor}): a
 *   quarter of the budget, within 1,000..32,000 tokens.
 *
 * @since 0.1.0
 */
import { ConversationTurn, ToolUse } from "@precis/core"

/**
 * The fields of a turn the fresh tail reads: its role, and its metadata
 * (whether it is a tool result, `ConversationTurn.isToolResult`).
 *
 * @since 0.1.0
 */
export interface TurnLike {
  readonly role: string
  readonly metadata?: { readonly [key: string]: unknown } | undefined
}

/**
 * A token bound on the fresh tail: its most tokens, and each turn's tokens.
 *
 * @since 0.1.0
 */
export interface TokenBound<A> {
  readonly max: number
  readonly tokens: (turn: A) => number
}

/**
 * Where the tool traffic still in flight at the end of `turns` starts: in the
 * trailing run of turns that make calls or answer them, the first call that
 * has no answer in it yet (its result has not arrived); `turns.length` when
 * none waits. A run ends at a turn that neither calls nor answers, so a call
 * whose result never comes holds nothing back once the conversation goes on;
 * the exchanges of the run done before it are not held back either.
 *
 * @example
 * ```ts
 * import { FreshTail } from "@precis/compaction"
 * const call = { role: "assistant", metadata: { toolCalls: [{ id: "c1", name: "Read" }] } }
 * FreshTail.inFlight([{ role: "user" }, call]) // 1: the call waits for its result
 * FreshTail.inFlight([{ role: "user" }, call, { role: "tool", metadata: { toolCallId: "c1" } }]) // 3
 * ```
 * @since 0.1.0
 */
export const inFlight = <A extends TurnLike>(turns: ReadonlyArray<A>): number => {
  let runStart = turns.length
  while (runStart > 0) {
    const turn = turns[runStart - 1]!
    if (ToolUse.callIds(turn).length === 0 && ToolUse.answeredIds(turn).length === 0) break
    runStart--
  }
  // A call of the run waits when no result of the run pairs with it (`ToolUse.pair`: by id, the nearest
  // first); what the run holds before the first such call is done, and no more is held back.
  const waiting = ToolUse.pair(turns.slice(runStart)).open[0]
  return waiting === undefined ? turns.length : runStart + waiting.call
}

/**
 * The index of the first fresh-tail turn among `turns` (oldest first): the
 * last `count` turns, moved earlier while a result in the tail answers a call
 * before it (by call id: parallel calls written a turn each keep their
 * results; a result without ids keeps the turn before it), and earlier still
 * to the calls in flight at the end ({@link inFlight}). With a token
 * `bound`, the tail is also at most `bound.max` tokens: the newest turns that
 * fit, moved later past the results whose calls would be left behind (so
 * again a pair is never split); the later of the two starts wins, but never
 * past the calls in flight.
 * `turns.length` means an empty tail.
 *
 * @example
 * ```ts
 * import { FreshTail } from "@precis/compaction"
 * FreshTail.start([{ role: "user" }, { role: "assistant" }, { role: "tool" }], 1) // 1: the call joins its result
 * ```
 * @since 0.1.0
 */
export const start = <A extends TurnLike>(turns: ReadonlyArray<A>, count: number, bound?: TokenBound<A>): number => {
  const splits = pairSplits(turns)
  // Earlier until no result in the tail answers a call before it (by id, else the turn before it).
  const earlier = (from: number): number => {
    let at = from
    while (at > 0 && at < turns.length) {
      if (splits[at]! < at) at = splits[at]!
      else if (ConversationTurn.isToolResult(turns[at]!)) at--
      else break
    }
    return at
  }
  const waiting = inFlight(turns)
  const byCount = earlier(Math.min(Math.max(0, turns.length - count), waiting))
  if (bound === undefined) return byCount
  let byTokens = turns.length
  let total = 0
  while (byTokens > 0 && total + bound.tokens(turns[byTokens - 1]!) <= bound.max) {
    total += bound.tokens(turns[byTokens - 1]!)
    byTokens--
  }
  // Later past the results whose calls would be left behind.
  while (byTokens < turns.length && (ConversationTurn.isToolResult(turns[byTokens]!) || splits[byTokens]! < byTokens)) byTokens++
  return Math.min(Math.max(byCount, byTokens), earlier(waiting))
}

/**
 * For each index `i` of `turns`, the earliest turn before `i` whose call a
 * result at `i` or after answers (`ToolUse.pair`: each result with the
 * nearest call of its id still waiting, so an id reused later in a session
 * holds back nothing before its own call); `i` itself when none: a tail
 * starting at `i` splits a pair when this is below `i`.
 */
const pairSplits = <A extends TurnLike>(turns: ReadonlyArray<A>): ReadonlyArray<number> => {
  const callOf = new Array<number>(turns.length).fill(turns.length)
  for (const { call, result } of ToolUse.pair(turns).pairs) callOf[result] = Math.min(callOf[result]!, call)
  const out = new Array<number>(turns.length + 1).fill(turns.length)
  for (let i = turns.length - 1; i >= 0; i--) out[i] = Math.min(out[i + 1]!, i, callOf[i]!)
  return out
}

/**
 * The results among `turns` paired with a call while another call of the
 * same id still waited (`ToolUse.Pair.ambiguous`): said by the compaction,
 * which pairs them with the nearest.
 *
 * @since 0.1.0
 */
export const ambiguousPairs = <A extends TurnLike>(turns: ReadonlyArray<A>): ReadonlyArray<ToolUse.Pair> =>
  ToolUse.pair(turns).pairs.filter((pair) => pair.ambiguous)

/**
 * The fresh tail's tokens for a context budget (and the newest part of the
 * context the Condenser's mask stage protects): a quarter of it, clamped to
 * 1,000..32,000 tokens, and never more than the budget.
 *
 * @example
 * ```ts
 * import { FreshTail } from "@precis/compaction"
 * FreshTail.tokensFor(32_000) // 8000
 * FreshTail.tokensFor(2_000) // 1000
 * ```
 * @since 0.1.0
 */
export const tokensFor = (budget: number): number =>
  Math.min(Math.floor(budget), Math.max(1_000, Math.min(32_000, Math.floor(budget / 4))))
