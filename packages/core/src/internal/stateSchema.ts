/**
 * The session state's Schemas (see `SessionState`, which exports them).
 *
 * @internal
 */
import * as Schema from "effect/Schema"

const Cited = { turnId: Schema.String }

/**
 * A user request: its text (trimmed and cut) and its turn.
 *
 * @since 0.1.0
 */
export const Request = Schema.Struct({
  text: Schema.String,
  /** The turn's position in the fold (1-based). */
  at: Schema.optional(Schema.Int),
  ...Cited
})

/**
 * A value (a directory, a branch) and the turn that last said it.
 *
 * @since 0.1.0
 */
export const Place = Schema.Struct({ value: Schema.String, ...Cited })

/**
 * A file the session touched, by what it did to it last (created outranks
 * modified, modified outranks read).
 *
 * @since 0.1.0
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
 * @since 0.1.0
 */
export const CheckResult = Schema.Struct({
  kind: Schema.Literal("test", "lint", "build"),
  family: Schema.String,
  command: Schema.String,
  passed: Schema.Boolean,
  detail: Schema.optional(Schema.String),
  /** For a failure still open: the files written since (the newest few), what its fix will have edited. */
  edited: Schema.optional(Schema.Array(Schema.String)),
  /** For a failure still open: the commands run since (the newest few, no looks or checks), what its fix will have run. */
  ran: Schema.optional(Schema.Array(Schema.String)),
  /** How many writes since it ran to files it covers (all files unless it names some): its result is stale. */
  editsSince: Schema.optional(Schema.Int),
  /** For a failure a hook reported when it blocked a call: that call's action (`git commit`), whose going through later is the hook passing. */
  blocked: Schema.optional(Schema.String),
  ...Cited
})

/**
 * An issue's latest status (`bd`, `gh issue`).
 *
 * @since 0.1.0
 */
export const IssueStatus = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  /** Its title, when the session created it (`bd create`, `gh issue create`). */
  title: Schema.optional(Schema.String),
  ...Cited
})

/**
 * A git or tracker event: a commit, a push, a new branch, an issue created;
 * one that failed (a commit a pre-commit hook refused) is an open error until
 * the same event succeeds.
 *
 * @since 0.1.0
 */
export const Event = Schema.Struct({
  text: Schema.String,
  failed: Schema.optional(Schema.Boolean),
  /** Why it failed: the output's first error line, else its first line. */
  detail: Schema.optional(Schema.String),
  /** For a failure not yet redone: the files written since (the newest few). */
  edited: Schema.optional(Schema.Array(Schema.String)),
  /** For a failure still open: the commands run since (the newest few, no looks or checks), what its fix will have run. */
  ran: Schema.optional(Schema.Array(Schema.String)),
  ...Cited
})

/**
 * An error the session fixed: a failing check a later pass covered, or a
 * failed git or tracker event that went through later; why it failed, the
 * files written and commands run in between (the newest few), the command
 * that went through, the turn of the failure and the turn of the fix.
 *
 * @since 0.1.0
 */
export const Fix = Schema.Struct({
  text: Schema.String,
  detail: Schema.optional(Schema.String),
  edited: Schema.optional(Schema.Array(Schema.String)),
  /** The commands run in between (no looks or checks). */
  ran: Schema.optional(Schema.Array(Schema.String)),
  /** The command that went through, when it is not the one that failed (`git push --set-upstream origin x`). */
  by: Schema.optional(Schema.String),
  ...Cited,
  fixedTurnId: Schema.String
})

/**
 * An item of the assistant's plan: its text and status (`pending`,
 * `in_progress`, `completed`; `pending` for a numbered line of prose).
 *
 * @since 0.1.0
 */
export const PlanItem = Schema.Struct({
  text: Schema.String,
  status: Schema.String,
  /** Ticked by the agent in its todo list, and no later check or change confirmed it: its claim. */
  claimed: Schema.optional(Schema.Boolean),
  /** Ticked by the agent, then a step failed (what failed, its turn): not done. */
  undone: Schema.optional(Schema.Struct({ text: Schema.String, ...Cited }))
})

/**
 * The assistant's latest plan: from `TodoWrite` (`todo`) or its prose (`prose`).
 *
 * @since 0.1.0
 */
export const Plan = Schema.Struct({
  source: Schema.Literal("todo", "prose"),
  items: Schema.Array(PlanItem),
  /** The issue in progress when the plan was written: the plan is its work, done when it is closed or committed. */
  issue: Schema.optional(Schema.String),
  /** The turn's position in the fold (1-based): a request after a plan done gives it way. */
  at: Schema.optional(Schema.Int),
  ...Cited
})

/**
 * A tool call waiting for its result (its effect is recorded when the result says how it went).
 *
 * @since 0.1.0
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
 * @since 0.1.0
 */
export const State = Schema.Struct({
  version: Schema.Literal(6),
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
  /** The errors fixed, oldest first (the newest few). */
  fixed: Schema.Array(Fix),
  issues: Schema.Array(IssueStatus),
  events: Schema.Array(Event),
  plan: Schema.optional(Plan),
  todos: Schema.optional(Plan),
  pending: Schema.Array(PendingCall),
  /** Whether the agent's last turn since the latest request ended without a call: it answered. */
  answered: Schema.optional(Schema.Boolean),
  /** Whether the agent's last prose asked the user a question: the next request answers it. */
  asked: Schema.optional(Schema.Boolean),
  /** The agent's last stated intent (`Now I'll …`, `Let me …`). */
  intent: Schema.optional(Request),
  /** The user's standing constraints and decisions, oldest first (the newest few). */
  userSaid: Schema.optional(Schema.Array(Request)),
  /**
   * The last shell command the agent ran (whatever it was: a check, a look, `rm`), cited by its call,
   * and the turn of its result once it came.
   */
  lastCommand: Schema.optional(Schema.Struct({ command: Schema.String, ...Cited, resultTurnId: Schema.optional(Schema.String) })),
  /** Shell commands that went on in the background, by the id a later read of their output names. */
  background: Schema.optional(Schema.Array(Schema.Struct({ id: Schema.String, command: Schema.String, ...Cited })))
})

/**
 * @since 0.1.0
 */
export type State = typeof State.Type

/**
 * The state as a JSON string (what the store keeps).
 *
 * @since 0.1.0
 */
export const StateFromJson = Schema.parseJson(State)

/**
 * The state of no turns.
 *
 * @since 0.1.0
 */
export const empty: State = {
  version: 6,
  turnCount: 0,
  files: [],
  checks: [],
  openErrors: [],
  fixed: [],
  issues: [],
  events: [],
  pending: []
}

/** @since 0.1.0 */
export type FileEntry = typeof FileEntry.Type

/** @since 0.1.0 */
export type CheckResult = typeof CheckResult.Type

/** @since 0.1.0 */
export type Event = typeof Event.Type

/** @since 0.1.0 */
export type Fix = typeof Fix.Type

/** @since 0.1.0 */
export type Plan = typeof Plan.Type

/** @since 0.1.0 */
export type IssueStatus = typeof IssueStatus.Type

/** @since 0.1.0 */
export type PlanItem = typeof PlanItem.Type
