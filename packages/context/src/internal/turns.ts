/**
 * Pure helpers the condenser stages share: tool pairs, the first user
 * request, a turn's tokens and cutting the middle out of a turn.
 *
 * @internal
 */
import { ConversationTurn, SessionState, type TokenEstimator, Transcript } from "@precis/core"

/** A run of turns that goes together: a turn and the tool results right after it, `[start, end)`. */
export interface Unit {
  readonly start: number
  readonly end: number
}

/**
 * The turns cut into units: each turn that is not a tool result starts one,
 * and the tool results after it join it (a tool call and its results are never
 * separated). Tool results at the very start form a unit of their own.
 */
export const units = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>): Array<Unit> => {
  const out: Array<Unit> = []
  let start = 0
  for (let i = 1; i <= turns.length; i++) {
    if (i === turns.length || !ConversationTurn.isToolResult(turns[i]!)) {
      if (i > start) out.push({ start, end: i })
      start = i
    }
  }
  return out
}

/** The index of the first user request (`SessionState.requestOf`), or -1. */
export const firstRequest = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>): number =>
  turns.findIndex((turn) => SessionState.requestOf(turn) !== undefined)

/**
 * How a turn is named for drill-down: its short id (`SessionState.shortId`, a
 * UUID's first 8 characters, the id recall's `read` resolves), or its
 * position in the context.
 */
export const turnLabel = (turn: ConversationTurn.ConversationTurn, index: number): string =>
  turn.id === undefined ? `#${index + 1}` : SessionState.shortId(turn.id)

/**
 * The same turn with another content (id, role, timestamp and metadata kept),
 * not checked again: a turn read from a store written before its rules were
 * checked stays readable.
 */
export const withContent = (turn: ConversationTurn.ConversationTurn, content: string): ConversationTurn.ConversationTurn =>
  new ConversationTurn.ConversationTurn({
    role: turn.role,
    content,
    ...(turn.id === undefined ? {} : { id: turn.id }),
    ...(turn.sessionId === undefined ? {} : { sessionId: turn.sessionId }),
    ...(turn.timestamp === undefined ? {} : { timestamp: turn.timestamp }),
    ...(turn.metadata === undefined ? {} : { metadata: turn.metadata })
  }, true)

/**
 * `text` with its middle replaced by `marker(cutCodePoints)` so that
 * `fits(result)` holds, keeping as much of the head and the tail as possible
 * (half each); `undefined` when even the marker alone does not fit.
 */
export const cutMiddle = (
  text: string,
  fits: (text: string) => boolean,
  marker: (cut: number) => string
): string | undefined => {
  const points = Array.from(text)
  const build = (kept: number) => {
    const head = Math.ceil(kept / 2)
    return points.slice(0, head).join("") + marker(points.length - kept) +
      points.slice(points.length - (kept - head)).join("")
  }
  if (!fits(build(0))) return undefined
  // The largest number of kept code points that fits (binary search: more kept never gets smaller).
  let lo = 0
  let hi = points.length - 1
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (fits(build(mid))) lo = mid
    else hi = mid - 1
  }
  return build(lo)
}

/**
 * A turn cut in its middle to at most `maxTokens` (as counted by
 * `ActiveContext.turnTokens`), with a marker naming what was cut and the turn
 * to read in full; `undefined` when it cannot fit at all.
 */
export const cutTurn = (
  estimator: TokenEstimator.Service,
  turn: ConversationTurn.ConversationTurn,
  label: string,
  maxTokens: number
): ConversationTurn.ConversationTurn | undefined => {
  const content = cutMiddle(
    turn.content,
    (text) => estimator.estimate(Transcript.formatTurn({ ...turn, content: text })) <= maxTokens,
    (cut) => `\n[... ${cut} chars cut; full text: turn ${label} ...]\n`
  )
  return content === undefined ? undefined : withContent(turn, content)
}
