/**
 * The facts of the candidate segments as coverage keys (`keys.ts`): a fact
 * counts once, in the first segment chosen that holds it, and the facts the
 * prior summary holds are covered already; and what each candidate is worth
 * besides its facts (`score.ts`'s emphasis, the recency of a change of state).
 *
 * @internal
 */
import { centrality } from "./centrality.js"
import type { Eligibility } from "./eligibility.js"
import { eachKey, keysOf } from "./keys.js"
import { emphasis } from "./score.js"
import type { Parsed } from "./segments.js"

// A number is a fact, but most numbers in agent transcripts are line numbers, sizes and
// times of tool output: it weighs half a name (path, command, error), so a listing full of
// sizes does not crowd out the paths and errors an agent needs.
const NUMBER_WEIGHT = 0.5
// What recency adds to a change of state (the newest gets all of it).
const STATE_RECENCY = 0.5

/** The coverage keys of the candidates, by number, and what each candidate is worth besides them. */
export interface Coverage {
  /** The weight of each key, by its number. */
  readonly keyWeight: ReadonlyArray<number>
  /** The keys of candidate s: `keyList[keyFrom[s] .. keyTo[s])`, distinct, in order of appearance. */
  readonly keyList: Int32Array
  readonly keyFrom: Int32Array
  readonly keyTo: Int32Array
  /** What each candidate is worth besides its keys. */
  readonly bonus: Float64Array
  /** 1 for each key the prior summary holds. */
  readonly priorCovered: Uint8Array
}

/**
 * The {@link Coverage} of `candidates` (segment indices of `parsed`, in order),
 * `flags` being their {@link Eligibility} and `firstRequestGroup` the turn of
 * the first request.
 */
export const coverage = (
  parsed: Parsed,
  candidates: ReadonlyArray<number>,
  flags: Eligibility,
  firstRequestGroup: number,
  priorSummary: string | undefined
): Coverage => {
  const { lines, segments } = parsed
  const central = centrality(candidates.map((s) => segments[s]!.text))
  const keyIds = new Map<string, number>()
  const keyWeight: Array<number> = []
  let keyList = new Int32Array(Math.max(16, segments.length * 2))
  const keyFrom = new Int32Array(segments.length)
  const keyTo = new Int32Array(segments.length)
  let keyCount = 0
  let from = 0
  const addKey = (key: string, weight: number) => {
    let id = keyIds.get(key)
    if (id === undefined) {
      id = keyWeight.length
      keyIds.set(key, id)
      keyWeight.push(weight)
    } else {
      for (let k = from; k < keyCount; k++) if (keyList[k] === id) return
    }
    if (keyCount === keyList.length) {
      const grown = new Int32Array(keyCount * 2)
      grown.set(keyList)
      keyList = grown
    }
    keyList[keyCount++] = id
  }
  const bonus = new Float64Array(segments.length)
  for (let i = 0; i < candidates.length; i++) {
    const s = candidates[i]!
    const segment = segments[s]!
    const line = lines[segment.line]!
    from = keyCount
    eachKey(segment.text, NUMBER_WEIGHT, addKey)
    keyFrom[s] = from
    keyTo[s] = keyCount
    // The later of two changes of state is the one that holds now.
    if (flags.state[s] === 1) bonus[s] += STATE_RECENCY * s / segments.length
    bonus[s] += emphasis(segment.text, {
      error: flags.error[s] === 1,
      state: flags.state[s] === 1,
      role: line.role,
      firstRequest: line.group === firstRequestGroup,
      turnHead: line.position === 0 && s === line.segmentStart,
      alreadySummarized: flags.prior[s] === 1,
      hasFacts: keyCount > from
    }, central[i]!)
  }
  const priorCovered = coveredBy(priorSummary, keyIds)
  return { keyWeight, keyList, keyFrom, keyTo, bonus, priorCovered }
}

/** 1 for each of the numbered keys `priorSummary` holds. */
const coveredBy = (priorSummary: string | undefined, keyIds: ReadonlyMap<string, number>): Uint8Array => {
  const covered = new Uint8Array(keyIds.size)
  if (priorSummary !== undefined) {
    for (const key of keysOf(priorSummary).keys) {
      const id = keyIds.get(key)
      if (id !== undefined) covered[id] = 1
    }
  }
  return covered
}

/** What candidate `s` is worth whole: its bonus and the weight of all its keys, covered or not. */
export const worth = (coverage: Coverage, s: number): number => {
  let value = coverage.bonus[s]!
  for (let k = coverage.keyFrom[s]!; k < coverage.keyTo[s]!; k++) value += coverage.keyWeight[coverage.keyList[k]!]!
  return value
}
