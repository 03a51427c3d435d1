/**
 * What is taken before the rest is chosen by worth, each within its share of
 * the budget: the opening lines of the first request (they say what the
 * session is for), then changes of state, newest first, then the user's prose
 * and the assistant's.
 *
 * @internal
 */
import { ConversationTurn, type Provider } from "@precis/core"
import { defaults, finite, type Options } from "./budget.js"
import { type Coverage, worth } from "./coverage.js"
import type { Eligibility } from "./eligibility.js"
import { isAction, isInjected, isThinking } from "./score.js"
import type { Parsed } from "./segments.js"
import type { Greedy } from "./select.js"

// The first lines of the first request, taken first within a tenth of the budget
// (its first line within a quarter).
const REQUEST_LINES = 5
const REQUEST_SHARE = 0.1
// A condensation's material is what the leaves chose: their changes of state
// are what the agent needs most, so they get this many times the state share.
const CONDENSE_STATE_FACTOR = 2

/** The candidates each reserved share takes, in the order it takes them, and the shares of the budget. */
export interface Priorities {
  /** The opening lines of the first request. */
  readonly request: ReadonlyArray<number>
  /** Changes of state, newest first. */
  readonly state: ReadonlyArray<number>
  /** The user's prose: each turn's head line, newest first, then the rest. */
  readonly userProse: ReadonlyArray<number>
  /** The assistant's prose by its worth, more for recent turns, reasoning less. */
  readonly otherProse: ReadonlyArray<number>
  readonly stateShare: number
  readonly proseShare: number
}

/** The {@link Priorities} of `candidates` (segment indices of `parsed`, in order). */
export const priorities = (
  task: Provider.SummaryTask,
  options: Options,
  parsed: Parsed,
  candidates: ReadonlyArray<number>,
  flags: Eligibility,
  coverage: Coverage,
  firstRequestGroup: number
): Priorities => {
  const { lines, segments } = parsed
  const request = candidates.filter((s) => {
    const line = lines[segments[s]!.line]!
    return line.group === firstRequestGroup && line.position < REQUEST_LINES
  })
  const state: Array<number> = []
  const userProse: Array<number> = []
  const otherProse: Array<number> = []
  for (const s of candidates) {
    const line = lines[segments[s]!.line]!
    const text = segments[s]!.text
    if (flags.state[s] === 1) state.push(s)
    else if (line.tool || line.prefix === undefined || isAction(text) || isInjected(text)) continue
    else if (ConversationTurn.isUserRole(line.role)) userProse.push(s)
    else otherProse.push(s)
  }
  state.reverse()
  userProse.sort((a, b) => {
    const la = lines[segments[a]!.line]!
    const lb = lines[segments[b]!.line]!
    return Number(la.position > 0) - Number(lb.position > 0) || (la.position > 0 ? a - b : b - a)
  })
  const proseRank = new Float64Array(segments.length)
  for (const s of otherProse) {
    proseRank[s] = worth(coverage, s) * (0.25 + 0.75 * s / segments.length) * (isThinking(segments[s]!.text) ? 0.5 : 1)
  }
  otherProse.sort((a, b) => proseRank[b]! - proseRank[a]! || a - b)
  const share = (value: number | undefined, fallback: number) => Math.min(1, Math.max(0, finite(value, fallback)))
  return {
    request,
    state,
    userProse,
    otherProse,
    stateShare: Math.min(1, share(options.stateShare, defaults.stateShare) * (task.kind === "condense" ? CONDENSE_STATE_FACTOR : 1)),
    proseShare: share(options.proseShare, defaults.proseShare)
  }
}

/**
 * Takes from `selection` (nothing chosen yet) what `priorities` reserve under
 * `budget` characters, each within its share, then fills the rest by worth.
 */
export const takeReserved = (selection: Greedy, priorities: Priorities, budget: number): Greedy => {
  let used = 0
  for (const s of priorities.request) {
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
  reserve(priorities.state, used + budget * priorities.stateShare)
  const prose = used + budget * priorities.proseShare
  reserve(priorities.userProse, used + budget * priorities.proseShare / 2)
  reserve(priorities.otherProse, prose)
  selection.fill(budget - used)
  return selection
}
