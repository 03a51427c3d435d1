/**
 * Small, pure statistics over samples: the bench reports medians of repeated
 * measurements and ratios measured in the same run.
 *
 * @since 0.1.0
 */

/**
 * The arithmetic mean (`NaN` for no samples).
 *
 * @since 0.1.0
 */
export const mean = (xs: ReadonlyArray<number>): number =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length

/**
 * The `q`-quantile (0..1) by linear interpolation between the closest ranks
 * (`NaN` for no samples).
 *
 * @example
 * ```ts
 * import { Stats } from "@precis/bench"
 * Stats.quantile([1, 2, 3, 4], 0.5) // 2.5
 * ```
 * @since 0.1.0
 */
export const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  if (xs.length === 0) return Number.NaN
  const sorted = [...xs].sort((a, b) => a - b)
  const pos = Math.min(1, Math.max(0, q)) * (sorted.length - 1)
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

/**
 * The median.
 *
 * @since 0.1.0
 */
export const median = (xs: ReadonlyArray<number>): number => quantile(xs, 0.5)

/**
 * The largest value (`NaN` for no samples).
 *
 * @since 0.1.0
 */
export const max = (xs: ReadonlyArray<number>): number => xs.length === 0 ? Number.NaN : Math.max(...xs)

/**
 * The sample whose absolute value is largest, keeping its sign (`NaN` for no samples).
 *
 * @since 0.1.0
 */
export const worst = (xs: ReadonlyArray<number>): number =>
  xs.length === 0 ? Number.NaN : xs.reduce((w, x) => Math.abs(x) > Math.abs(w) ? x : w, xs[0]!)

/**
 * `(estimate - actual) / actual`: positive when the estimate is too high.
 * `0` when both are 0, `Infinity` when only `actual` is 0.
 *
 * @since 0.1.0
 */
export const relativeError = (estimate: number, actual: number): number =>
  actual === 0 ? (estimate === 0 ? 0 : Number.POSITIVE_INFINITY) : (estimate - actual) / actual

/**
 * The least-squares slope of `log(y)` against `log(x)`: the exponent `k` of
 * `y ~ x^k` (1 means linear growth). `NaN` with fewer than two usable points.
 *
 * @since 0.1.0
 */
export const growthExponent = (points: ReadonlyArray<readonly [x: number, y: number]>): number => {
  const logs = points.filter(([x, y]) => x > 0 && y > 0).map(([x, y]) => [Math.log(x), Math.log(y)] as const)
  if (logs.length < 2) return Number.NaN
  const mx = mean(logs.map(([x]) => x))
  const my = mean(logs.map(([, y]) => y))
  let num = 0
  let den = 0
  for (const [x, y] of logs) {
    num += (x - mx) * (y - my)
    den += (x - mx) * (x - mx)
  }
  return den === 0 ? Number.NaN : num / den
}
