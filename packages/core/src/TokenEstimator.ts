/**
 * Token estimation, pluggable as a layer.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/**
 * @since 0.1.0
 */
export interface Service {
  /** Estimated tokens of `text` (at least 1). */
  readonly estimate: (text: string) => number
  /** The longest prefix of `text` that fits in `maxTokens`; never splits a surrogate pair. */
  readonly truncate: (text: string, maxTokens: number) => string
}

const CHARS_PER_TOKEN = 4

/**
 * Number of Unicode code points in `text` (a surrogate pair counts once).
 *
 * @since 0.1.0
 */
export const codePointLength = (text: string): number => {
  let pairs = 0
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++
        i++
      }
    }
  }
  return text.length - pairs
}

/**
 * The first `count` code points of `text` (all of it when shorter).
 *
 * @since 0.1.0
 */
export const takeCodePoints = (text: string, count: number): string => {
  const n = Math.max(0, Math.floor(count))
  // Fast path: the string has at most `n` UTF-16 units, so at most `n` code points.
  if (text.length <= n) return text
  let units = 0
  for (let taken = 0; taken < n && units < text.length; taken++) {
    const c = text.charCodeAt(units)
    const d = units + 1 < text.length ? text.charCodeAt(units + 1) : 0
    units += c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? 2 : 1
  }
  return text.slice(0, units)
}

/**
 * The default approximation: `max(1, floor(codePoints / 4))` tokens, and
 * truncation to `maxTokens * 4` code points.
 *
 * @since 0.1.0
 */
export const approximate: Service = {
  estimate: (text) => Math.max(1, Math.floor(codePointLength(text) / CHARS_PER_TOKEN)),
  truncate: (text, maxTokens) => takeCodePoints(text, Math.max(0, Math.floor(maxTokens)) * CHARS_PER_TOKEN)
}

/**
 * The TokenEstimator service. It is a `Context.Reference`: when no layer
 * provides it, {@link approximate} applies.
 *
 * @since 0.1.0
 */
export class TokenEstimator extends Context.Reference<TokenEstimator>()("@precis/core/TokenEstimator", {
  defaultValue: (): Service => approximate
}) {}

/**
 * A layer that replaces the default estimator.
 *
 * @since 0.1.0
 */
export const layer = (service: Service): Layer.Layer<TokenEstimator> => Layer.succeed(TokenEstimator, service)
