/**
 * The window stage: a hard token cap, the safety net after the other stages.
 *
 * @internal
 */
import { ActiveContext } from "@precis/compaction"
import { type ConversationTurn, SessionState, SummaryRecord, TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Layout from "../Layout.js"
import { type Stage, unchanged } from "./stage.js"
import { cutMiddle, cutTurn, firstRequest, turnLabel, type Unit, units } from "./turns.js"

/** What the window fits: summaries and turns. */
interface Windowable {
  readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
}

/** What the window keeps, and how much it cut. */
export interface Windowed {
  readonly summaries: Array<SummaryRecord.SummaryRecord>
  readonly turns: Array<ConversationTurn.ConversationTurn>
  /** Turns and summaries dropped. */
  readonly dropped: number
  /** Turns and summaries cut in their middle. */
  readonly trimmed: number
}

/**
 * Fits a context into `maxTokens` as it is sent: as `Layout.render`
 * writes it, the summaries' header lines and the separators included, which
 * `ActiveContext.count` (what {@link fit} measures) leaves out. {@link fit}
 * runs again with the excess taken off what it kept until the text fits.
 */
export const window = (
  estimator: TokenEstimator.Service,
  context: Windowable,
  maxTokens: number
): Windowed => {
  let target = maxTokens
  let out = fit(estimator, context, target)
  for (let round = 0; round < 4; round++) {
    const over = estimator.estimate(Layout.render(out)) - maxTokens
    if (over <= 0 || target <= 0) break
    // What it kept, as counted, less the excess: the next fit keeps less.
    target = Math.max(0, Math.min(target, ActiveContext.count(estimator, out)) - over)
    out = fit(estimator, context, target)
  }
  return out
}

/**
 * Fits a context into `maxTokens` (as `ActiveContext.count` counts it), in
 * this order of priority: the newest unit (a turn with its tool results), the
 * unit of the first user request, the summaries from the newest back, then
 * the newest units back to the first that does not fit (so the middle goes).
 * A unit too large for what is left has its largest turns cut in the middle;
 * a summary too large is cut the same way and the older ones dropped. A unit
 * that cannot fit even cut is dropped whole, never split.
 */
const fit = (
  estimator: TokenEstimator.Service,
  context: Windowable,
  maxTokens: number
): Windowed => {
  const { summaries, turns } = context
  const sizes = turns.map((turn) => ActiveContext.turnTokens(estimator, turn))
  const all = units(turns)
  let left = Math.max(0, Math.floor(maxTokens))
  let trimmed = 0
  const kept = new Map<number, ConversationTurn.ConversationTurn>()

  // Places a unit whole when it fits; otherwise cuts its largest turns until it does.
  const place = (unit: Unit, allowCut: boolean): boolean => {
    let total = 0
    for (let i = unit.start; i < unit.end; i++) total += sizes[i]!
    if (total <= left) {
      for (let i = unit.start; i < unit.end; i++) kept.set(i, turns[i]!)
      left -= total
      return true
    }
    if (!allowCut) return false
    const current = new Map<number, { turn: ConversationTurn.ConversationTurn; size: number }>()
    for (let i = unit.start; i < unit.end; i++) current.set(i, { turn: turns[i]!, size: sizes[i]! })
    const cutAlready = new Set<number>()
    while (total > left) {
      let largest = -1
      for (const [i, entry] of current) {
        if (!cutAlready.has(i) && (largest < 0 || entry.size > current.get(largest)!.size)) largest = i
      }
      if (largest < 0) return false
      const entry = current.get(largest)!
      cutAlready.add(largest)
      const target = entry.size - (total - left)
      const cut = target > 0 ? cutTurn(estimator, entry.turn, turnLabel(entry.turn, largest), target) : undefined
      if (cut === undefined) continue
      const size = ActiveContext.turnTokens(estimator, cut)
      total += size - entry.size
      current.set(largest, { turn: cut, size })
    }
    for (const [i, entry] of current) {
      kept.set(i, entry.turn)
      if (entry.turn !== turns[i]) trimmed++
    }
    left -= total
    return true
  }

  const newest = all.length > 0 ? all[all.length - 1]! : undefined
  if (newest !== undefined) place(newest, true)
  const first = firstRequest(turns)
  const firstUnit = all.find((unit) => first >= unit.start && first < unit.end)
  if (firstUnit !== undefined && firstUnit !== newest) place(firstUnit, true)

  const fitted = fitSummaries(estimator, summaries, left)
  left = fitted.left
  trimmed += fitted.trimmed

  for (let u = all.length - 2; u >= 0; u--) {
    const unit = all[u]!
    if (unit === firstUnit) continue
    if (!place(unit, false)) break
  }

  const keptTurns = turns.flatMap((_, i) => {
    const turn = kept.get(i)
    return turn === undefined ? [] : [turn]
  })
  return {
    summaries: fitted.kept,
    turns: keptTurns,
    dropped: fitted.dropped + turns.length - keptTurns.length,
    trimmed
  }
}

// The summaries from the newest back while they fit in `room` tokens; the first that does not is cut in its
// middle (when anything of it fits) and the older ones dropped.
const fitSummaries = (
  estimator: TokenEstimator.Service,
  summaries: ReadonlyArray<SummaryRecord.SummaryRecord>,
  room: number
) => {
  const kept: Array<SummaryRecord.SummaryRecord> = []
  let left = room
  let dropped = 0
  let trimmed = 0
  for (let i = summaries.length - 1; i >= 0; i--) {
    const summary = summaries[i]!
    const size = ActiveContext.summaryTokens(estimator, summary)
    if (size <= left) {
      kept.unshift(summary)
      left -= size
      continue
    }
    const content = left > 0
      ? cutMiddle(
        summary.content,
        (text) => estimator.estimate(text) <= left,
        (cut) => `\n[... ${cut} chars cut; full text: summary ${SessionState.shortId(summary.id)} ...]\n`
      )
      : undefined
    if (content !== undefined) {
      const tokenEstimate = estimator.estimate(content)
      kept.unshift(SummaryRecord.make({ ...summary, content, tokenEstimate }))
      left -= tokenEstimate
      trimmed++
    }
    dropped += content === undefined ? i + 1 : i
    break
  }
  return { kept, left, dropped, trimmed }
}

/** The window stage: over `maxTokens`, {@link window}; after it the context holds at most `maxTokens`. */
export const stage = (options: { readonly maxTokens: number }): Stage => ({
  name: "window",
  run: (context, tokens) =>
    Effect.map(TokenEstimator.TokenEstimator, (estimator) => {
      // Within the budget as counted and as sent (summary headers and separators included).
      if (tokens <= options.maxTokens && estimator.estimate(Layout.render(context)) <= options.maxTokens) {
        return unchanged(context)
      }
      const out = window(estimator, context, options.maxTokens)
      return { context: { summaries: out.summaries, turns: out.turns }, counts: { dropped: out.dropped, trimmed: out.trimmed } }
    })
})
