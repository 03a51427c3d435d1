/**
 * The chosen text fitted to the budget: characters stand in for tokens while
 * choosing, the estimator has the last word (over, choose again under a
 * smaller budget; under, add what fits in the slack); when nothing fits
 * whole, the best segment cut to the budget.
 *
 * @internal
 */
import { OutputDigest, type TokenEstimator } from "@precis/core"
import { type Coverage, worth } from "./coverage.js"
import { GAP_CHARS, render, shortPrefix } from "./render.js"
import type { Parsed } from "./segments.js"
import type { Greedy } from "./select.js"

const MAX_REFITS = 16

/** A text and its estimate. */
export interface Fitted {
  readonly text: string
  readonly outputTokens: number
}

/**
 * The rendered choice of `choose` (a selection under a budget in characters)
 * whose estimate is within `limit` tokens, `charsPerToken` converting between
 * them; `undefined` when no choice fits or the text is empty.
 */
export const fit = (
  parsed: Parsed,
  limit: number,
  charsPerToken: number,
  estimator: TokenEstimator.Service,
  choose: (budget: number) => Greedy
): Fitted | undefined => {
  let budgetChars = limit * charsPerToken
  let selection = choose(budgetChars)
  let text = render(parsed, selection.chosen)
  let textTokens = estimator.estimate(text)
  for (let round = 0; round < MAX_REFITS; round++) {
    if (textTokens > limit) {
      // Over: choose again under a budget smaller by the excess.
      budgetChars -= (textTokens - limit) * charsPerToken + GAP_CHARS
      if (budgetChars <= 0) break
      selection = choose(budgetChars)
    } else {
      // Under: add what still fits in the slack, if anything does.
      const slack = (limit - textTokens) * charsPerToken
      if (slack < GAP_CHARS || selection.fill(slack) === 0) break
    }
    text = render(parsed, selection.chosen)
    textTokens = estimator.estimate(text)
  }
  return text.length > 0 && textTokens <= limit ? { text, outputTokens: textTokens } : undefined
}

/**
 * When nothing fits whole: the candidate worth the most per character, with
 * its turn prefix, cut to `limit` tokens at a word or path boundary, never
 * inside one.
 */
export const bestCut = (
  parsed: Parsed,
  candidates: ReadonlyArray<number>,
  coverage: Coverage,
  limit: number,
  estimator: TokenEstimator.Service
): Fitted => {
  const { lines, segments } = parsed
  let best = candidates[0]!
  let bestValue = -Infinity
  for (const s of candidates) {
    const value = worth(coverage, s) / (segments[s]!.text.length + 1)
    if (value > bestValue) {
      best = s
      bestValue = value
    }
  }
  const bestSegment = segments[best]!
  const bestLine = lines[bestSegment.line]!
  const single = bestLine.prefix === undefined
    ? bestSegment.text
    : `${shortPrefix(bestLine.prefix, undefined)} ${bestSegment.text}`
  const cutTo = (tokens: number) => {
    const head = estimator.truncate(single, tokens).trimEnd()
    return head.length >= single.length ? head : OutputDigest.clip(single, head.length)
  }
  let cut = cutTo(limit)
  for (let tokens = limit - 1; tokens >= 1 && estimator.estimate(cut) > limit; tokens--) cut = cutTo(tokens)
  return { text: cut, outputTokens: estimator.estimate(cut) }
}
