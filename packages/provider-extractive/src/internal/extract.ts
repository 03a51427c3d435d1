/**
 * The extractive summary: choose segments under a token budget by the new
 * facts they add per character they cost, render them in material order with
 * their turn prefixes and omission marks.
 *
 * @internal
 */
import { ConversationTurn, OutputDigest, type Provider, type TokenEstimator } from "@precis/core"
import { eachKey, keysOf } from "./keys.js"
import { firstRequestGroup as requestGroup, type Line, parse, type Parsed } from "./segments.js"
import {
  centrality,
  emphasis,
  hashOf,
  isAction,
  isError,
  isInjected,
  isState,
  isThinking,
  MIN_KEY,
  type NearFacts,
  nearKey,
  nearKeyFacts
} from "./score.js"
import { greedy, initial, type Scoring, type Start } from "./select.js"

/** Tuning knobs of the extraction; every field has a default. */
export interface Options {
  /** Share of the input a normal leaf reply may use, at most `targetTokens`. Default 0.3. */
  readonly normalRatio?: number | undefined
  /**
   * Share of the input a normal condensation may use, at most `targetTokens`. Default 0.6: its
   * material is summaries, what the leaves already chose, so it is cut less.
   */
  readonly condenseRatio?: number | undefined
  /** Lines at the start of a long tool output that need no fact to be kept. Default 5. */
  readonly headLines?: number | undefined
  /** Lines at the end of a long tool output that need no fact to be kept. Default 5. */
  readonly tailLines?: number | undefined
  /** Lines longer than this are split into sentences; longer sentences are cut. Default 400. */
  readonly maxSegmentChars?: number | undefined
  /** Share of the budget kept for changes of state (status updates, test results, commits), newest first. Default 0.25. */
  readonly stateShare?: number | undefined
  /** Share of the budget kept for the user's and the assistant's prose, the user's requests first, recent turns before older ones. Default 0.3. */
  readonly proseShare?: number | undefined
}

/** The defaults of {@link Options}. */
export const defaults = {
  normalRatio: 0.3,
  condenseRatio: 0.6,
  headLines: 5,
  tailLines: 5,
  maxSegmentChars: 400,
  stateShare: 0.25,
  proseShare: 0.3
} as const

const MAX_REFITS = 16
// A number is a fact, but most numbers in agent transcripts are line numbers, sizes and
// times of tool output: it weighs half a name (path, command, error), so a listing full of
// sizes does not crowd out the paths and errors an agent needs.
const NUMBER_WEIGHT = 0.5
// The first lines of the first request, taken first within a tenth of the budget
// (its first line within a quarter).
const REQUEST_LINES = 5
const REQUEST_SHARE = 0.1
// What recency adds to a change of state (the newest gets all of it).
const STATE_RECENCY = 0.5
// A condensation's material is what the leaves chose: their changes of state
// are what the agent needs most, so they get this many times the state share.
const CONDENSE_STATE_FACTOR = 2
// The largest share of the budget one tool output may take.
const TURN_SHARE = 0.5

const finite = (n: number | undefined, fallback: number): number =>
  n === undefined || !Number.isFinite(n) ? fallback : n

/**
 * The largest estimate the reply may have: for a normal request
 * `min(targetTokens, ratio × input)` (`normalRatio` for a leaf,
 * `condenseRatio` for a condensation), which keeps it strictly shorter than
 * its input; for an aggressive one `targetTokens - 1`, strictly under the
 * target. At least 1.
 */
export const budget = (
  task: Provider.SummaryTask,
  inputTokens: number,
  options: Options = {}
): number => {
  const target = Math.floor(finite(task.targetTokens, 1))
  if (task.kind === "aggressive") return Math.max(1, target - 1)
  const given = task.kind === "condense"
    ? finite(options.condenseRatio, defaults.condenseRatio)
    : finite(options.normalRatio, defaults.normalRatio)
  const ratio = Math.min(1, Math.max(0, given))
  return Math.max(1, Math.min(target, Math.floor(inputTokens * ratio)))
}

// What a gap inside a turn costs: the `… ` in front of the next line.
const GAP_CHARS = 2

const STAMP = /^\[(\d{4}-\d\d-\d\d)T(\d\d:\d\d)(?::\d\d)?\]/

/**
 * A turn prefix as rendered: `[HH:MM] role:`, with the date in front
 * (`[YYYY-MM-DDTHH:MM]`) when it differs from `date`, the date of the prefix
 * rendered before; prefixes of another shape stay as they are.
 */
const shortPrefix = (prefix: string, date: string | undefined): string => {
  const stamp = STAMP.exec(prefix)
  if (stamp === null) return prefix
  const rest = prefix.slice(stamp[0].length)
  return stamp[1] === date ? `[${stamp[2]}]${rest}` : `[${stamp[1]}T${stamp[2]}]${rest}`
}

const dateOf = (prefix: string): string | undefined => STAMP.exec(prefix)?.[1]

const lineText = (line: Line, chosen: Uint8Array, parsed: Parsed): string => {
  if (line.segmentCount === 1) return parsed.segments[line.segmentStart]!.text
  const parts: Array<string> = []
  let previous = -1
  for (let k = 0; k < line.segmentCount; k++) {
    if (chosen[line.segmentStart + k] !== 1) continue
    const text = parsed.segments[line.segmentStart + k]!.text
    parts.push(k > previous + 1 ? `… ${text}` : text)
    previous = k
  }
  if (previous < line.segmentCount - 1) parts.push("…")
  return parts.join(" ")
}

/**
 * Renders the chosen segments in material order, with turn prefixes; a gap
 * inside a turn is an ellipsis in front of the line after it. Turns left out
 * between chosen ones get no line of their own: the times of the turn
 * prefixes show the gap, and a line that says only `[…]` says nothing.
 */
const render = (parsed: Parsed, chosen: Uint8Array): string => {
  const out: Array<string> = []
  let omitted = 0
  let openGroup = -1
  let date: string | undefined
  for (const line of parsed.lines) {
    let has = false
    for (let k = 0; k < line.segmentCount && !has; k++) has = chosen[line.segmentStart + k] === 1
    if (!has) {
      if (line.countable) omitted++
      continue
    }
    const inTurn = line.prefix !== undefined && openGroup === line.group
    let text = lineText(line, chosen, parsed)
    if (omitted > 0 && inTurn && !text.startsWith("… ")) text = `… ${text}`
    omitted = 0
    if (line.prefix === undefined) {
      out.push(text)
      openGroup = -1
    } else if (inTurn) {
      out.push(`  ${text}`)
    } else {
      out.push(`${shortPrefix(line.prefix, date)} ${text}`)
      date = dateOf(line.prefix) ?? date
      openGroup = line.group
    }
  }
  return out.join("\n")
}

/**
 * Which segments may be chosen at all (duplicates, exact or near, are not:
 * the first occurrence is kept), which are in the middle of a long tool
 * output (error lines aside: they are kept only for their facts), and which
 * the prior summary holds.
 */
const eligibility = (parsed: Parsed, options: Options, priorKeys: PriorKeys) => {
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
interface PriorKeys {
  readonly hashes: ReadonlyMap<number, unknown>
  /** Whether the prior summary has `text`'s near key, whose hash is `hash`. */
  readonly has: (text: string, hash: number) => boolean
}

// The hash of `\u0000`, in front of an exact key.
const EXACT_SEED = hashOf("\u0000")

const priorKeysOf = (priorSummary: string | undefined, maxSegmentChars: number): PriorKeys => {
  // The prior summary's segments by the hash of their near key; the keys
  // themselves are built only for a hash the material shares.
  const texts = new Map<number, Array<string>>()
  if (priorSummary !== undefined) {
    const facts: NearFacts = { hash: 0, length: 0, wordy: false }
    for (const segment of parse(priorSummary, maxSegmentChars).segments) {
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

/**
 * The extractive summary of `task.material` under the budget of {@link budget}.
 * Deterministic: same task, estimator and options, same text.
 */
export const extract = (
  task: Provider.SummaryTask,
  estimator: TokenEstimator.Service,
  options: Options = {}
): string => extractFrom(task, estimator.estimate(task.material), estimator, options).text

/**
 * {@link extract} given the estimate of the material (`inputTokens`), with the
 * estimate of the text (`outputTokens`), so that a caller that needs them too
 * estimates neither again.
 */
export const extractFrom = (
  task: Provider.SummaryTask,
  inputTokens: number,
  estimator: TokenEstimator.Service,
  options: Options = {}
): { readonly text: string; readonly outputTokens: number } => {
  const empty = () => ({ text: "", outputTokens: estimator.estimate("") })
  const material = task.material
  const maxSegmentChars = Math.max(40, Math.floor(finite(options.maxSegmentChars, defaults.maxSegmentChars)))
  const parsed = parse(material, maxSegmentChars)
  const { lines, segments } = parsed
  if (segments.length === 0) return empty()
  const limit = budget(task, inputTokens, options)

  const { eligible, error, middle, prior, state: stateful } = eligibility(parsed, options, priorKeysOf(task.priorSummary, maxSegmentChars))
  const candidates: Array<number> = []
  for (let s = 0; s < segments.length; s++) if (eligible[s] === 1) candidates.push(s)
  if (candidates.length === 0) return empty()
  const central = centrality(candidates.map((s) => segments[s]!.text))
  const firstRequestGroup = requestGroup(lines)

  // Facts as coverage keys: a fact counts once, in the first segment chosen
  // that holds it. Facts the prior summary holds are covered already.
  const keyIds = new Map<string, number>()
  const keyWeight: Array<number> = []
  // The key ids of candidate s: keyList[keyFrom[s] .. keyTo[s]), distinct, in order of appearance.
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
    if (stateful[s] === 1) bonus[s] += STATE_RECENCY * s / segments.length
    bonus[s] += emphasis(segment.text, {
      error: error[s] === 1,
      state: stateful[s] === 1,
      role: line.role,
      firstRequest: line.group === firstRequestGroup,
      turnHead: line.position === 0 && s === line.segmentStart,
      alreadySummarized: prior[s] === 1,
      hasFacts: keyCount > from
    }, central[i]!)
  }
  const priorCovered = new Uint8Array(keyWeight.length)
  if (task.priorSummary !== undefined) {
    for (const key of keysOf(task.priorSummary).keys) {
      const id = keyIds.get(key)
      if (id !== undefined) priorCovered[id] = 1
    }
  }

  // Neighbouring countable lines (an omission marker sits between two chosen
  // lines when one is not chosen) and each turn's candidates.
  const previous = new Int32Array(lines.length).fill(-1)
  const next = new Int32Array(lines.length).fill(-1)
  let last = -1
  lines.forEach((line, i) => {
    if (!line.countable) return
    previous[i] = last
    if (last >= 0) next[last] = i
    last = i
  })
  const groupCandidates = new Map<number, Array<number>>()
  for (const s of candidates) {
    const group = lines[segments[s]!.line]!.group
    const members = groupCandidates.get(group)
    if (members === undefined) groupCandidates.set(group, [s])
    else members.push(s)
  }
  // An ellipsis inside a turn; nothing between turns.
  const gapChars = (a: number, b: number): number =>
    lines[a]!.prefix !== undefined && lines[a]!.group === lines[b]!.group ? GAP_CHARS : 0
  // A turn's lines share its prefix: measured once per turn.
  const prefixChars = new Int32Array(lines.length)
  lines.forEach((line, i) => {
    if (line.prefix === undefined) return
    prefixChars[i] = line.position > 0 && i > 0
      ? prefixChars[i - 1]!
      : shortPrefix(line.prefix, dateOf(line.prefix)).length + 1
  })

  let opening: Start | undefined
  const run = () => {
    const covered = priorCovered.slice()
    const picks = new Int32Array(lines.length)
    const groupChars = new Float64Array(lines.length)
    const lineChosen = new Int32Array(lines.length)
    let any = false
    const scoring: Scoring = {
      gain: (s) => {
        // The middle of a long tool output is worth only the facts it holds.
        if (middle[s] === 1 && keyTo[s] === keyFrom[s]) return 0
        // One tool output may not crowd out the rest of the conversation.
        const line = lines[segments[s]!.line]!
        const taken = groupChars[line.group]!
        if (line.tool && taken > 0 && taken + segments[s]!.text.length > turnCap) return 0
        let gain = bonus[s]!
        for (let k = keyFrom[s]!; k < keyTo[s]!; k++) {
          const id = keyList[k]!
          if (covered[id] === 0) gain += keyWeight[id]!
        }
        return gain
      },
      cost: (s) => {
        const segment = segments[s]!
        const l = segment.line
        const line = lines[l]!
        let cost = segment.text.length + 1
        if (lineChosen[l]! > 0) return cost + 2
        if (line.prefix !== undefined) cost += picks[line.group]! > 0 ? 2 : prefixChars[l]!
        // What the omission marks around this line would cost: choosing it
        // splits the gap it sits in, closes it, or leaves one mark.
        const before = previous[l]! >= 0 && lineChosen[previous[l]!] === 0 ? gapChars(previous[l]!, l) : 0
        const after = next[l]! >= 0 && lineChosen[next[l]!] === 0 ? gapChars(l, next[l]!) : 0
        if (!any) return cost + before + after
        return Math.max(1, cost + (before > 0 && after > 0 ? Math.min(before, after) : before === 0 && after === 0 ? -2 : 0))
      },
      choose: (s) => {
        for (let k = keyFrom[s]!; k < keyTo[s]!; k++) covered[keyList[k]!] = 1
        const l = segments[s]!.line
        const group = lines[l]!.group
        groupChars[group] += segments[s]!.text.length + 1
        any = true
        lineChosen[l]!++
        const cheaper: Array<number> = []
        if (picks[group]!++ === 0) cheaper.push(...groupCandidates.get(group)!)
        for (const neighbour of [previous[l]!, next[l]!]) {
          if (neighbour < 0) continue
          const line = lines[neighbour]!
          for (let t = line.segmentStart; t < line.segmentStart + line.segmentCount; t++) {
            if (eligible[t] === 1) cheaper.push(t)
          }
        }
        return cheaper
      },
      // A segment costs its text and newline, less at most 2 when it closes a gap.
      floor: (s) => Math.max(1, segments[s]!.text.length - 1)
    }
    // Every run starts from the same scores (nothing chosen, no turn capped).
    opening ??= initial(candidates, scoring)
    return greedy(segments.length, opening, scoring)
  }
  // The opening lines of the first request say what the session is for: they
  // are taken first, within a share of the budget.
  const request = candidates.filter((s) => {
    const line = lines[segments[s]!.line]!
    return line.group === firstRequestGroup && line.position < REQUEST_LINES
  })
  // Then changes of state, newest first, and prose, each within its share.
  const state: Array<number> = []
  const userProse: Array<number> = []
  const otherProse: Array<number> = []
  for (const s of candidates) {
    const line = lines[segments[s]!.line]!
    const text = segments[s]!.text
    if (stateful[s] === 1) state.push(s)
    else if (line.tool || line.prefix === undefined || isAction(text) || isInjected(text)) continue
    else if (ConversationTurn.isUserRole(line.role)) userProse.push(s)
    else otherProse.push(s)
  }
  state.reverse()
  // The user's turns, newest first: the head line of each before the rest.
  userProse.sort((a, b) => {
    const la = lines[segments[a]!.line]!
    const lb = lines[segments[b]!.line]!
    return Number(la.position > 0) - Number(lb.position > 0) || (la.position > 0 ? a - b : b - a)
  })
  // The assistant's prose by its worth, more for recent turns, reasoning less.
  const proseRank = new Float64Array(segments.length)
  for (const s of otherProse) {
    let value = bonus[s]!
    for (let k = keyFrom[s]!; k < keyTo[s]!; k++) value += keyWeight[keyList[k]!]!
    proseRank[s] = value * (0.25 + 0.75 * s / segments.length) * (isThinking(segments[s]!.text) ? 0.5 : 1)
  }
  otherProse.sort((a, b) => proseRank[b]! - proseRank[a]! || a - b)
  const share = (value: number | undefined, fallback: number) => Math.min(1, Math.max(0, finite(value, fallback)))
  const stateShare = Math.min(1, share(options.stateShare, defaults.stateShare) * (task.kind === "condense" ? CONDENSE_STATE_FACTOR : 1))
  const proseShare = share(options.proseShare, defaults.proseShare)

  const start = (budget: number) => {
    const selection = run()
    let used = 0
    for (const s of request) {
      // Its first line within a quarter of the budget, the next ones within a tenth.
      if (used + selection.cost(s) > budget * (used === 0 ? 0.25 : REQUEST_SHARE)) break
      used += selection.take(s)
    }
    // Takes what is worth it from `order` while the total stays within `cap`.
    const reserve = (order: ReadonlyArray<number>, cap: number) => {
      for (const s of order) {
        if (selection.chosen[s] === 1 || !selection.worth(s)) continue
        const cost = selection.cost(s)
        if (used + cost <= cap) used += selection.take(s)
      }
    }
    reserve(state, used + budget * stateShare)
    const prose = used + budget * proseShare
    reserve(userProse, used + budget * proseShare / 2)
    reserve(otherProse, prose)
    selection.fill(budget - used)
    return selection
  }

  // Characters stand in for tokens while choosing; the estimator has the last word.
  const charsPerToken = material.length / Math.max(1, inputTokens)
  let budgetChars = limit * charsPerToken
  let turnCap = budgetChars * TURN_SHARE
  let selection = start(budgetChars)
  let text = render(parsed, selection.chosen)
  let textTokens = estimator.estimate(text)
  for (let round = 0; round < MAX_REFITS; round++) {
    if (textTokens > limit) {
      // Over: choose again under a budget smaller by the excess.
      budgetChars -= (textTokens - limit) * charsPerToken + GAP_CHARS
      if (budgetChars <= 0) break
      turnCap = budgetChars * TURN_SHARE
      selection = start(budgetChars)
    } else {
      // Under: add what still fits in the slack, if anything does.
      const slack = (limit - textTokens) * charsPerToken
      if (slack < GAP_CHARS || selection.fill(slack) === 0) break
    }
    text = render(parsed, selection.chosen)
    textTokens = estimator.estimate(text)
  }
  if (text.length > 0 && textTokens <= limit) return { text, outputTokens: textTokens }

  // Nothing fits whole: the best segment with its context, cut to the budget.
  let best = candidates[0]!
  let bestValue = -Infinity
  for (const s of candidates) {
    let value = bonus[s]!
    for (let k = keyFrom[s]!; k < keyTo[s]!; k++) value += keyWeight[keyList[k]!]!
    value /= segments[s]!.text.length + 1
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
  // Cut at a word or path boundary, never inside one.
  const cutTo = (tokens: number) => {
    const head = estimator.truncate(single, tokens).trimEnd()
    return head.length >= single.length ? head : OutputDigest.clip(single, head.length)
  }
  let cut = cutTo(limit)
  for (let tokens = limit - 1; tokens >= 1 && estimator.estimate(cut) > limit; tokens--) cut = cutTo(tokens)
  return { text: cut, outputTokens: estimator.estimate(cut) }
}
