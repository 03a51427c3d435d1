/**
 * The session state: what an agent continuing a session must know first,
 * folded deterministically from the turns' tool structure (read through
 * `ToolUse`, each call's kind by `ToolKind`) and rendered as a short header
 * (the assembler places it after the summaries, before the turns since).
 *
 * It holds the task (the first and the latest real user requests), the
 * working directory and branch, the last shell command run (whatever it
 * was; shown when no other entry names it), the files created / modified / read, the last
 * result of each test, lint or build command (with its pass/fail counts when
 * the output states them; a command run in the background gets its result
 * when its output is read, `TaskOutput`; stale, `passed before 3 edits`, when a file it
 * covers was written since: every file, unless the command names paths), the errors still open (a failing check not yet
 * followed by a pass of the same command; the newest result of a check
 * stands for it, and a whole run for the runs of some files it covers),
 * the errors fixed (the newest six: a failure a later pass covered, or a
 * failed commit that went through, with the files written in between),
 * task-tracker and git changes (`bd create/update/close`, `gh issue
 * create/close`, commits, pushes, new branches; an issue the session created
 * with its id and title) and the assistant's latest plan (its `TodoWrite`
 * list, else the latest numbered list in its prose), whose items are done
 * when the tracker closes the issue they name or the plan's issue, or a commit
 * names that issue or holds a file they name (an item ticked in the todo list is
 * the agent's claim until a check passes, undone by a step failing after it; a
 * plan all done gives way to a request made after it). A check failure a hook
 * reports counts wherever the transcript holds the report (a Stop hook's
 * feedback, a PostToolUse hook's blocking error, the result of a call a
 * PreToolUse hook refused: see `internal/hookReports.ts`), as `CHECK (hook)`. Every entry cites the turn it
 * came from, by a short id ({@link shortId}).
 *
 * {@link step} is pure, so a stored state (see {@link State}, a Schema) can be
 * carried forward: folding a prefix, storing it, then stepping the rest gives
 * the state of the whole.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Chunked from "./Chunked.js"
import * as ConversationTurn from "./ConversationTurn.js"
import * as Commands from "./internal/commands.js"
import * as HookReports from "./internal/hookReports.js"
import * as Instructions from "./internal/instructions.js"
import * as Plans from "./internal/plans.js"
import * as StateHeader from "./internal/stateHeader.js"
import * as StateOutline from "./internal/stateOutline.js"
import type { Outline } from "./internal/stateOutline.js"
import { empty, type FileEntry, type State } from "./internal/stateSchema.js"
import * as StateShell from "./internal/stateShell.js"
import * as OutputDigest from "./OutputDigest.js"
import * as TokenEstimator from "./TokenEstimator.js"
import * as ToolKind from "./ToolKind.js"
import * as ToolMetadata from "./ToolMetadata.js"
import * as ToolUse from "./ToolUse.js"

export {
  /** @since 0.1.0 */
  CheckResult,
  /** @since 0.1.0 */
  empty,
  /** @since 0.1.0 */
  Event,
  /** @since 0.1.0 */
  FileEntry,
  /** @since 0.1.0 */
  Fix,
  /** @since 0.1.0 */
  IssueStatus,
  /** @since 0.1.0 */
  PendingCall,
  /** @since 0.1.0 */
  Place,
  /** @since 0.1.0 */
  Plan,
  /** @since 0.1.0 */
  PlanItem,
  /** @since 0.1.0 */
  Request,
  /** @since 0.1.0 */
  State,
  /** @since 0.1.0 */
  StateFromJson
} from "./internal/stateSchema.js"

// Bounds that keep a state (and its row) small however long the session.
const MAX_FILES = 200
const MAX_PENDING = 64
const MAX_REQUEST = 300
const MAX_SAID = 8
const MAX_COMMAND = 200

type Turn = ConversationTurn.ConversationTurn

/**
 * The request a turn makes, if it is a real user request: a turn of the user
 * (`ConversationTurn.isUserRole`) that is not a tool result, not marked meta,
 * sidechain or demo (`ToolMetadata`), and not harness noise
 * (`OutputDigest.isHarnessNoise`: `<command-name>`, `<local-command-stdout>`,
 * interruption notices, a continuation summary), its system-reminder blocks
 * removed. This is the one rule of "the first user request": the header's task,
 * the turn compaction never drops, the lines a summary starts from.
 *
 * @example
 * ```ts
 * import { SessionState } from "@precis/core"
 * SessionState.requestOf({ role: "user", content: "<command-name>/clear</command-name>" }) // undefined
 * SessionState.requestOf({ role: "user", content: "Fix the login bug" }) // "Fix the login bug"
 * ```
 * @since 0.1.0
 */
export const requestOf = (turn: Pick<Turn, "role" | "content" | "metadata">): string | undefined => {
  if (!ConversationTurn.isUserRole(turn.role) || ConversationTurn.isToolResult(turn)) return undefined
  const meta = ToolMetadata.read(turn.metadata)
  if (meta.meta === true || meta.sidechain === true || meta.isDemo === true) return undefined
  const text = OutputDigest.withoutReminders(turn.content)
  if (text.length === 0 || OutputDigest.isHarnessNoise(text)) return undefined
  return Commands.clip(text, MAX_REQUEST)
}

// What a file tool did to a file, judged from the call and its result.
const fileAction = (call: ToolUse.Call, output: string): { path: string; action: FileEntry["action"] } | undefined => {
  const path = ToolKind.pathOf(call)
  if (path === undefined) return undefined
  switch (ToolKind.kindOf(call)) {
    case "write":
      return { path, action: /\b(?:updated|overwr|modified)\b/i.test(output) ? "modified" : "created" }
    case "edit":
      return { path, action: "modified" }
    case "read":
      return { path, action: "read" }
    default:
      return undefined
  }
}

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
  if (ToolKind.kindOf(call) === "shell") {
    const line = ToolKind.commandOf(call)
    if (line === undefined) return base
    const last = base.lastCommand
    const answered = last !== undefined && last.turnId === pendingCall.turnId && last.command === Commands.clip(line, MAX_COMMAND)
      ? { ...base, lastCommand: { ...last, resultTurnId: turnId } }
      : base
    return StateShell.shellResult(answered, line, turn, answer, { call: pendingCall.turnId, result: turnId })
  }
  const background = ToolKind.backgroundIdOf(call)
  if (background !== undefined) return StateShell.backgroundRead(base, background, turn, answer, turnId)
  if (answer.isError) return base
  // A file is cited by the call that wrote or read it.
  const touched = fileAction(call, turn.content)
  if (touched === undefined) return base
  const next = { ...base, files: touch(base.files, { ...touched, turnId: pendingCall.turnId }) }
  return touched.action === "read" ? next : StateShell.edited(next, touched.path)
}

// The user's standing constraints and decisions with `said` (at `turnId`) added, the oldest dropped over the bound.
const userSaid = (state: State, said: ReadonlyArray<string>, turnId: string): State => {
  if (said.length === 0) return state
  const all = [...(state.userSaid ?? []), ...said.map((text) => ({ text, at: state.turnCount, turnId }))]
  return { ...state, userSaid: all.slice(Math.max(0, all.length - MAX_SAID)) }
}

// What an assistant's turn says of what comes next: whether it ended its answer, asked, or stated an intent.
const spoken = (state: State, turn: Turn, turnId: string): State => {
  const intent = Instructions.intentOf(turn.content)
  const next = intent === undefined ? state : { ...state, intent: { text: intent, at: state.turnCount, turnId } }
  if (ToolUse.calls(turn).length > 0) return { ...next, answered: false, asked: false }
  return Instructions.speaks(turn.content) ? { ...next, answered: true, asked: Instructions.asks(turn.content) } : next
}

// An assistant's turn: its calls wait for their results; its plan or todo list.
const assistantStep = (state: State, turn: Turn, turnId: string): State => {
  let next = spoken(state, turn, turnId)
  // A plan written while an issue is in progress is that issue's work.
  const active = [...state.issues].reverse().find((issue) => Plans.isActive(issue.status))?.id
  const of = active === undefined ? {} : { issue: active }
  for (const call of ToolUse.calls(turn)) {
    if (ToolKind.kindOf(call) === "todo") {
      const items = Plans.todoPlan(call.input)
      if (items !== undefined) {
        next = { ...next, todos: { source: "todo", items: Plans.ticked(items, next.todos?.items ?? []), ...of, at: state.turnCount, turnId } }
      }
      continue
    }
    const command = ToolKind.kindOf(call) === "shell" ? ToolKind.commandOf(call) : undefined
    if (command !== undefined) next = { ...next, lastCommand: { command: Commands.clip(command, MAX_COMMAND), turnId } }
    const pending = { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, arguments: call.arguments, turnId }
    const all = [...next.pending, pending]
    next = { ...next, pending: all.length > MAX_PENDING ? all.slice(all.length - MAX_PENDING) : all }
  }
  const items = Plans.prosePlan(turn.content)
  if (items !== undefined) next = { ...next, plan: { source: "prose", items, ...of, at: state.turnCount, turnId } }
  return next
}

/**
 * The state after one more turn. Pure and deterministic: the same state and
 * turn always give the same result. A turn without an id is cited as
 * `#N` (its 1-based position in the fold).
 *
 * @since 0.1.0
 */
export const step = (state: State, turn: Turn): State => {
  const turnId = turn.id ?? `#${state.turnCount + 1}`
  let next: State = {
    ...state,
    turnCount: state.turnCount + 1,
    firstTurnId: state.firstTurnId ?? turnId,
    lastTurnId: turnId
  }
  const { cwd, gitBranch } = ToolMetadata.read(turn.metadata)
  if (cwd !== undefined && next.cwd?.value !== cwd) next = { ...next, cwd: { value: cwd, turnId } }
  if (gitBranch !== undefined && next.branch?.value !== gitBranch) next = { ...next, branch: { value: gitBranch, turnId } }
  const request = requestOf(turn)
  if (request !== undefined) {
    const cited = { text: request, at: next.turnCount, turnId }
    next = next.firstRequest === undefined ? { ...next, firstRequest: cited } : { ...next, latestRequest: cited }
    // What stands beyond the request: its constraints, or all of it when it answers the agent's question.
    const full = OutputDigest.withoutReminders(turn.content)
    const said = next.asked === true ? [Instructions.decision(full)] : Instructions.standing(full)
    next = userSaid({ ...next, answered: false, asked: false }, said, turnId)
  }
  const answer = ToolUse.result(turn)
  // A hook's blocking report the user's side holds (a Stop hook's feedback, a PostToolUse hook's error).
  const report = answer === undefined && ConversationTurn.isUserRole(turn.role) ? HookReports.reportOf(turn.content) : undefined
  if (report !== undefined) next = StateShell.hookReported(next, HookReports.failures(report), undefined, turnId)
  if (answer !== undefined) {
    const answers = Instructions.answersOf(turn.content)
    return resultStep(answers === undefined ? next : userSaid(next, [answers], turnId), turn, answer, turnId)
  }
  if (turn.role.trim().toLowerCase() === "assistant") return assistantStep(next, turn, turnId)
  return next
}

/**
 * The state of `turns`, folded from `from` (default {@link empty}).
 *
 * @example
 * ```ts
 * import { ConversationTurn, SessionState } from "@precis/core"
 * const state = SessionState.fold([ConversationTurn.make({ role: "user", content: "Fix the login bug", id: "u1" })])
 * state.firstRequest // { text: "Fix the login bug", turnId: "u1" }
 * ```
 * @since 0.1.0
 */
export const fold = (turns: Iterable<Turn>, from: State = empty): State => {
  let state = from
  for (const turn of turns) state = step(state, turn)
  return state
}

/**
 * {@link fold} as an Effect that yields between chunks of turns
 * (`Chunked.reduce`), for a long session: the same state, and an
 * interruption lands after the chunk at hand.
 *
 * @since 0.1.0
 */
export const foldEffect = (turns: Iterable<Turn>, from: State = empty): Effect.Effect<State> =>
  Chunked.reduce(turns, from, step)

/**
 * A turn id as the header cites it: a UUID by its first 8 characters, as git
 * shortens a hash (a `#k` suffix kept), an importer's derived id
 * (`claude-code:412-1a2b3c4d5e6f`) by its format and position
 * (`claude-code:412`), other ids as they are: the start of the id the store
 * and recall's `expand` show.
 *
 * @example
 * ```ts
 * import { SessionState } from "@precis/core"
 * SessionState.shortId("d35f0cc4-428d-436c-b878-0a1b2c3d4e5f") // "d35f0cc4"
 * SessionState.shortId("claude-code:412-1a2b3c4d5e6f") // "claude-code:412"
 * SessionState.shortId("u1") // "u1"
 * ```
 * @since 0.1.0
 */
export const shortId: (turnId: string) => string = StateHeader.shortId

/**
 * Whether `turnId` is the turn `cited` names: the same id, or the short id
 * ({@link shortId}) the header cites it by. A store finds the candidates by
 * {@link citedPrefix}.
 *
 * @example
 * ```ts
 * import { SessionState } from "@precis/core"
 * SessionState.cites("d35f0cc4", "d35f0cc4-428d-436c-b878-0a1b2c3d4e5f") // true
 * SessionState.cites("d35f0cc4#2", "d35f0cc4-428d-436c-b878-0a1b2c3d4e5f#2") // true
 * ```
 * @since 0.1.0
 */
export const cites: (cited: string, turnId: string) => boolean = StateHeader.cites

/**
 * What every id a short id stands for starts with (the short id without its
 * `#k` suffix): the prefix a store looks up before {@link cites} checks.
 *
 * @since 0.1.0
 */
export const citedPrefix: (cited: string) => string = StateHeader.citedPrefix

/**
 * The default cap of {@link render} when no budget gives one.
 *
 * @since 0.1.0
 */
export const defaultMaxTokens = 2000

/**
 * The state as a compact text block: a heading line (`Session state (from
 * turns FIRST … LAST, N turns):`), then short sections (Task, Next, User said, Where, Plan,
 * Open errors, Last checks, Issues, Git, Files created / modified / read),
 * each entry citing its turn in brackets; plan items carry the marks of
 * `ToolKind.todoMarks`. Deterministic, and within `maxTokens` as the
 * estimator counts (the core approximation by default): the least important
 * entries go first (files read, git events, passing checks, issues, files
 * modified and created, the plan, ...; the oldest of each first). `""` for a
 * state of no turns, or when not even the heading fits. With
 * `firstRequestShown` (a context that pins the first request verbatim), the
 * first request is cited, not written a second time.
 *
 * @since 0.1.0
 */
export const render = (
  state: State,
  maxTokens: number = defaultMaxTokens,
  estimator: TokenEstimator.Service = TokenEstimator.approximate,
  options: RenderOptions = {}
): string => state.turnCount === 0 ? "" : StateHeader.render(state, maxTokens, estimator, options)

/**
 * How {@link render} writes a header for where it goes.
 *
 * @since 0.1.0
 */
export type RenderOptions = StateHeader.RenderOptions

/**
 * A session's hand-over, for whoever picks its work up in a new session: the
 * first and latest requests (`asked`, `latest`), what was `done` (git events,
 * issues closed, checks passing, errors fixed) and its `lastCommit`, what is
 * `left` (open errors, failed git or tracker events, open issues, open plan
 * items), the `next` step (the latest request when no turn answers it, else
 * the plan's first open item) and the `files` created or modified. Each line
 * cites its turn. Pure: a project's start-of-session digest renders it.
 *
 * @since 0.1.0
 */
export const outline: (state: State) => Outline = StateOutline.outline

export type {
  /** @since 0.1.0 */
  Line as OutlineLine,
  /** @since 0.1.0 */
  Outline
} from "./internal/stateOutline.js"
