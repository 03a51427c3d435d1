/**
 * The session state: what an agent continuing a session must know first,
 * folded deterministically from the turns' tool structure (read through
 * `ToolUse` of `@precis/core`) and rendered as a short header placed first in
 * the assembled context.
 *
 * It holds the task (the first and the latest real user requests), the
 * working directory and branch, the files created / modified / read, the last
 * result of each test, lint or build command (with its pass/fail counts when
 * the output states them), the errors still open (a failing check not yet
 * followed by a pass of the same command), task-tracker and git changes
 * (`bd update/close`, `gh issue close`, commits, pushes, new branches) and the
 * assistant's latest plan (its `TodoWrite` list, else the latest numbered
 * list in its prose). Every entry cites the id of the turn it came from.
 *
 * {@link step} is pure, so a stored state (see {@link State}, a Schema) can be
 * carried forward: folding a prefix, storing it, then stepping the rest gives
 * the state of the whole.
 *
 * @since 0.3.0
 */
import { ConversationTurn, TokenEstimator, ToolUse } from "@precis/core"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Commands from "./internal/commands.js"

const Cited = { turnId: Schema.String }

/**
 * A user request: its text (trimmed and cut) and its turn.
 *
 * @since 0.3.0
 */
export const Request = Schema.Struct({ text: Schema.String, ...Cited })

/**
 * A value (a directory, a branch) and the turn that last said it.
 *
 * @since 0.3.0
 */
export const Place = Schema.Struct({ value: Schema.String, ...Cited })

/**
 * A file the session touched, by what it did to it last (created outranks
 * modified, modified outranks read).
 *
 * @since 0.3.0
 */
export const FileEntry = Schema.Struct({
  path: Schema.String,
  action: Schema.Literal("created", "modified", "read"),
  ...Cited
})

/**
 * The last result of a check command: its kind, family (`mix test`), the
 * command, whether it passed, and its summary line (counts) or first error
 * line when its output has one.
 *
 * @since 0.3.0
 */
export const CheckResult = Schema.Struct({
  kind: Schema.Literal("test", "lint", "build"),
  family: Schema.String,
  command: Schema.String,
  passed: Schema.Boolean,
  detail: Schema.optional(Schema.String),
  ...Cited
})

/**
 * An issue's latest status (`bd`, `gh issue`).
 *
 * @since 0.3.0
 */
export const IssueStatus = Schema.Struct({ id: Schema.String, status: Schema.String, ...Cited })

/**
 * A git or tracker event: a commit, a push, a new branch, an issue created;
 * one that failed (a commit a pre-commit hook refused) is an open error until
 * the same event succeeds.
 *
 * @since 0.3.0
 */
export const Event = Schema.Struct({
  text: Schema.String,
  failed: Schema.optional(Schema.Boolean),
  /** Why it failed: the output's first error line, else its first line. */
  detail: Schema.optional(Schema.String),
  ...Cited
})

/**
 * An item of the assistant's plan: its text and status (`pending`,
 * `in_progress`, `completed`; `pending` for a numbered line of prose).
 *
 * @since 0.3.0
 */
export const PlanItem = Schema.Struct({ text: Schema.String, status: Schema.String })

/**
 * The assistant's latest plan: from `TodoWrite` (`todo`) or its prose (`prose`).
 *
 * @since 0.3.0
 */
export const Plan = Schema.Struct({
  source: Schema.Literal("todo", "prose"),
  items: Schema.Array(PlanItem),
  ...Cited
})

/**
 * A tool call waiting for its result (its effect is recorded when the result says how it went).
 *
 * @since 0.3.0
 */
export const PendingCall = Schema.Struct({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  arguments: Schema.String,
  ...Cited
})

/**
 * The session state, as stored: plain JSON data (`Schema.encode` /
 * `Schema.parseJson(State)`). `version` changes when the fold does, so a
 * state stored by another version is folded again from the start.
 *
 * @since 0.3.0
 */
export const State = Schema.Struct({
  version: Schema.Literal(1),
  turnCount: Schema.Int,
  firstTurnId: Schema.optional(Schema.String),
  lastTurnId: Schema.optional(Schema.String),
  firstRequest: Schema.optional(Request),
  latestRequest: Schema.optional(Request),
  cwd: Schema.optional(Place),
  branch: Schema.optional(Place),
  files: Schema.Array(FileEntry),
  checks: Schema.Array(CheckResult),
  openErrors: Schema.Array(CheckResult),
  issues: Schema.Array(IssueStatus),
  events: Schema.Array(Event),
  plan: Schema.optional(Plan),
  todos: Schema.optional(Plan),
  pending: Schema.Array(PendingCall)
})

/**
 * @since 0.3.0
 */
export type State = typeof State.Type

/**
 * The state as a JSON string (what the store keeps).
 *
 * @since 0.3.0
 */
export const StateFromJson = Schema.parseJson(State)

/**
 * The state of no turns.
 *
 * @since 0.3.0
 */
export const empty: State = {
  version: 1,
  turnCount: 0,
  files: [],
  checks: [],
  openErrors: [],
  issues: [],
  events: [],
  pending: []
}

// Bounds that keep a state (and its row) small however long the session.
const MAX_FILES = 200
const MAX_CHECKS = 40
const MAX_ISSUES = 60
const MAX_EVENTS = 30
const MAX_PENDING = 64
const MAX_PLAN = 20
const MAX_REQUEST = 300

type Turn = ConversationTurn.ConversationTurn

const str = (u: unknown): string | undefined => (typeof u === "string" && u.length > 0 ? u : undefined)

// User turns that are no request: harness noise, command echoes, reminders, continuations.
const NOISE = [
  /^<(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat|task-notification|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr)>/,
  /^\[Request interrupted by user/,
  /^This session is being continued from a previous conversation/,
  /^Caveat: The messages below were generated by the user while running local commands/
]

/**
 * The request a turn makes, if it is a real user request: a `user` turn that
 * is not a tool result, not marked meta or sidechain, and not harness noise
 * (`<command-name>`, `<local-command-stdout>`, system reminders, interruption
 * notices, a continuation summary). System-reminder blocks are removed.
 *
 * @since 0.3.0
 */
export const requestOf = (turn: Turn): string | undefined => {
  if (turn.role.trim().toLowerCase() !== "user" || ConversationTurn.isToolResult(turn)) return undefined
  const meta = turn.metadata ?? {}
  if (meta.meta === true || meta.isMeta === true || meta.sidechain === true || meta.isDemo === true) return undefined
  const text = turn.content.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim()
  if (text.length === 0 || NOISE.some((pattern) => pattern.test(text))) return undefined
  return Commands.clip(text, MAX_REQUEST)
}

// Tool names by what they do to a file (Claude Code, SWE-agent, OpenHands and common names).
const WRITE_TOOLS = new Set(["Write", "write_file", "create_file", "create"])
const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "NotebookEdit", "edit", "edit_file", "apply_patch", "insert"])
const READ_TOOLS = new Set(["Read", "read_file", "open", "view", "cat", "NotebookRead"])
const EDITOR_TOOLS = new Set(["str_replace_editor", "str_replace_based_edit_tool", "edit_tool"])
const SHELL_TOOLS = new Set(["Bash", "bash", "execute_bash", "shell", "run", "run_shell_command", "exec_command", "terminal"])

const pathOf = (input: { readonly [key: string]: unknown }): string | undefined =>
  str(input.file_path) ?? str(input.filePath) ?? str(input.path) ?? str(input.notebook_path) ?? str(input.filename)

// What a file tool did to a file, judged from the call and its result.
const fileAction = (call: ToolUse.Call, output: string): { path: string; action: FileEntry["action"] } | undefined => {
  const path = pathOf(call.input)
  if (path === undefined) return undefined
  if (WRITE_TOOLS.has(call.name)) {
    return { path, action: /\b(?:updated|overwr|modified)\b/i.test(output) ? "modified" : "created" }
  }
  if (EDIT_TOOLS.has(call.name)) return { path, action: "modified" }
  if (READ_TOOLS.has(call.name)) return { path, action: "read" }
  if (EDITOR_TOOLS.has(call.name)) {
    const command = str(call.input.command)
    if (command === "create") return { path, action: "created" }
    if (command === "view") return { path, action: "read" }
    if (command === "str_replace" || command === "insert" || command === "undo_edit") return { path, action: "modified" }
  }
  return undefined
}

type FileEntry = typeof FileEntry.Type
type CheckResult = typeof CheckResult.Type
type PlanItem = typeof PlanItem.Type

const RANK = { read: 0, modified: 1, created: 2 } as const

const touch = (files: ReadonlyArray<FileEntry>, entry: FileEntry): ReadonlyArray<FileEntry> => {
  const earlier = files.find((f) => f.path === entry.path)
  const action = earlier !== undefined && RANK[earlier.action] > RANK[entry.action] ? earlier.action : entry.action
  const rest = files.filter((f) => f.path !== entry.path)
  const next = [...rest, { ...entry, action }]
  if (next.length <= MAX_FILES) return next
  // Over the bound: forget the oldest read first, else the oldest entry.
  const drop = next.findIndex((f) => f.action === "read")
  return next.filter((_, i) => i !== (drop === -1 ? 0 : drop))
}

const upsert = <A>(items: ReadonlyArray<A>, same: (a: A) => boolean, item: A, max: number): ReadonlyArray<A> => {
  const next = [...items.filter((a) => !same(a)), item]
  return next.length > max ? next.slice(next.length - max) : next
}

const outputOf = (turn: Turn): string => turn.content

// Whether a result says its command failed, counts first (a `| tail` hides the exit status).
const failedRun = (turn: Turn, answer: ToolUse.Result, counts: Commands.Counts | undefined): boolean => {
  if (counts !== undefined) return counts.failed > 0
  const exitCode = turn.metadata?.exitCode
  if (answer.isError || (typeof exitCode === "number" && exitCode !== 0) || turn.metadata?.success === false) return true
  return Commands.errorLine(outputOf(turn)) !== undefined
}

const recordCheck = (state: State, check: Commands.Check, result: CheckResult): State => {
  const checks = upsert(state.checks, (c) => c.command === check.command, result, MAX_CHECKS)
  const openErrors = result.passed
    ? state.openErrors.filter((e) => !Commands.covers(check, e))
    : upsert(state.openErrors, (e) => e.command === check.command, result, MAX_CHECKS)
  return { ...state, checks, openErrors }
}

// A shell call and its result: checks, tracker and git changes.
// A check cites its result (the output with the counts), a change the call that made it.
const shellResult = (
  state: State,
  line: string,
  turn: Turn,
  answer: ToolUse.Result,
  at: { readonly call: string; readonly result: string }
): State => {
  const turnId = at.call
  const output = outputOf(turn)
  if (Commands.isDeferred(output)) return state
  const commands = Commands.simpleCommands(line)
  const counts = Commands.countsOf(output)
  const failed = failedRun(turn, answer, counts)
  let next = state
  // The result of a chain belongs to its last check.
  const check = commands.map(Commands.checkOf).filter((c) => c !== undefined).at(-1)
  if (check !== undefined) {
    const detail = counts?.summary ?? (failed ? Commands.errorLine(output) : undefined)
    next = recordCheck(next, check, {
      kind: check.kind,
      family: check.family,
      command: check.command,
      passed: !failed,
      ...(detail === undefined ? {} : { detail }),
      turnId: at.result
    })
  }
  const shellFailed = answer.isError || (typeof turn.metadata?.exitCode === "number" && turn.metadata.exitCode !== 0)
  const message = Commands.commitMessage(line)
  if (message !== undefined && !/nothing to commit/.test(output)) {
    next = addEvent(next, event(`git commit "${message}"`, shellFailed && output, turnId))
  }
  for (const change of commands.flatMap(Commands.changesOf)) {
    switch (change._tag) {
      case "Issue":
        if (!shellFailed) {
          next = { ...next, issues: upsert(next.issues, (i) => i.id === change.id, { id: change.id, status: change.status, turnId }, MAX_ISSUES) }
        }
        break
      case "Branch":
        if (!shellFailed) next = { ...next, branch: { value: change.name, turnId } }
        break
      case "Git":
        next = addEvent(next, event(change.text, shellFailed && output, turnId))
    }
  }
  return next
}

// What an event does, its first two words (`git commit`, `git push`): a success of it settles earlier failures.
const action = (text: string) => text.split(" ", 2).join(" ")

// An event replaces an earlier one of the same text (a commit retried after a failing hook, the latest push);
// a success drops the failures of its action (a commit that went through, whatever its message now).
const addEvent = (state: State, e: typeof Event.Type): State => {
  const kept = e.failed === true ? state.events : state.events.filter((o) => !(o.failed === true && action(o.text) === action(e.text)))
  return { ...state, events: upsert(kept, (other) => other.text === e.text, e, MAX_EVENTS) }
}

// An event, failed with the output of its command when that is given.
const event = (text: string, failedWith: string | false, turnId: string): typeof Event.Type => {
  if (failedWith === false) return { text, turnId }
  // Some tools escape line breaks in the output they report.
  const lines = failedWith.replace(/\\n/g, "\n").split("\n").map((l) => l.trim()).filter((l) => l.length > 0)
  // A first line ending in a colon announces the next one ("Pre-commit validation failed:", "[DIALYZER]").
  const first = lines[0]?.endsWith(":") === true && lines[1] !== undefined ? `${lines[0]} ${lines[1]}` : lines[0]
  const detail = Commands.errorLine(lines.join("\n")) ?? first
  return detail === undefined ? { text, failed: true, turnId } : { text, failed: true, detail: Commands.clip(detail, 120), turnId }
}

// A tool result, with the call it answers.
const resultStep = (state: State, turn: Turn, answer: ToolUse.Result, turnId: string): State => {
  // Nearest first: an answer without ids goes to the latest call of its tool.
  const waiting = [...state.pending].reverse().flatMap((pending) =>
    ToolUse.calls({ role: "assistant", metadata: { toolCalls: [pending] } }).map((call) => ({ pending, call }))
  )
  const candidates = waiting.map((w) => w.call)
  const call = ToolUse.callFor(answer, candidates)
  if (call === undefined) return state
  const pendingCall = waiting[candidates.indexOf(call)]!.pending
  const rest = state.pending.filter((p) => p !== pendingCall)
  const base: State = { ...state, pending: rest }
  if (SHELL_TOOLS.has(call.name)) {
    const line = str(call.input.command) ?? str(call.input.cmd)
    return line === undefined ? base : shellResult(base, line, turn, answer, { call: pendingCall.turnId, result: turnId })
  }
  if (answer.isError) return base
  // A file is cited by the call that wrote or read it.
  const touched = fileAction(call, outputOf(turn))
  return touched === undefined ? base : { ...base, files: touch(base.files, { ...touched, turnId: pendingCall.turnId }) }
}

const TODO_STATUS = new Set(["pending", "in_progress", "completed"])

const todosOf = (input: { readonly [key: string]: unknown }): ReadonlyArray<PlanItem> | undefined => {
  if (!Array.isArray(input.todos)) return undefined
  const items: Array<PlanItem> = []
  for (const todo of input.todos) {
    if (!Predicate.isRecord(todo)) continue
    const text = str(todo.content) ?? str(todo.activeForm)
    if (text === undefined) continue
    const status = str(todo.status)
    items.push({ text: Commands.clip(text, 160), status: status !== undefined && TODO_STATUS.has(status) ? status : "pending" })
  }
  return items.slice(0, MAX_PLAN)
}

const NUMBERED = /^\s*(\d{1,2})[.)]\s+(\S.*)$/

// A numbered line of prose as a plan item: done when it starts with a check mark.
const planItem = (line: string): PlanItem => {
  const text = line.replace(/\*\*/g, "")
  const done = /^(?:✅|✔️?|\[x\])\s*/i.exec(text)
  return { text: Commands.clip(done === null ? text : text.slice(done[0].length), 160), status: done === null ? "pending" : "completed" }
}

// The last run of at least two consecutive numbered lines in an assistant's prose.
const proseplan = (content: string): ReadonlyArray<PlanItem> | undefined => {
  const lines = content.split("\n").filter((l) => !l.startsWith("[tool_call ") && !l.startsWith("[thinking]"))
  let found: Array<PlanItem> | undefined
  let run: Array<PlanItem> = []
  let expected = 1
  for (const line of lines) {
    const m = NUMBERED.exec(line)
    if (m !== null && Number(m[1]) === expected) {
      run.push(planItem(m[2]!))
      expected++
      continue
    }
    if (m === null && line.trim().length > 0 && /^\s{2,}|^\s*[-*]/.test(line)) continue // a nested line keeps the run
    if (run.length >= 2) found = run
    run = m !== null && Number(m[1]) === 1 ? [planItem(m[2]!)] : []
    expected = run.length + 1
  }
  if (run.length >= 2) found = run
  return found?.slice(0, MAX_PLAN)
}

// An assistant's turn: its calls wait for their results; its plan or todo list.
const assistantStep = (state: State, turn: Turn, turnId: string): State => {
  let next = state
  const calls = ToolUse.calls(turn)
  for (const call of calls) {
    if (call.name === "TodoWrite") {
      const items = todosOf(call.input)
      if (items !== undefined) next = { ...next, todos: { source: "todo", items, turnId } }
      continue
    }
    const pending = { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, arguments: call.arguments, turnId }
    const all = [...next.pending, pending]
    next = { ...next, pending: all.length > MAX_PENDING ? all.slice(all.length - MAX_PENDING) : all }
  }
  const items = proseplan(turn.content)
  if (items !== undefined) next = { ...next, plan: { source: "prose", items, turnId } }
  return next
}

/**
 * The state after one more turn. Pure and deterministic: the same state and
 * turn always give the same result. A turn without an id is cited as
 * `#N` (its 1-based position in the fold).
 *
 * @since 0.3.0
 */
export const step = (state: State, turn: Turn): State => {
  const turnId = turn.id ?? `#${state.turnCount + 1}`
  let next: State = {
    ...state,
    turnCount: state.turnCount + 1,
    firstTurnId: state.firstTurnId ?? turnId,
    lastTurnId: turnId
  }
  const meta = turn.metadata ?? {}
  const cwd = str(meta.cwd)
  if (cwd !== undefined && next.cwd?.value !== cwd) next = { ...next, cwd: { value: cwd, turnId } }
  const branch = str(meta.gitBranch)
  if (branch !== undefined && next.branch?.value !== branch) next = { ...next, branch: { value: branch, turnId } }
  const request = requestOf(turn)
  if (request !== undefined) {
    const cited = { text: request, turnId }
    next = next.firstRequest === undefined ? { ...next, firstRequest: cited } : { ...next, latestRequest: cited }
  }
  const answer = ToolUse.result(turn)
  if (answer !== undefined) return resultStep(next, turn, answer, turnId)
  if (turn.role.trim().toLowerCase() === "assistant") return assistantStep(next, turn, turnId)
  return next
}

/**
 * The state of `turns`, folded from `from` (default {@link empty}).
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * import { SessionState } from "@precis/compaction"
 * const state = SessionState.fold([ConversationTurn.make({ role: "user", content: "Fix the login bug", id: "u1" })])
 * state.firstRequest // { text: "Fix the login bug", turnId: "u1" }
 * ```
 * @since 0.3.0
 */
export const fold = (turns: Iterable<Turn>, from: State = empty): State => {
  let state = from
  for (const turn of turns) state = step(state, turn)
  return state
}

/**
 * The default cap of {@link render} when no budget gives one.
 *
 * @since 0.3.0
 */
export const defaultMaxTokens = 2000

// One rendered line, its section, and when it may be dropped (lower first; Infinity never).
interface Line {
  readonly section: string
  readonly text: string
  readonly drop: number
}

const cite = (turnId: string) => ` [${turnId}]`

// The directory a path is shown relative to, when it lies below it.
const relative = (path: string, cwd: string | undefined): string =>
  cwd !== undefined && path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path

const MARK: { readonly [status: string]: string } = { completed: "[x]", in_progress: "[>]", pending: "[ ]" }

// A tracker's status as a plan item's: closed and done ones are completed, in-progress ones in progress.
const ISSUE_DONE = /^(?:closed|done|completed|resolved|merged)$/i
const ISSUE_ACTIVE = /^(?:in[_-]?progress|started|active)$/i

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

// An item of a prose plan has no status of its own: the tracker's status of the
// issue it names (the longest id it names, so `x-1.2` wins over `x-1`) stands for it.
const trackedStatus = (item: PlanItem, issues: State["issues"]): string => {
  if (item.status !== "pending") return item.status
  let best: { readonly id: string; readonly status: string } | undefined
  for (const issue of issues) {
    if (best !== undefined && issue.id.length <= best.id.length) continue
    if (new RegExp(`(?<![\\w.-])${escapeRegExp(issue.id)}(?![\\w-]|\\.\\w)`).test(item.text)) best = issue
  }
  if (best === undefined) return item.status
  return ISSUE_DONE.test(best.status) ? "completed" : ISSUE_ACTIVE.test(best.status) ? "in_progress" : item.status
}

const lines = (state: State): ReadonlyArray<Line> => {
  const out: Array<Line> = []
  // Drop order: reads, git events, passing checks, issues, modified, created, plan, latest request, errors, place, task.
  const band = (rank: number, i: number, n: number) => rank * 1000 + i / Math.max(1, n)
  if (state.firstRequest !== undefined) {
    out.push({ section: "Task", text: `- first request: ${state.firstRequest.text}${cite(state.firstRequest.turnId)}`, drop: band(10, 0, 1) })
  }
  if (state.latestRequest !== undefined) {
    out.push({ section: "Task", text: `- latest request: ${state.latestRequest.text}${cite(state.latestRequest.turnId)}`, drop: band(7, 0, 1) })
  }
  const cwd = state.cwd?.value
  if (state.cwd !== undefined) out.push({ section: "Where", text: `- directory: ${state.cwd.value}${cite(state.cwd.turnId)}`, drop: band(9, 0, 1) })
  if (state.branch !== undefined) out.push({ section: "Where", text: `- branch: ${state.branch.value}${cite(state.branch.turnId)}`, drop: band(9, 1, 1) })
  const plan = state.todos ?? state.plan
  if (plan !== undefined) {
    const title = plan.source === "todo" ? `Plan (todo list${cite(plan.turnId)})` : `Plan (from the assistant${cite(plan.turnId)})`
    plan.items.forEach((item, i) => {
      const status = plan.source === "prose" ? trackedStatus(item, state.issues) : item.status
      out.push({
        section: title,
        text: `- ${MARK[status] ?? "[ ]"} ${item.text}`,
        // Completed items go before open ones, the last items before the first.
        drop: band(status === "completed" ? 5 : 6, plan.items.length - i, plan.items.length)
      })
    })
  }
  const n = state.openErrors.length
  state.openErrors.forEach((e, i) =>
    out.push({ section: "Open errors", text: `- ${e.command}: ${e.detail ?? "failed"}${cite(e.turnId)}`, drop: band(8, i, n) })
  )
  const checks = state.checks
  const open = new Set(state.openErrors.map((e) => e.command))
  checks.forEach((c, i) =>
    out.push({
      section: "Last checks",
      text: `- ${c.command}: ${c.passed ? "passed" : "FAILED"}${c.detail === undefined ? "" : `, ${c.detail}`}${cite(c.turnId)}`,
      // A failure a later pass covered matters no more than a pass.
      drop: band(open.has(c.command) ? 8 : 2, i, checks.length)
    })
  )
  const byAction = (action: FileEntry["action"]) => state.files.filter((f) => f.action === action)
  for (const [action, title, rank] of [["created", "Files created", 4], ["modified", "Files modified", 4], ["read", "Files read", 0]] as const) {
    const files = byAction(action)
    files.forEach((f, i) =>
      out.push({ section: title, text: `- ${relative(f.path, cwd)}${cite(f.turnId)}`, drop: band(rank, i, files.length) + (action === "created" ? 0.5 : 0) })
    )
  }
  state.issues.forEach((issue, i) =>
    out.push({ section: "Issues", text: `- ${issue.id}: ${issue.status}${cite(issue.turnId)}`, drop: band(3, i, state.issues.length) })
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

const SECTIONS = ["Task", "Where", "Open errors", "Last checks", "Issues", "Git", "Files created", "Files modified", "Files read"]

const sectionRank = (section: string): number => {
  const i = SECTIONS.indexOf(section)
  // The plan goes after the task and place, before the errors.
  return section.startsWith("Plan") ? 1.5 : i
}

const heading = (state: State): string =>
  state.firstTurnId === undefined
    ? "Session state (no turns yet):"
    : `Session state (from turns ${state.firstTurnId} … ${state.lastTurnId ?? state.firstTurnId}, ${state.turnCount} turns):`

const assemble = (state: State, kept: ReadonlyArray<Line>, dropped: number): string => {
  const sections = new Map<string, Array<string>>()
  for (const line of kept) {
    const list = sections.get(line.section)
    if (list === undefined) sections.set(line.section, [line.text])
    else list.push(line.text)
  }
  const ordered = [...sections.keys()].sort((a, b) => sectionRank(a) - sectionRank(b))
  const parts = [heading(state)]
  for (const section of ordered) parts.push(`${section}:`, ...sections.get(section)!)
  if (dropped > 0) parts.push(`(${dropped} older entries left out)`)
  return parts.join("\n")
}

/**
 * The state as a compact text block: a heading line (`Session state (from
 * turns FIRST … LAST, N turns):`), then short sections (Task, Where, Plan,
 * Open errors, Last checks, Issues, Git, Files created / modified / read),
 * each entry citing its turn in brackets. Deterministic, and within
 * `maxTokens` as the estimator counts (the core approximation by default):
 * the least important entries go first (files read, git events, passing
 * checks, issues, files modified and created, the plan, ...; the oldest of
 * each first). `""` for a state of no turns, or when not even the heading
 * fits.
 *
 * @since 0.3.0
 */
export const render = (
  state: State,
  maxTokens: number = defaultMaxTokens,
  estimator: TokenEstimator.Service = TokenEstimator.approximate
): string => {
  if (state.turnCount === 0) return ""
  const all = lines(state)
  const fits = (text: string) => estimator.estimate(text) <= maxTokens
  const order = all.map((line, i) => ({ line, i })).sort((a, b) => a.line.drop - b.line.drop || a.i - b.i)
  const build = (dropCount: number) => {
    const gone = new Set(order.slice(0, dropCount).map((o) => o.i))
    return assemble(state, all.filter((_, i) => !gone.has(i)), dropCount)
  }
  if (fits(build(0))) return build(0)
  // The fewest drops that fit (more drops never make the text longer, but for the note's digits).
  let lo = 1
  let hi = all.length
  if (!fits(build(hi))) return fits(heading(state)) ? heading(state) : ""
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2)
    if (fits(build(mid))) hi = mid
    else lo = mid + 1
  }
  return build(lo)
}
