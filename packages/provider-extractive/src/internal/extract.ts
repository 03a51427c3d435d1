/**
 * The extractive summary: choose segments under a token budget, render them
 * in material order with their turn prefixes and omission markers.
 *
 * @internal
 */
import type { Provider, TokenEstimator } from "@precis/core"
import { isToolRole, type Line, parse, type Parsed } from "./material.js"
import { centrality, features, isError, isUserRole, MIN_KEY, nearKey, weights } from "./score.js"

/** Tuning knobs of the extraction; every field has a default. */
export interface Options {
  /** Share of the input a normal (leaf/condense) reply may use, at most `targetTokens`. Default 0.3. */
  readonly normalRatio?: number | undefined
  /** Lines kept at the start of a long tool output. Default 5. */
  readonly headLines?: number | undefined
  /** Lines kept at the end of a long tool output. Default 5. */
  readonly tailLines?: number | undefined
  /** Lines longer than this are split into sentences; longer sentences are cut. Default 400. */
  readonly maxSegmentChars?: number | undefined
}

/** The defaults of {@link Options}. */
export const defaults = {
  normalRatio: 0.3,
  headLines: 5,
  tailLines: 5,
  maxSegmentChars: 400
} as const

// Rough share of an omission marker charged to each chosen segment while choosing.
const MARKER_ALLOWANCE = 6
const MAX_REFITS = 64
// Segments up to this length are ranked by their score alone.
const DENSITY_CHARS = 100
const DENSITY_EXPONENT = 0.75
const TURN_DECAY = 0.8

const byScore = (score: Float64Array) => (a: number, b: number): number => score[b]! - score[a]! || a - b

const finite = (n: number | undefined, fallback: number): number =>
  n === undefined || !Number.isFinite(n) ? fallback : n

/**
 * The largest estimate the reply may have: for a normal request
 * `min(targetTokens, normalRatio × input)`, which keeps it strictly shorter
 * than its input; for an aggressive one `targetTokens - 1`, strictly under the
 * target. At least 1.
 */
export const budget = (
  task: Provider.SummaryTask,
  inputTokens: number,
  options: Options = {}
): number => {
  const target = Math.floor(finite(task.targetTokens, 1))
  if (task.kind === "aggressive") return Math.max(1, target - 1)
  const ratio = Math.min(1, Math.max(0, finite(options.normalRatio, defaults.normalRatio)))
  return Math.max(1, Math.min(target, Math.floor(inputTokens * ratio)))
}

const plural = (n: number): string => (n === 1 ? "line" : "lines")
const marker = (n: number, indent: boolean): string => `${indent ? "  " : ""}[… ${n} ${plural(n)} omitted]`

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

/** Renders the chosen segments in material order, with turn prefixes and omission markers. */
const render = (parsed: Parsed, chosen: Uint8Array): string => {
  const out: Array<string> = []
  let omitted = 0
  let openGroup = -1
  for (const line of parsed.lines) {
    let has = false
    for (let k = 0; k < line.segmentCount && !has; k++) has = chosen[line.segmentStart + k] === 1
    if (!has) {
      if (line.countable) omitted++
      continue
    }
    const inTurn = line.prefix !== undefined && openGroup === line.group
    if (omitted > 0) out.push(marker(omitted, inTurn))
    omitted = 0
    const text = lineText(line, chosen, parsed)
    if (line.prefix === undefined) {
      out.push(text)
      openGroup = -1
    } else if (inTurn) {
      out.push(`  ${text}`)
    } else {
      out.push(`${line.prefix} ${text}`)
      openGroup = line.group
    }
  }
  if (omitted > 0 && out.length > 0) out.push(marker(omitted, false))
  return out.join("\n")
}

/**
 * Which segments may be chosen at all: duplicates (exact or near, first
 * occurrence kept) and the middle of long tool outputs (except error lines)
 * are not.
 */
const eligibility = (parsed: Parsed, options: Options, priorKeys: ReadonlySet<string>) => {
  const head = Math.max(0, Math.floor(finite(options.headLines, defaults.headLines)))
  const tail = Math.max(0, Math.floor(finite(options.tailLines, defaults.tailLines)))
  const { lines, segments } = parsed
  const groupSize = new Map<number, number>()
  for (const line of lines) groupSize.set(line.group, line.position + 1)
  const eligible = new Uint8Array(segments.length)
  const prior = new Uint8Array(segments.length)
  const seen = new Set<string>()
  for (const line of lines) {
    if (line.segmentCount === 0) continue
    const size = groupSize.get(line.group)!
    const cut = isToolRole(line.role) && size > head + tail + 1 && line.position >= head && line.position < size - tail
    for (let s = line.segmentStart; s < line.segmentStart + line.segmentCount; s++) {
      const text = segments[s]!.text
      if (cut && !isError(text)) continue
      const key = nearKey(text)
      if (key.length >= MIN_KEY) {
        if (seen.has(key)) continue
        seen.add(key)
        if (priorKeys.has(key)) prior[s] = 1
      }
      eligible[s] = 1
    }
  }
  return { eligible, prior }
}

const priorKeysOf = (priorSummary: string | undefined, maxSegmentChars: number): ReadonlySet<string> => {
  const keys = new Set<string>()
  if (priorSummary === undefined) return keys
  for (const segment of parse(priorSummary, maxSegmentChars).segments) {
    const key = nearKey(segment.text)
    if (key.length >= MIN_KEY) keys.add(key)
  }
  return keys
}

/**
 * The extractive summary of `task.material` under the budget of {@link budget}.
 * Deterministic: same task, estimator and options, same text.
 */
export const extract = (
  task: Provider.SummaryTask,
  estimator: TokenEstimator.Service,
  options: Options = {}
): string => extractFrom(task, estimator.estimate(task.material), estimator, options)

/**
 * {@link extract} given the estimate of the material (`inputTokens`), so that
 * a caller that needs it too estimates the material once.
 */
export const extractFrom = (
  task: Provider.SummaryTask,
  inputTokens: number,
  estimator: TokenEstimator.Service,
  options: Options = {}
): string => {
  const material = task.material
  const maxSegmentChars = Math.max(40, Math.floor(finite(options.maxSegmentChars, defaults.maxSegmentChars)))
  const parsed = parse(material, maxSegmentChars)
  const { lines, segments } = parsed
  if (segments.length === 0) return ""
  const limit = budget(task, inputTokens, options)

  const { eligible, prior } = eligibility(parsed, options, priorKeysOf(task.priorSummary, maxSegmentChars))
  const candidates: Array<number> = []
  for (let s = 0; s < segments.length; s++) if (eligible[s] === 1) candidates.push(s)
  const central = centrality(candidates.map((s) => segments[s]!.text))
  let firstRequestGroup = -1
  for (const line of lines) {
    if (isUserRole(line.role)) {
      firstRequestGroup = line.group
      break
    }
  }
  const score = new Float64Array(segments.length)
  candidates.forEach((s, i) => {
    const segment = segments[s]!
    const line = lines[segment.line]!
    score[s] = weights.centrality * central[i]! + features(segment.text, {
      role: line.role,
      firstRequest: line.group === firstRequestGroup,
      turnHead: line.position === 0 && s === line.segmentStart,
      alreadySummarized: prior[s] === 1
    })
  })
  // Value per character decides, softened (length^0.75) so that a long, rich
  // line still beats a short, empty one.
  for (const s of candidates) {
    const length = Math.pow(Math.max(1, segments[s]!.text.length / DENSITY_CHARS), DENSITY_EXPONENT)
    score[s] = score[s]! >= 0 ? score[s]! / length : score[s]! * length
  }
  // Diminishing returns inside one turn: its r-th best segment counts decay^r,
  // so that one long tool output cannot crowd out the rest of the conversation.
  // The user's own words are exempt: every line of a request may matter.
  const byGroup = new Map<number, Array<number>>()
  for (const s of candidates) {
    const line = lines[segments[s]!.line]!
    if (isUserRole(line.role)) continue
    const group = line.group
    const members = byGroup.get(group)
    if (members === undefined) byGroup.set(group, [s])
    else members.push(s)
  }
  for (const members of byGroup.values()) {
    if (members.length < 2) continue
    members.sort(byScore(score))
    let factor = 1
    for (const s of members) {
      if (score[s]! > 0) score[s] = score[s]! * factor
      factor *= TURN_DECAY
    }
  }
  // Best first; ties go to the earlier segment, so the order is total and stable.
  const order = candidates.slice().sort(byScore(score))

  const charsPerToken = material.length / Math.max(1, inputTokens)
  const budgetChars = limit * charsPerToken
  const chosen = new Uint8Array(segments.length)
  const opened = new Set<number>()
  let used = 0
  const costOf = (s: number): number => {
    const segment = segments[s]!
    const line = lines[segment.line]!
    const prefix = line.prefix !== undefined && !opened.has(line.group) ? line.prefix.length + 1 : 0
    return segment.text.length + 1 + prefix + MARKER_ALLOWANCE
  }
  for (const s of order) {
    if (budgetChars - used < MARKER_ALLOWANCE + 2) break
    const cost = costOf(s)
    if (used + cost > budgetChars) continue
    chosen[s] = 1
    used += cost
    opened.add(lines[segments[s]!.line]!.group)
  }

  // The proxy is only an estimate: drop the weakest choices until the estimator agrees.
  let text = render(parsed, chosen)
  let weakest = order.length - 1
  for (let refit = 0; refit < MAX_REFITS && estimator.estimate(text) > limit; refit++) {
    let toFree = (estimator.estimate(text) - limit) * charsPerToken
    let freed = false
    for (; weakest >= 0 && (toFree > 0 || !freed); weakest--) {
      const s = order[weakest]!
      if (chosen[s] !== 1) continue
      chosen[s] = 0
      toFree -= segments[s]!.text.length + MARKER_ALLOWANCE
      freed = true
    }
    if (!freed) break
    text = render(parsed, chosen)
  }
  if (text.length > 0 && estimator.estimate(text) <= limit) return text

  // Nothing fits whole: the best segment with its context, cut to the budget.
  const best = segments[order[0] ?? 0]!
  const bestLine = lines[best.line]!
  const single = bestLine.prefix === undefined ? best.text : `${bestLine.prefix} ${best.text}`
  let cut = estimator.truncate(single, limit).trimEnd()
  for (let tokens = limit - 1; tokens >= 1 && estimator.estimate(cut) > limit; tokens--) {
    cut = estimator.truncate(single, tokens).trimEnd()
  }
  return cut
}
