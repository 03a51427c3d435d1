/**
 * Which segments may be chosen at all: the first occurrence of a text, exact
 * or near (`nearKey.ts`); which sit in the middle of a long tool output; which
 * report an error or a change of state; and which the prior summary holds.
 *
 * @internal
 */
import { defaults, finite, type Options } from "./budget.js"
import { hashOf, MIN_KEY, type NearFacts, nearKey, nearKeyFacts } from "./nearKey.js"
import { isError, isState } from "./score.js"
import { type Parsed, parseText } from "./segments.js"

/** What {@link eligibility} finds of each segment, by its index (1: yes). */
export interface Eligibility {
  /** It may be chosen: no earlier segment has its text, exact or near. */
  readonly eligible: Uint8Array
  /** The prior summary holds its near key (eligible segments only). */
  readonly prior: Uint8Array
  /** It is in the middle of a long tool output, neither an error nor a change of state (eligible segments only). */
  readonly middle: Uint8Array
  /** It reports a change of state (`isState`). */
  readonly state: Uint8Array
  /** It reports an error (`isError`; eligible segments only). */
  readonly error: Uint8Array
}

/**
 * Which segments may be chosen at all (duplicates, exact or near, are not:
 * the first occurrence is kept), which are in the middle of a long tool
 * output (error lines aside: they are kept only for their facts), and which
 * the prior summary holds.
 */
export const eligibility = (parsed: Parsed, options: Options, priorKeys: PriorKeys): Eligibility => {
  const head = Math.max(0, Math.floor(finite(options.headLines, defaults.headLines)))
  const tail = Math.max(0, Math.floor(finite(options.tailLines, defaults.tailLines)))
  const { lines, segments } = parsed
  const groupSize = new Int32Array(lines.length)
  for (const line of lines) groupSize[line.group] = line.position + 1
  const eligible = new Uint8Array(segments.length)
  const prior = new Uint8Array(segments.length)
  const middle = new Uint8Array(segments.length)
  // Changes of state and errors, tested once per segment.
  const state = new Uint8Array(segments.length)
  const error = new Uint8Array(segments.length)
  // The keys seen, by their hash: the first segment with that hash (negative:
  // an exact key); the keys themselves only once two segments share a hash.
  const seen = new Map<number, number>()
  let seenKeys: Set<string> | undefined
  const keyOf = (s: number): string => {
    const text = segments[s < 0 ? ~s : s]!.text
    return s < 0 ? `\u0000${text.trim()}` : nearKey(text)
  }
  const facts: NearFacts = { hash: 0, length: 0, wordy: false }
  for (const line of lines) {
    if (line.segmentCount === 0) continue
    const size = groupSize[line.group]!
    const cut = line.tool && size > head + tail + 1 && line.position >= head && line.position < size - tail
    for (let s = line.segmentStart; s < line.segmentStart + line.segmentCount; s++) {
      const text = segments[s]!.text
      if (isState(text)) state[s] = 1
      nearKeyFacts(text, facts)
      // Lines that differ only in their numbers are near-duplicates when they
      // have words besides the numbers; rows of numbers are kept apart, and so
      // are changes of state (`3 tests, 1 failure` then `3 tests, 0 failures`).
      const near = facts.length >= MIN_KEY && state[s] === 0 && facts.wordy
      const hash = near ? facts.hash : hashOf(text.trim(), 0, undefined, EXACT_SEED)
      const first = seen.get(hash)
      if (first === undefined) {
        seen.set(hash, near ? s : ~s)
      } else {
        seenKeys ??= new Set()
        seenKeys.add(keyOf(first))
        const key = keyOf(near ? s : ~s)
        if (seenKeys.has(key)) continue
        seenKeys.add(key)
      }
      if (isError(text)) error[s] = 1
      if (cut && error[s] === 0 && state[s] === 0) middle[s] = 1
      if (priorKeys.hashes.has(facts.hash) && priorKeys.has(text, facts.hash)) prior[s] = 1
      eligible[s] = 1
    }
  }
  return { eligible, prior, middle, state, error }
}

/** The near keys of a prior summary's segments (`MIN_KEY` characters or more), by their hashes first. */
export interface PriorKeys {
  readonly hashes: ReadonlyMap<number, unknown>
  /** Whether the prior summary has `text`'s near key, whose hash is `hash`. */
  readonly has: (text: string, hash: number) => boolean
}

// The hash of `\u0000`, in front of an exact key.
const EXACT_SEED = hashOf("\u0000")

/** The {@link PriorKeys} of `priorSummary` (none without one), its segments cut as the material's are. */
export const priorKeysOf = (priorSummary: string | undefined, maxSegmentChars: number): PriorKeys => {
  // The prior summary's segments by the hash of their near key; the keys
  // themselves are built only for a hash the material shares.
  const texts = new Map<number, Array<string>>()
  if (priorSummary !== undefined) {
    const facts: NearFacts = { hash: 0, length: 0, wordy: false }
    for (const segment of parseText(priorSummary, maxSegmentChars).segments) {
      nearKeyFacts(segment.text, facts)
      if (facts.length < MIN_KEY) continue
      const same = texts.get(facts.hash)
      if (same === undefined) texts.set(facts.hash, [segment.text])
      else same.push(segment.text)
    }
  }
  const keys = new Map<number, Set<string>>()
  return {
    hashes: texts,
    has: (text, hash) => {
      let same = keys.get(hash)
      if (same === undefined) {
        same = new Set((texts.get(hash) ?? []).map(nearKey))
        keys.set(hash, same)
      }
      return same.has(nearKey(text))
    }
  }
}
