/**
 * Substring tests of many needles against one text.
 *
 * @internal
 */

const BUCKETS = 4096

const trigram = (text: string, at: number): number =>
  (text.charCodeAt(at) * 961 + text.charCodeAt(at + 1) * 31 + text.charCodeAt(at + 2)) & (BUCKETS - 1)

/**
 * `(needle) => text.includes(needle)`, for many needles over one text: the
 * positions of `text` chained by the hash of the three characters they start
 * (built once, linear), so a needle of three characters or more is compared
 * only where its first three could start it, not at every position.
 */
export const containment = (text: string): (needle: string) => boolean => {
  const n = text.length - 2
  if (n <= 0) return (needle) => text.includes(needle)
  const head = new Int32Array(BUCKETS).fill(-1)
  const next = new Int32Array(n)
  // Chained from the end, so each chain lists its positions in order.
  for (let at = n - 1; at >= 0; at--) {
    const bucket = trigram(text, at)
    next[at] = head[bucket]!
    head[bucket] = at
  }
  return (needle) => {
    if (needle.length < 3) return text.includes(needle)
    for (let at = head[trigram(needle, 0)]!; at >= 0; at = next[at]!) {
      if (text.startsWith(needle, at)) return true
    }
    return false
  }
}
