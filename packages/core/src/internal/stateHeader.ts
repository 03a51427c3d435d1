/**
 * The session state as a header of short sections within a token budget: its
 * entries, each with the section it goes in and the order in which it may be
 * dropped, kept as far as the budget allows, the least important first to go.
 *
 * @internal
 */
import * as Escape from "../Escape.js"
import type * as TokenEstimator from "../TokenEstimator.js"
import * as ToolKind from "../ToolKind.js"
import { nextStep, planInForce } from "./nextStep.js"
import * as Plans from "./plans.js"
import { relativePaths } from "./text.js"
import type { FileEntry, PlanItem, State } from "./stateSchema.js"

/** One entry: its section, its text, and when it may be dropped (lower first). */
interface Entry {
  readonly section: string
  readonly text: string
  readonly drop: number
}

/** The order of the sections in the header: a section's rank, lower first. */
type SectionRank = (section: string) => number

const assemble = (heading: string, rank: SectionRank, kept: ReadonlyArray<Entry>, dropped: number): string => {
  const sections = new Map<string, Array<string>>()
  for (const entry of kept) {
    const list = sections.get(entry.section)
    if (list === undefined) sections.set(entry.section, [entry.text])
    else list.push(entry.text)
  }
  const ordered = [...sections.keys()].sort((a, b) => rank(a) - rank(b))
  const parts = [heading]
  for (const section of ordered) parts.push(`${section}:`, ...sections.get(section)!)
  if (dropped > 0) parts.push(`(${dropped} older entries left out)`)
  // Each part is one line, whatever an id, a path or a command in it holds.
  return parts.map(Escape.line).join("\n")
}

/**
 * `heading`, then the entries by section (`SECTION:` and its entries, the
 * sections in `rank` order), dropping the fewest entries (in their drop order,
 * noted at the end) that keep the text within `maxTokens`; the heading alone
 * when no entry fits, `""` when not even it fits.
 */
const fit = (
  heading: string,
  rank: SectionRank,
  all: ReadonlyArray<Entry>,
  maxTokens: number,
  estimator: TokenEstimator.Service
): string => {
  const fits = (text: string) => estimator.estimate(text) <= maxTokens
  const order = all.map((entry, i) => ({ entry, i })).sort((a, b) => a.entry.drop - b.entry.drop || a.i - b.i)
  const build = (dropCount: number) => {
    const gone = new Set(order.slice(0, dropCount).map((o) => o.i))
    return assemble(heading, rank, all.filter((_, i) => !gone.has(i)), dropCount)
  }
  if (fits(build(0))) return build(0)
  // The fewest drops that fit (more drops never make the text longer, but for the note's digits).
  let lo = 1
  let hi = all.length
  if (!fits(build(hi))) return fits(heading) ? heading : ""
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2)
    if (fits(build(mid))) hi = mid
    else lo = mid + 1
  }
  return build(lo)
}

/**
 * A turn id as the header cites it: a UUID by its first 8 characters, as git
 * shortens a hash (the `#k` suffix of a turn derived from a line, `uuid#2`,
 * kept); an importer's derived id (`claude-code:412-1a2b3c4d5e6f`) by its
 * format and position (`claude-code:412`); other ids as they are. The short
 * form starts the id as the store and recall's `expand` show it.
 */
export const shortId = (id: string): string => {
  const uuid = /^([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(#\d+)?$/i.exec(id)
  if (uuid !== null) return `${uuid[1]}${uuid[2] ?? ""}`
  return /^([\w.-]+:\d+)-[0-9a-f]{12}$/.exec(id)?.[1] ?? id
}

/**
 * What a store lookup of a cited id starts with: the short id without a `#k`
 * suffix (every id it shortens starts with that), else the short id itself.
 */
export const citedPrefix = (cited: string): string => cited.replace(/#\d+$/, "")

/** Whether `turnId` is the turn `cited` names: the same id, or its {@link shortId}. */
export const cites = (cited: string, turnId: string): boolean => turnId === cited || shortId(turnId) === cited

const cite = (turnId: string) => ` [${shortId(turnId)}]`

// A result older than the writes to what it covers says so: `passed before 3 edits`.
const stale = (edits: number | undefined) => edits === undefined || edits === 0 ? "" : ` before ${edits} edit${edits === 1 ? "" : "s"}`

// The files an error fixed names (the newest), the rest counted.
const MAX_EDITS_SHOWN = 2

// What an item's mark rests on when only the agent said it: its claim, or the step that failed after it.
const claim = (item: PlanItem, status: string): string =>
  item.undone !== undefined
    ? ` (ticked, then ${item.undone.text} failed${cite(item.undone.turnId)})`
    : item.claimed === true && status === "completed"
    ? " (the agent's claim)"
    : ""

// The `Next:` line: the one rule of `nextStep.ts`, in the header's words.
const nextLine = (state: State): string | undefined => {
  const next = nextStep(state)
  if (next === undefined) return undefined
  switch (next._tag) {
    case "Request":
      return `- the ${next.which} request, not yet answered${cite(next.turnId)}`
    case "PlanItem":
      return `- plan: ${next.text}${cite(next.turnId)}`
    case "Intent":
      return `- the agent's last stated intent: ${next.text}${cite(next.turnId)}`
    case "OpenError":
      return `- resolve ${next.text}${cite(next.turnId)}`
  }
}

/**
 * The last shell command, unless another entry already names it (a check, an
 * error, a git or tracker event cites its call or its result): whatever the
 * agent ran last, `rm JOKE.md` as much as `npm test`.
 */
const lastCommandEntry = (state: State): string | undefined => {
  const last = state.lastCommand
  if (last === undefined) return undefined
  const turns = new Set([last.turnId, last.resultTurnId])
  const cited = [...state.checks, ...state.openErrors, ...state.events, ...state.issues].some((entry) => turns.has(entry.turnId)) ||
    state.fixed.some((fix) => turns.has(fix.turnId) || turns.has(fix.fixedTurnId))
  return cited ? undefined : `- last command: ${last.command}${cite(last.turnId)}`
}

/** How a header is rendered where it goes. */
export interface RenderOptions {
  /** The context shows the first request verbatim already (pinned first): the header cites it, not its text again. */
  readonly firstRequestShown?: boolean | undefined
}

const entries = (state: State, options: RenderOptions): ReadonlyArray<Entry> => {
  const out: Array<Entry> = []
  // Drop order: reads, git events, passing checks, errors fixed, closed issues, modified, created, plan, latest request,
  // what the user said, errors, the last command, place, next, task.
  const band = (rank: number, i: number, n: number) => rank * 1000 + i / Math.max(1, n)
  const next = nextLine(state)
  if (next !== undefined) out.push({ section: "Next", text: next, drop: band(9.5, 0, 1) })
  const said = state.userSaid ?? []
  // The user's word stays longer than the latest request, the newest longest.
  said.forEach((s, i) => out.push({ section: "User said", text: `- ${s.text}${cite(s.turnId)}`, drop: band(7.5, i, said.length) }))
  if (state.firstRequest !== undefined) {
    const text = options.firstRequestShown === true ? "shown verbatim in this context" : state.firstRequest.text
    out.push({ section: "Task", text: `- first request: ${text}${cite(state.firstRequest.turnId)}`, drop: band(10, 0, 1) })
  }
  if (state.latestRequest !== undefined) {
    out.push({ section: "Task", text: `- latest request: ${state.latestRequest.text}${cite(state.latestRequest.turnId)}`, drop: band(7, 0, 1) })
  }
  const cwd = state.cwd?.value
  if (state.cwd !== undefined) out.push({ section: "Where", text: `- directory: ${state.cwd.value}${cite(state.cwd.turnId)}`, drop: band(9, 0, 1) })
  if (state.branch !== undefined) out.push({ section: "Where", text: `- branch: ${state.branch.value}${cite(state.branch.turnId)}`, drop: band(9, 1, 1) })
  const command = lastCommandEntry(state)
  if (command !== undefined) out.push({ section: "Where", text: command, drop: band(8.5, 0, 1) })
  const plan = planInForce(state)
  if (plan !== undefined) {
    const title = plan.source === "todo" ? `Plan (todo list${cite(plan.turnId)})` : `Plan (from the assistant${cite(plan.turnId)})`
    plan.items.forEach((item, i) => {
      const status = Plans.trackedStatus(item, state.issues)
      out.push({
        section: title,
        text: `- ${ToolKind.todoMark(status)} ${item.text}${claim(item, status)}`,
        // Completed items go before open ones, the last items before the first.
        drop: band(status === "completed" ? 5 : 6, plan.items.length - i, plan.items.length)
      })
    })
  }
  const n = state.openErrors.length
  state.openErrors.forEach((e, i) =>
    out.push({ section: "Open errors", text: `- ${e.command}: ${e.detail ?? "failed"}${cite(e.turnId)}`, drop: band(8, i, n) })
  )
  // An error fixed says what not to try again: it goes after the open ones, before the passing checks.
  state.fixed.forEach((f, i) => {
    const edited = f.edited ?? []
    const more = edited.length > MAX_EDITS_SHOWN ? ` and ${edited.length - MAX_EDITS_SHOWN} more` : ""
    const edits = edited.length === 0
      ? ""
      : `, editing ${edited.slice(-MAX_EDITS_SHOWN).map((path) => relativePaths(path, cwd)).join(", ")}${more}`
    // What fixed it: the command that went through instead, the commands run and the files written in between.
    const by = f.by === undefined ? "" : ` by ${f.by}`
    const ran = f.ran === undefined || f.ran.length === 0 ? "" : `, running ${f.ran.join("; ")}`
    out.push({
      section: "Errors fixed",
      text: `- ${f.text}: ${f.detail ?? "failed"}${cite(f.turnId)} → fixed${by}${ran}${edits}${cite(f.fixedTurnId)}`,
      drop: band(2.5, i, state.fixed.length)
    })
  })
  const checks = state.checks
  const open = new Set(state.openErrors.map((e) => e.command))
  checks.forEach((c, i) =>
    out.push({
      section: "Last checks",
      text: `- ${c.command}: ${c.passed ? "passed" : "FAILED"}${stale(c.editsSince)}${c.detail === undefined ? "" : `, ${c.detail}`}${cite(c.turnId)}`,
      // A failure a later pass covered matters no more than a pass.
      drop: band(open.has(c.command) ? 8 : 2, i, checks.length)
    })
  )
  const byAction = (action: FileEntry["action"]) => state.files.filter((f) => f.action === action)
  for (const [action, title, rank] of [["created", "Files created", 4], ["modified", "Files modified", 4], ["read", "Files read", 0]] as const) {
    const files = byAction(action)
    files.forEach((f, i) =>
      out.push({ section: title, text: `- ${relativePaths(f.path, cwd)}${cite(f.turnId)}`, drop: band(rank, i, files.length) + (action === "created" ? 0.5 : 0) })
    )
  }
  // An issue still open is work left: it stays longer than a closed one.
  state.issues.forEach((issue, i) =>
    out.push({
      section: "Issues",
      text: `- ${issue.id}: ${issue.status}${issue.title === undefined ? "" : ` — ${issue.title}`}${cite(issue.turnId)}`,
      drop: band(Plans.isDone(issue.status) ? 3 : 6, i, state.issues.length)
    })
  )
  // A failed event not yet redone is an open error.
  state.events.forEach((e, i) =>
    out.push(
      e.failed === true
        ? { section: "Open errors", text: `- ${e.text} failed: ${e.detail ?? "?"}${cite(e.turnId)}`, drop: band(8, i, state.events.length) }
        : { section: "Git", text: `- ${e.text}${cite(e.turnId)}`, drop: band(1, i, state.events.length) }
    )
  )
  return out
}

const SECTIONS = ["Task", "Next", "User said", "Where", "Open errors", "Errors fixed", "Last checks", "Issues", "Git", "Files created", "Files modified", "Files read"]

// The plan goes after the task and place, before the errors.
const sectionRank = (section: string): number => section.startsWith("Plan") ? 3.5 : SECTIONS.indexOf(section)

const heading = (state: State): string =>
  state.firstTurnId === undefined
    ? "Session state (no turns yet):"
    : `Session state (from turns ${shortId(state.firstTurnId)} … ${shortId(state.lastTurnId ?? state.firstTurnId)}, ${state.turnCount} turns):`

/** The state as its header within `maxTokens` (see `SessionState.render`). */
export const render = (
  state: State,
  maxTokens: number,
  estimator: TokenEstimator.Service,
  options: RenderOptions = {}
): string => fit(heading(state), sectionRank, entries(state, options), maxTokens, estimator)
