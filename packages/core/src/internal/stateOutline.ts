/**
 * The session state as a hand-over (see `SessionState.outline`): what was
 * asked, what was done, what is left and the next step, the files changed.
 *
 * @internal
 */
import * as ToolKind from "../ToolKind.js"
import * as NextStep from "./nextStep.js"
import * as Plans from "./plans.js"
import type { FileEntry, State } from "./stateSchema.js"

/**
 * One line of an outline and the turn it cites.
 *
 * @internal
 */
export interface Line {
  readonly text: string
  readonly turnId: string
}

/**
 * A session's hand-over, each line citing its turn.
 *
 * @internal
 */
export interface Outline {
  /** The first real user request. */
  readonly asked?: Line | undefined
  /** The latest real user request, when it is not the first. */
  readonly latest?: Line | undefined
  /** What went through: git events (commits, pushes, branches), issues closed, checks passing, errors fixed. */
  readonly done: ReadonlyArray<Line>
  /** The newest commit that went through. */
  readonly lastCommit?: Line | undefined
  /** What is left: open errors (failing checks, failed git or tracker events), open issues, open plan items. */
  readonly left: ReadonlyArray<Line>
  /**
   * The next step (`internal/nextStep.ts`: the request no turn answers, the plan's first open item, the
   * agent's stated intent, the newest open error as `resolve ...`); the line it comes from is not repeated in `left`.
   */
  readonly next?: Line | undefined
  /** What the user said that still stands (constraints, decisions, answers), the newest last. */
  readonly said: ReadonlyArray<Line>
  /** The files created or modified, the newest last. */
  readonly files: ReadonlyArray<FileEntry>
}

const isCommit = (text: string): boolean => /^git commit\b/.test(text)

// The next step (the one rule of `nextStep.ts`) as a line: an open error as one to resolve.
const nextOf = (state: State): Line | undefined => {
  const next = NextStep.nextStep(state)
  if (next === undefined) return undefined
  return { text: next._tag === "OpenError" ? `resolve ${next.text}` : next.text, turnId: next.turnId }
}

const line = (entry: Line | undefined): Line | undefined => entry === undefined ? undefined : { text: entry.text, turnId: entry.turnId }

/** The outline of `state`. */
export const outline = (state: State): Outline => {
  const open = new Set(state.openErrors.map((e) => e.command))
  const errors = NextStep.openErrors(state)
  const done: Array<Line> = state.events.filter((e) => e.failed !== true).map((e) => ({ text: e.text, turnId: e.turnId }))
  const next = nextOf(state)
  // What is the next step (an item, an error) is said once, as the next step.
  const isNext = (line: Line) => next !== undefined && next.turnId === line.turnId && next.text === `resolve ${line.text}`
  const left: Array<Line> = errors.filter((line) => !isNext(line))
  for (const issue of state.issues) {
    const line = { text: `${issue.id}: ${issue.status}${issue.title === undefined ? "" : ` — ${issue.title}`}`, turnId: issue.turnId }
    if (Plans.isDone(issue.status)) done.push(line)
    else left.push(line)
  }
  for (const c of state.checks) {
    if (c.passed && !open.has(c.command)) {
      done.push({ text: `${c.command}: passed${c.detail === undefined ? "" : `, ${c.detail}`}`, turnId: c.turnId })
    }
  }
  for (const f of state.fixed) done.push({ text: `fixed ${f.text}: ${f.detail ?? "failed"}`, turnId: f.fixedTurnId })
  const plan = NextStep.planInForce(state)
  for (const item of plan?.items ?? []) {
    const status = Plans.trackedStatus(item, state.issues)
    const isNextItem = next?.turnId === plan!.turnId && next.text === item.text
    if (status !== "completed" && !isNextItem) left.push({ text: `${ToolKind.todoMark(status)} ${item.text}`, turnId: plan!.turnId })
  }
  const commits = state.events.filter((e) => e.failed !== true && isCommit(e.text))
  const last = commits.at(-1)
  const latest = state.latestRequest
  return {
    asked: line(state.firstRequest),
    latest: latest !== undefined && latest.text !== state.firstRequest?.text ? line(latest) : undefined,
    done,
    lastCommit: last === undefined ? undefined : { text: last.text, turnId: last.turnId },
    left,
    next,
    said: (state.userSaid ?? []).map((entry) => ({ text: entry.text, turnId: entry.turnId })),
    files: state.files.filter((f) => f.action !== "read")
  }
}
