/**
 * Claude Code's side of `precis hook claude-code` and `precis install
 * claude-code`: the hook input precis reads, the output it prints, and the
 * per-user store both use.
 *
 * The hooks contract (Claude Code's hooks reference, docs.anthropic.com/en/docs/claude-code/hooks):
 * a command hook gets one JSON object on stdin with `session_id`,
 * `transcript_path`, `cwd` and `hook_event_name`, plus `trigger`
 * (`manual`|`auto`) for `PreCompact`, `source` (`startup`|`resume`|`clear`|
 * `compact`) for `SessionStart` and `reason` for `SessionEnd`. Exit code 0 is
 * success; 2 is a blocking error (for `PreCompact` it may stop the
 * compaction), so precis never uses it; any other code is a non-blocking
 * error whose stderr the user sees while the session goes on. A
 * `SessionStart` hook adds context by printing
 * `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"..."}}`;
 * `PreCompact`, `Stop` and `SessionEnd` accept no `hookSpecificOutput`.
 * Context a hook injects is capped at 10,000 characters (more is replaced
 * by a preview), so precis keeps its context within {@link maxContextChars}.
 *
 * @internal
 */
import { SchemaIssue } from "@precis/core"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as path from "node:path"
import { ConversationTurn } from "@precis/core"
import { Db } from "./db.js"
import { CliError } from "./errors.js"
import * as HomeFolders from "./homeFolders.js"
import { serverName } from "./mcpServers.js"
import * as StoreFile from "./storeFile.js"

/** The variable naming the store of the Claude Code set-up (a SQLite file or a `postgres://` URL). */
export const storeVariable = "PRECIS_CLAUDE_CODE_DB"


/**
 * The store of `precis hook claude-code` and `precis mcp` when no `--db` is
 * given: `$PRECIS_CLAUDE_CODE_DB`, else the store named in the file of mode 600
 * that `install` writes for a store whose name holds a password
 * (`storeFile.ts`), else `$XDG_DATA_HOME/precis/claude-code.db`, else
 * `$HOME/.local/share/precis/claude-code.db`.
 */
export const defaultStore: Effect.Effect<string, CliError> = Effect.gen(function*() {
  const explicit = yield* HomeFolders.variable(storeVariable)
  if (Option.isSome(explicit)) return explicit.value
  const named = yield* StoreFile.read
  if (Option.isSome(named)) return named.value
  const data = yield* HomeFolders.under("XDG_DATA_HOME", ".local", "share")
  if (Option.isSome(data)) return path.join(data.value, "precis", "claude-code.db")
  return yield* new CliError({ reason: `no store: give --db FILE, or set ${storeVariable} or HOME` })
})

/**
 * The store named by `--db`, else {@link defaultStore}; one that would be
 * thrown away (`:memory:`, however it is named: `Db.throwaway`) is refused.
 */
export const storeOf = (db: Option.Option<string>): Effect.Effect<string, CliError> =>
  Effect.flatMap(
    Option.match(db, { onNone: () => Effect.map(defaultStore, (name) => ({ name, from: storeVariable })), onSome: (name) => Effect.succeed({ name, from: "--db" }) }),
    ({ from, name }) =>
      Db.throwaway(name)
        ? new CliError({
          reason: `${from} names a temporary database that would be thrown away (${JSON.stringify(name)}): ` +
            "name a file or a postgres:// URL"
        })
        : Effect.succeed(name)
  )

/** The user's home directory (`HOME`), where the user-scope settings live. */
export const home: Effect.Effect<string, CliError> = Config.nonEmptyString("HOME").pipe(
  Effect.mapError(() => new CliError({ reason: "HOME is not set: the user settings of Claude Code live under it" }))
)

/** Claude Code's folder of the user: `$HOME/.claude` (its settings, and its transcripts under `projects`). */
export const userDir: Effect.Effect<string, CliError> = Effect.map(home, (dir) => path.join(dir, ".claude"))

/** Where Claude Code writes its sessions' transcripts: `$HOME/.claude/projects`, a folder per project. */
export const projectsDir: Effect.Effect<string, CliError> = Effect.map(userDir, (dir) => path.join(dir, "projects"))

/** A hook's input: the fields precis reads (others are ignored). */
export const HookInput = Schema.Struct({
  hook_event_name: Schema.String,
  session_id: Schema.String.pipe(Schema.filter((id) => ConversationTurn.idProblem(id))),
  transcript_path: Schema.optional(Schema.String),
  cwd: Schema.optional(Schema.String),
  source: Schema.optional(Schema.String),
  trigger: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String)
})

/** A decoded {@link HookInput}. */
export type HookInput = typeof HookInput.Type

/** Decodes a hook's stdin, failing with a one-line `CliError`. */
export const decodeInput = (text: string): Effect.Effect<HookInput, CliError> =>
  Schema.decodeUnknown(Schema.parseJson(HookInput))(text).pipe(
    Effect.mapError((error) =>
      new CliError({
        reason: `the hook input on stdin is not a Claude Code hook event: ${SchemaIssue.sentence(error, "the input")}`
      })
    )
  )

/** What precis does for an event. */
export type Action = "import-and-compact" | "import" | "restore" | "digest" | "nothing"

/**
 * The action for a hook input: `PreCompact` and `SessionEnd` import the
 * transcript's new lines and compact; `Stop` and `SubagentStop` only
 * import; `SessionStart` after a compaction or a resume imports and gives
 * back the session state, at a start or after a `/clear` gives the digest of
 * the project's earlier sessions (`claudeCodeStart.ts`); anything else does nothing.
 */
export const actionOf = (input: HookInput): Action => {
  switch (input.hook_event_name) {
    case "PreCompact":
    case "SessionEnd":
      return "import-and-compact"
    case "Stop":
    case "SubagentStop":
      return "import"
    case "SessionStart":
      return input.source === "compact" || input.source === "resume"
        ? "restore"
        : input.source === "startup" || input.source === "clear"
        ? "digest"
        : "nothing"
    default:
      return "nothing"
  }
}

/** The most characters of context precis hands Claude Code (its cap is 10,000). */
export const maxContextChars = 9_500

/**
 * A session id as the hook's lines show it: whole unless it is too long to
 * repeat (then its first characters and its length).
 */
export const shownSession = (sessionId: string): string =>
  sessionId.length <= MAX_SHOWN_ID ? sessionId : `${sessionId.slice(0, MAX_SHOWN_ID)}… (${sessionId.length} characters)`

/** The most summary ids the recall note lists. */
const MAX_IDS = 20

/** The most characters of a session id the recall note shows: a longer one is shown by its start. */
const MAX_SHOWN_ID = 120

/**
 * The note after the session-state header: where the turns are and which
 * tools of precis's MCP server bring them back, naming the session once (a
 * session id too long to repeat by its first characters) and citing
 * `turnId`, a turn of this session, as an example.
 */
export const recallNote = (sessionId: string, turnId: string, summaryIds: ReadonlyArray<string>): string => {
  const tool = (name: string) => `mcp__${serverName}__${name}`
  const ids = summaryIds.length === 0
    ? ""
    : ` Summary ids: ${summaryIds.slice(0, MAX_IDS).join(", ")}${summaryIds.length > MAX_IDS ? ", …" : ""}.`
  const session = sessionId.length <= MAX_SHOWN_ID ? `"${sessionId}"` : `"${shownSession(sessionId)}", named by its start`
  return `precis keeps every turn of this session (session id ${session}, the session to pass to each tool below), ` +
    `word for word; the state above is rebuilt from them, each entry citing its turn ([${turnId}]: ${tool("read")} ` +
    `with that id gives the turn back word for word). For what the compacted summary left out, use precis's ` +
    `tools: ${tool("search")} (full-text search of turns and summaries), ${tool("expand")} (a summary's children ` +
    `or its turns, paged), ${tool("describe")} and ${tool("context")}.${ids}`
}

/**
 * `text` cut at its last line break before `max` characters (at `max` when
 * there is none), so a header is never cut mid-entry.
 */
export const clip = (text: string, max: number): string => {
  if (text.length <= max) return text
  const cut = text.lastIndexOf("\n", max - 1)
  return cut > 0 ? text.slice(0, cut) : text.slice(0, max)
}

/**
 * The `SessionStart` output adding `header` and `note` to Claude's context,
 * within {@link maxContextChars} (the note kept whole, the header clipped).
 */
export const sessionStartOutput = (header: string, note: string): string => {
  const room = Math.max(0, maxContextChars - note.length - 2)
  const context = [clip(header, room), note].filter((part) => part.length > 0).join("\n\n")
  return JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: context } })
}
