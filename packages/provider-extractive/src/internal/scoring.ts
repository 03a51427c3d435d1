/**
 * What choosing a segment adds and costs as the choice goes on, for the
 * greedy of `select.ts`: the facts it covers first and its bonus
 * (`coverage.ts`), against the characters it adds to the rendered text (its
 * turn prefix, the omission marks around it); one tool output may not crowd
 * out the rest of the conversation.
 *
 * @internal
 */
import type { Coverage } from "./coverage.js"
import type { Eligibility } from "./eligibility.js"
import { dateOf, GAP_CHARS, shortPrefix } from "./render.js"
import type { Line, Parsed } from "./segments.js"
import { greedy, type Greedy, initial, type Scoring, type Start } from "./select.js"

// The largest share of the budget one tool output may take.
const TURN_SHARE = 0.5

/** Where the lines stand in the rendered text, measured once. */
interface Layout {
  /** The countable line before each countable line, and after it (-1: none): an omission marker sits between two chosen lines when one is not chosen. */
  readonly previous: Int32Array
  readonly next: Int32Array
  /** Each turn's candidates, by its group. */
  readonly groupCandidates: ReadonlyMap<number, ReadonlyArray<number>>
  /** What the turn prefix of each line costs (a turn's lines share it). */
  readonly prefixChars: Int32Array
}

const layoutOf = (parsed: Parsed, candidates: ReadonlyArray<number>): Layout => {
  const { lines, segments } = parsed
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
  // A turn's lines share its prefix: measured once per turn.
  const prefixChars = new Int32Array(lines.length)
  lines.forEach((line, i) => {
    if (line.prefix === undefined) return
    prefixChars[i] = line.position > 0 && i > 0
      ? prefixChars[i - 1]!
      : shortPrefix(line.prefix, dateOf(line.prefix)).length + 1
  })
  return { previous, next, groupCandidates, prefixChars }
}

// What a gap between lines `a` and `b` costs: an ellipsis inside a turn; nothing between turns.
const gapChars = (lines: ReadonlyArray<Line>, a: number, b: number): number =>
  lines[a]!.prefix !== undefined && lines[a]!.group === lines[b]!.group ? GAP_CHARS : 0

/**
 * A chooser of `candidates`: each call starts a fresh greedy run (nothing
 * chosen) for a budget of `budget` characters, in which one tool output may
 * take at most `TURN_SHARE` of it. Every run starts from the same scores,
 * computed once.
 */
export const chooser = (
  parsed: Parsed,
  candidates: ReadonlyArray<number>,
  flags: Eligibility,
  coverage: Coverage
): (budget: number) => Greedy => {
  const layout = layoutOf(parsed, candidates)
  let opening: Start | undefined
  return (budget) => {
    const scoring = scoringOf(parsed, layout, flags, coverage, budget * TURN_SHARE)
    opening ??= initial(candidates, scoring)
    return greedy(parsed.segments.length, opening, scoring)
  }
}

/** The {@link Scoring} of one run, with its own record of what is chosen; `turnCap`: what one tool output may take. */
const scoringOf = (parsed: Parsed, layout: Layout, flags: Eligibility, coverage: Coverage, turnCap: number): Scoring => {
  const { lines, segments } = parsed
  const { groupCandidates, next, prefixChars, previous } = layout
  const { keyFrom, keyList, keyTo, keyWeight } = coverage
  const covered = coverage.priorCovered.slice()
  const picks = new Int32Array(lines.length)
  const groupChars = new Float64Array(lines.length)
  const lineChosen = new Int32Array(lines.length)
  let any = false
  return {
    gain: (s) => {
      // The middle of a long tool output is worth only the facts it holds.
      if (flags.middle[s] === 1 && keyTo[s] === keyFrom[s]) return 0
      // One tool output may not crowd out the rest of the conversation.
      const line = lines[segments[s]!.line]!
      const taken = groupChars[line.group]!
      if (line.tool && taken > 0 && taken + segments[s]!.text.length > turnCap) return 0
      let gain = coverage.bonus[s]!
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
      const before = previous[l]! >= 0 && lineChosen[previous[l]!] === 0 ? gapChars(lines, previous[l]!, l) : 0
      const after = next[l]! >= 0 && lineChosen[next[l]!] === 0 ? gapChars(lines, l, next[l]!) : 0
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
          if (flags.eligible[t] === 1) cheaper.push(t)
        }
      }
      return cheaper
    },
    // A segment costs its text and newline, less at most 2 when it closes a gap.
    floor: (s) => Math.max(1, segments[s]!.text.length - 1)
  }
}
