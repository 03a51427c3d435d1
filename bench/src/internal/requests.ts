/**
 * What an agent pays for the requests it sends, one per turn: how often the
 * start of a request is not the previous request (a provider's prompt cache
 * is lost), the tokens sent, and the tokens a prompt cache would bill at its
 * reduced price (the prefix shared with the previous request).
 */
import { Layout } from "@precis/context"
import { TokenEstimator } from "@precis/core"

/** One request: its text, and how many of its first characters the next request should start with (the rest is volatile). */
export interface Request {
  readonly text: string
  readonly stable: number
}

/** The totals of a run of requests. */
export interface Totals {
  readonly requests: number
  /** Requests after the first that do not start with the previous request's stable part. */
  readonly prefixChanges: number
  /** The 0-based request indices where the prefix changed (the first 40). */
  readonly changedAt: ReadonlyArray<number>
  /** Tokens sent, every request whole. */
  readonly tokens: number
  /** Tokens of each request's prefix shared with the previous request, summed. */
  readonly sharedTokens: number
  /** The largest request. */
  readonly maxTokens: number
}

/** The price of a shared prefix against a full-price token (Anthropic bills cached reads at 0.1). */
export const cachedPrice = 0.1

/** A running tally: `add` each request in order, `totals` at the end. */
export const tally = (estimator: TokenEstimator.Service = TokenEstimator.approximate) => {
  let previous: Request | undefined
  let requests = 0
  let prefixChanges = 0
  const changedAt: Array<number> = []
  let tokens = 0
  let sharedTokens = 0
  let maxTokens = 0
  return {
    add: (request: Request): void => {
      const size = estimator.estimate(request.text)
      tokens += size
      maxTokens = Math.max(maxTokens, size)
      if (previous !== undefined) {
        sharedTokens += Layout.sharedTokens(estimator, previous.text, request.text)
        if (!request.text.startsWith(previous.text.slice(0, previous.stable))) {
          prefixChanges++
          if (changedAt.length < 40) changedAt.push(requests)
        }
      }
      previous = request
      requests++
    },
    totals: (): Totals => ({ requests, prefixChanges, changedAt, tokens, sharedTokens, maxTokens })
  }
}

/** The tokens of `totals` priced with a prompt cache: the shared prefixes at {@link cachedPrice}, the rest at 1. */
export const priced = (totals: Pick<Totals, "tokens" | "sharedTokens">): number =>
  totals.tokens - totals.sharedTokens + cachedPrice * totals.sharedTokens
