/**
 * A shell call and its result in the session state: the check it ran and its
 * result, the tracker and git changes it made.
 *
 * @internal
 */
import type * as ConversationTurn from "../ConversationTurn.js"
import * as OutputDigest from "../OutputDigest.js"
import * as ToolMetadata from "../ToolMetadata.js"
import type * as ToolUse from "../ToolUse.js"
import * as Commands from "./commands.js"
import * as Counts from "./counts.js"
import * as HookReports from "./hookReports.js"
import * as Plans from "./plans.js"
import type { CheckResult, Event, Fix, IssueStatus, State } from "./stateSchema.js"

// Bounds that keep a state (and its row) small however long the session.
const MAX_CHECKS = 40
const MAX_ISSUES = 60
const MAX_EVENTS = 30
const MAX_BACKGROUND = 16
const MAX_FIXED = 6
// The files an open failure remembers as written since (its fix's edits).
const MAX_EDITED = 4
// The commands an open failure remembers as run since (its fix's commands), and their length.
const MAX_RAN = 2
const MAX_RAN_COMMAND = 60

type Turn = ConversationTurn.ConversationTurn

// `items` with `item` in place of those `same` picks, the oldest dropped over `max`.
const upsert = <A>(items: ReadonlyArray<A>, same: (a: A) => boolean, item: A, max: number): ReadonlyArray<A> => {
  const next = [...items.filter((a) => !same(a)), item]
  return next.length > max ? next.slice(next.length - max) : next
}

// Whether a shell result says its command failed, by the tool or its exit code.
const shellFailed = (answer: ToolUse.Result, metadata: ToolMetadata.ToolMetadata): boolean =>
  answer.isError || (metadata.exitCode !== undefined && metadata.exitCode !== 0)

// Whether a result says its command failed, counts first (a `| tail` hides the exit status).
const failedRun = (
  turn: Turn,
  answer: ToolUse.Result,
  metadata: ToolMetadata.ToolMetadata,
  counts: Counts.Counts | undefined
): boolean => {
  if (counts !== undefined) return counts.failed > 0
  if (shellFailed(answer, metadata) || metadata.success === false) return true
  return Commands.errorLine(OutputDigest.withoutAnsi(turn.content)) !== undefined
}

// Whether a result of `check` makes an earlier result of `earlier` stale: the same command, or the
// same tool over a broader selection (`mix test` after `mix test test/a_test.exs`), whatever they said.
const supersedes = (check: Commands.Check, earlier: Commands.Check): boolean =>
  earlier.command === check.command ||
  (earlier.family === check.family && (Commands.isWholeRun(check) || Commands.covers(check, earlier)))

// `failure` as fixed at `fixedTurnId` by `by`: what failed, why, the files written and commands run in between.
const fixOf = (text: string, failure: CheckResult | Event, by: string, fixedTurnId: string): Fix => ({
  text,
  ...(failure.detail === undefined ? {} : { detail: failure.detail }),
  ...(failure.edited === undefined ? {} : { edited: failure.edited }),
  ...(failure.ran === undefined ? {} : { ran: failure.ran }),
  ...(by === text ? {} : { by }),
  turnId: failure.turnId,
  fixedTurnId
})

// The state with its todo list changed by `f`.
const onTodos = (state: State, f: (todos: NonNullable<State["todos"]>) => NonNullable<State["todos"]>): State =>
  state.todos === undefined ? state : { ...state, todos: f(state.todos) }

const withFixes = (state: State, fixes: ReadonlyArray<Fix>): State => {
  if (fixes.length === 0) return state
  const fixed = [...state.fixed, ...fixes]
  return { ...state, fixed: fixed.slice(Math.max(0, fixed.length - MAX_FIXED)) }
}

const recordCheck = (state: State, check: Commands.Check, result: CheckResult): State => {
  // The newest result of a check stands for it, and a broader run for the narrower ones it covers.
  const checks = upsert(state.checks, (c) => supersedes(check, c), result, MAX_CHECKS)
  if (!result.passed) {
    const open = since(state.openErrors.find((e) => e.command === check.command), result)
    return { ...state, checks, openErrors: upsert(state.openErrors, (e) => e.command === check.command, open, MAX_CHECKS) }
  }
  const covered = state.openErrors.filter((e) => Commands.covers(check, e))
  const openErrors = state.openErrors.filter((e) => !covered.includes(e))
  return withFixes(onTodos({ ...state, checks, openErrors }, Plans.confirmed), covered.map((e) => fixOf(e.command, e, e.command, result.turnId)))
}

const addEdited = <A extends { readonly edited?: ReadonlyArray<string> | undefined }>(failure: A, path: string): A => {
  const edited = [...(failure.edited ?? []).filter((p) => p !== path), path]
  return { ...failure, edited: edited.slice(Math.max(0, edited.length - MAX_EDITED)) }
}

// A failure again keeps what was written and run since the first one.
const since = <A extends Pick<CheckResult, "edited" | "ran">>(earlier: A | undefined, failure: A): A => ({
  ...failure,
  ...(earlier?.edited === undefined ? {} : { edited: earlier.edited }),
  ...(earlier?.ran === undefined ? {} : { ran: earlier.ran })
})

const addRan = <A extends { readonly ran?: ReadonlyArray<string> | undefined }>(failure: A, command: string): A => {
  const ran = [...(failure.ran ?? []).filter((c) => c !== command), command]
  return { ...failure, ran: ran.slice(Math.max(0, ran.length - MAX_RAN)) }
}

// A command a fix may have run: not a look, a check, or the git and tracker steps whose failures are the errors.
const fixing = (command: string): boolean =>
  !Commands.onlyLooks(command) && !Commands.isSilent(command) && Commands.checkOf(command) === undefined &&
  !/^(?:git (?:add|commit|push)|bd|beads|gh)\b/.test(command)

// The state after a shell line ran: each failure still open remembers the commands of it a fix may have run.
const ranSince = (state: State, commands: ReadonlyArray<string>): State => {
  const run = commands.filter(fixing).map((c) => Commands.clip(c, MAX_RAN_COMMAND))
  if (run.length === 0 || (state.openErrors.length === 0 && !state.events.some((e) => e.failed === true))) return state
  const add = <A extends { readonly ran?: ReadonlyArray<string> | undefined }>(failure: A) => run.reduce(addRan, failure)
  return {
    ...state,
    openErrors: state.openErrors.map(add),
    events: state.events.map((e) => e.failed === true ? add(e) : e)
  }
}

/**
 * The state after a file was written (created or modified): each failure still open remembers it,
 * and each check whose result it may change counts it (the result is older than the code).
 */
export const edited = (state: State, path: string): State => ({
  ...state,
  checks: state.checks.map((c) => Commands.coversPath(c.command, path) ? { ...c, editsSince: (c.editsSince ?? 0) + 1 } : c),
  openErrors: state.openErrors.map((e) => addEdited(e, path)),
  events: state.events.map((e) => e.failed === true ? addEdited(e, path) : e)
})

/**
 * The state after a hook reported check failures (`HookReports.failures`), cited at `turnId`:
 * each is a failed check; `blocked`, the action of the call the hook refused (`git commit`),
 * when it refused one: that action going through later is the hook passing, and the hook
 * refusing it again for other checks only is those it reported before passing.
 */
export const hookReported = (
  state: State,
  failures: ReadonlyArray<HookReports.Failure>,
  blocked: string | undefined,
  turnId: string
): State =>
  failures.reduce((next, { check, detail }) =>
    recordCheck(next, check, {
      kind: check.kind,
      family: check.family,
      command: check.command,
      passed: false,
      ...(detail === undefined ? {} : { detail }),
      ...(blocked === undefined ? {} : { blocked }),
      turnId
    }), failures.length === 0 ? state : hookPassed(state, blocked, turnId, failures.map((f) => f.check.command)))

// The state after a call of `action` went through (or was refused again for the checks `still` only):
// the other failures its hook reported when it refused it pass now.
const hookPassed = (state: State, action: string | undefined, turnId: string, still: ReadonlyArray<string> = []): State =>
  action === undefined ? state : state.openErrors.filter((e) => e.blocked === action && !still.includes(e.command)).reduce(
    (next, e) => recordCheck(next, e, { kind: e.kind, family: e.family, command: e.command, passed: true, turnId }),
    state
  )

/**
 * The state after a shell call (`line`) and its result: a check and its
 * result, tracker and git changes. A check cites its result (the output with
 * the counts), a change the call that made it.
 */
export const shellResult = (
  state: State,
  line: string,
  turn: Turn,
  answer: ToolUse.Result,
  at: { readonly call: string; readonly result: string }
): State => {
  const turnId = at.call
  const output = OutputDigest.withoutAnsi(turn.content)
  if (Commands.isDeferred(output)) {
    // No result yet: a later read of its output (by this id) is.
    const id = Commands.deferredId(output)
    if (id === undefined) return state
    const background = [...(state.background ?? []).filter((b) => b.id !== id), { id, command: line, turnId }]
    return { ...state, background: background.slice(Math.max(0, background.length - MAX_BACKGROUND)) }
  }
  const metadata = ToolMetadata.read(turn.metadata)
  const commands = Commands.simpleCommands(line)
  const counts = Counts.countsOf(output)
  const failed = failedRun(turn, answer, metadata, counts)
  const refused = shellFailed(answer, metadata)
  const acting = commands.filter((c) => !Commands.onlyLooks(c) && !Commands.isSilent(c)).at(-1)
  // A hook refused the call (its report is the result): nothing of it ran, what the hook checked failed.
  const blocked = metadata.hookRefused === true
  const action = acting === undefined ? undefined : eventAction(acting)
  let next = blocked
    ? hookReported(state, HookReports.failures({ command: undefined, text: output }), action, at.result)
    : hookPassed(ranSince(state, commands), refused ? undefined : action, at.result)
  // The result of a chain belongs to its last check.
  const check = blocked ? undefined : commands.map(Commands.checkOf).filter((c) => c !== undefined).at(-1)
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
  // A step that failed after the agent ticked an item of its todo list: the item is not done.
  const failedStep = check !== undefined ? failed && check.command : refused && acting
  if (typeof failedStep === "string") {
    next = onTodos(next, (todos) => Plans.failedAfter(todos, Commands.clip(failedStep, 60), at.result))
  }
  const message = Commands.commitMessage(line)
  if (message !== undefined && !/nothing to commit/.test(output)) {
    next = addEvent(next, event(`git commit "${message}"`, refused && output, turnId))
    if (!refused) next = committed(next, message, Commands.stagedPaths(commands))
  }
  for (const change of commands.flatMap(Commands.changesOf)) {
    switch (change._tag) {
      case "Issue":
        if (!refused) next = setIssue(next, { id: change.id, status: change.status, turnId })
        break
      case "Created": {
        // The tracker names the new issue in its output; without it, the attempt is an event.
        const id = refused ? undefined : Commands.createdId(output)
        const title = change.title === undefined ? "" : ` ${JSON.stringify(change.title)}`
        next = id === undefined
          ? addEvent(next, event(`${change.text}${title}`, refused && output, turnId))
          : setIssue(next, { id, status: "open", ...(change.title === undefined ? {} : { title: change.title }), turnId })
        break
      }
      case "Branch":
        if (!refused) next = { ...next, branch: { value: change.name, turnId } }
        break
      case "Git":
        next = addEvent(next, event(change.text, refused && output, turnId))
    }
  }
  return next
}

/**
 * The state after a read of a background command's output (`TaskOutput`):
 * once the command ended, its output is the shell result of the command that
 * started it, which the read cites.
 */
export const backgroundRead = (state: State, id: string, turn: Turn, answer: ToolUse.Result, turnId: string): State => {
  const started = state.background?.find((b) => b.id === id)
  const ended = started === undefined ? undefined : Commands.backgroundResult(turn.content)
  if (started === undefined || ended === undefined) return state
  const rest = { ...state, background: state.background!.filter((b) => b !== started) }
  const result = { ...turn, content: ended.output, metadata: { ...turn.metadata, exitCode: ended.exitCode } }
  return shellResult(rest, started.command, result, answer, { call: started.turnId, result: turnId })
}

// An issue's new status (its title kept); closing the issue a plan is the work of does the plan.
const setIssue = (state: State, issue: IssueStatus): State => {
  const title = issue.title ?? state.issues.find((i) => i.id === issue.id)?.title
  const issues = upsert(state.issues, (i) => i.id === issue.id, title === undefined ? issue : { ...issue, title }, MAX_ISSUES)
  if (!Plans.isDone(issue.status)) return { ...state, issues }
  return {
    ...state,
    issues,
    ...(state.plan === undefined ? {} : { plan: Plans.afterClose(state.plan, issue.id) }),
    ...(state.todos === undefined ? {} : { todos: Plans.afterClose(state.todos, issue.id) })
  }
}

// A commit went through: the plans' items it does are done.
const committed = (state: State, message: string, staged: ReturnType<typeof Commands.stagedPaths>): State => {
  const paths = staged.all ? [...staged.paths, ...state.files.filter((f) => f.action !== "read").map((f) => f.path)] : staged.paths
  const commit = { message, paths, issues: state.issues.map((i) => i.id) }
  return {
    ...state,
    ...(state.plan === undefined ? {} : { plan: Plans.afterCommit(state.plan, commit) }),
    ...(state.todos === undefined ? {} : { todos: Plans.afterCommit(state.todos, commit) })
  }
}

// What an event does, its first two words (`git commit`, `git push`): a success of it settles earlier failures.
const eventAction = (text: string) => text.split(" ", 2).join(" ")

// An event replaces an earlier one of the same text (a commit retried after a failing hook, the latest push);
// a success drops the failures of its action (a commit that went through, whatever its message now).
const addEvent = (state: State, e: Event): State => {
  if (e.failed === true) {
    const failure = since(state.events.find((o) => o.failed === true && o.text === e.text), e)
    return { ...state, events: upsert(state.events, (other) => other.text === e.text, failure, MAX_EVENTS) }
  }
  const settled = state.events.filter((o) => o.failed === true && eventAction(o.text) === eventAction(e.text))
  const kept = state.events.filter((o) => !settled.includes(o))
  const next = onTodos({ ...state, events: upsert(kept, (other) => other.text === e.text, e, MAX_EVENTS) }, Plans.confirmed)
  return withFixes(next, settled.map((o) => fixOf(o.text, o, e.text, e.turnId)))
}

// An event, failed with the output of its command when that is given.
const event = (text: string, failedWith: string | false, turnId: string): Event => {
  if (failedWith === false) return { text, turnId }
  const detail = Commands.failureDetail(failedWith)
  return detail === undefined ? { text, failed: true, turnId } : { text, failed: true, detail, turnId }
}
