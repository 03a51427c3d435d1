/**
 * The options and arguments the commands share, with their help texts and
 * defaults. A flag that sets a library option is read with that option's own
 * Schema (`OptionSchema.text`), so it has the library's bounds and messages;
 * the Sleep Mode and Summarizer settings not given by a flag come from the
 * library's `Config` (`PRECIS_SLEEP_*`, `PRECIS_SUMMARIZER_*`), checked with
 * the same Schemas. The compaction flags are `compactionFlags.ts`.
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import { CompactionOptions } from "@precis/compaction"
import { ConversationTurn, OptionError, OptionSchema, Summarizer } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { positional } from "./argv.js"
import * as Diagram from "./diagram.js"
import { Db, type ProviderName, providers } from "./layers.js"

/** The conversation file a command reads. */
export const file = Args.text({ name: "FILE" }).pipe(Args.withDescription("the conversation file to read"), positional)

/**
 * `--db FILE`: the store, else `$PRECIS_DB` (how `serve` names it to the
 * processes it starts: never on a command line), else `precis.db`. A store
 * that would be thrown away is refused: an empty name or `:memory:` (SQLite
 * would use a temporary database).
 */
export const db = Options.text("db").pipe(
  Options.withPseudoName("FILE"),
  Options.withFallbackConfig(Config.string("PRECIS_DB")),
  Options.filterMap(
    (name) => (Db.throwaway(name) ? Option.none() : Option.some(name)),
    "--db must name a file or a PostgreSQL URL (an empty name or :memory: would write to a temporary database " +
      "that is thrown away)"
  ),
  Options.withDefault("precis.db"),
  Options.map((name) => new Db(name)),
  Options.withDescription(
    "the store: a SQLite file, or a PostgreSQL database as a URL postgres://USER@HOST:PORT/DB (default: $PRECIS_DB, else precis.db)"
  )
)

// A session id as core's one rule has it (`ConversationTurn.isId`).
const sessionId = Options.text("session").pipe(
  Options.withPseudoName("ID"),
  Options.filterMap(
    (text) => (ConversationTurn.isId(text) ? Option.some(text) : Option.none()),
    "--session must not be empty or hold control characters (a line break, an escape sequence)"
  )
)

/** `--session ID` as core's rule has it, described by `description`. */
export const session = (description: string) =>
  sessionId.pipe(
    Options.optional,
    Options.withDescription(description)
  )

/**
 * `--session ID` of the commands that read a file into a session; for a file
 * of several conversations, the prefix of their sessions (`ID-TREE-ID`).
 */
export const importSession = session(
  "the session id (default: the file's base name without .jsonl/.json/.traj; for a file of several conversations, " +
    "the prefix of their sessions)"
)

/** `--session ID` of the commands that read a store. */
export const storeSession = session(`the session id (default: "default" if the store has it, else the store's only session)`)

/** `--format`: the input format, or `auto`. */
export const format = Options.choice("format", Importer.formats).pipe(
  Options.withDefault("auto" as Importer.Format),
  Options.withDescription("the input format (default auto: detected from the content)")
)

/** `--provider`: who writes summaries. */
export const provider = Options.choice("provider", providers).pipe(
  Options.withDefault("extractive" as ProviderName),
  Options.withDescription(
    "who writes summaries: extractive (offline, deterministic; the default) or openai (an OpenAI-compatible " +
      "server: PRECIS_OPENAI_MODEL, PRECIS_OPENAI_BASE_URL, PRECIS_OPENAI_API_KEY)"
  )
)

/**
 * An optional flag read with `schema` (a library option's own Schema, read
 * from text as its variable is), so that a bad value's message names the flag
 * and says what it must be: `--fresh-tail must be an integer >= 0 (got -1)`.
 */
export const flag = <A, I>(name: string, pseudoName: string, schema: Schema.Schema<A, I>, description: string) => {
  const decode = Schema.decodeEither(OptionSchema.text(schema)!)
  return Options.text(name).pipe(
    Options.withPseudoName(pseudoName),
    Options.mapEffect((text): Effect.Effect<A, ValidationError.ValidationError> =>
      Either.mapLeft(decode(text), (error) =>
        ValidationError.invalidValue(
          HelpDoc.p(OptionError.describeProblems(OptionError.problemsOf(error), () => `--${name}`))
        ))
    ),
    Options.optional,
    Options.withDescription(description)
  )
}

/** An optional integer flag of at least `min` (of the CLI's own, such as `--limit`). */
const integer = (name: string, min: number, description: string) =>
  flag(name, "N", OptionSchema.int({ min }), description)

/**
 * `--all` of `compact`: every session of the store with work, each taken only
 * when no other worker has it, until none has work left.
 */
export const all = Options.boolean("all").pipe(
  Options.withDescription(
    "compact every session of the store that has work, skipping (and coming back to) those another precis " +
      "process is compacting, until none has work left: run it in N processes to share the work (default: off)"
  )
)

/** `--redo-fallbacks` of `compact`. */
export const redoFallbacks = Options.boolean("redo-fallbacks").pipe(
  Options.withDescription(
    "after compacting, summarize again every fallback summary of the session and rewrite it in place " +
      "when a model writes it (default: off)"
  )
)

/** `--budget N` of `context` and `condense`: the token budget a context is fitted into. */
export const budget = flag(
  "budget",
  "N",
  CompactionOptions.Budget,
  "fit the context into N tokens with the condenser pipeline (mask, forget, summarize, window) " +
    "(default: none, the whole active context)"
)

/** `--no-expand` of `context`. */
export const noExpand = Options.boolean("no-expand").pipe(
  Options.withDescription(
    "with --budget, do not fill the budget from the summary DAG: show only the top summaries and the turns " +
      "(default: expand, up to 85% of the budget)"
  )
)

/** `--no-state`. */
export const noState = Options.boolean("no-state").pipe(
  Options.withDescription(
    "leave out the session-state header (task, directory and branch, files, last checks, open errors, issues, " +
      "git, plan) that otherwise sits after the summaries, before the turns (default: the header is shown)"
  )
)

/** `--project DIR` of `context`: the start-of-session digest of a project instead of a session's context. */
export const project = Options.text("project").pipe(
  Options.withPseudoName("DIR"),
  Options.filterMap(
    (text) => (text.trim().length > 0 && ConversationTurn.isId(text) ? Option.some(text) : Option.none()),
    "--project must name a folder (not empty, no control characters)"
  ),
  Options.optional,
  Options.withDescription(
    "print what a new session in the project at DIR starts with: the digest of its earlier sessions " +
      "(the last in full, the four before it in a line, older ones as an index), within --budget N tokens " +
      "(default 2500); nothing for a folder the store holds no session of"
  )
)

/** `--strict`. */
export const strict = Options.boolean("strict").pipe(
  Options.withDescription(
    "refuse the whole file at its first bad line (default: another program's JSONL log — Claude Code, Codex, " +
      "Gemini stream-json, pi, OpenAssistant — is read leniently: a line that cannot be read is skipped, shown as " +
      "FILE:LINE: skipped: reason and kept in <db>.skipped.jsonl)"
  )
)

/** `--json`. */
export const json = Options.boolean("json").pipe(
  Options.withDescription("print one JSON document on stdout (default: text)")
)

/** `--verbose` / `-v`. */
export const verbose = Options.boolean("verbose").pipe(
  Options.withAlias("v"),
  Options.withDescription("debug logs with per-call timings on stderr (default: warnings and errors only)")
)

/** `--target-tokens N`. */
export const targetTokens = integer(
  "target-tokens",
  1,
  `the summary size asked of the aggressive tier and kept by the fallback (default ${Summarizer.defaults.leafTargetTokens})`
)

/** `--timeout DURATION`: the deadline of each model tier; else `PRECIS_SUMMARIZER_TIMEOUT`, else 120 s. */
export const timeout = flag(
  "timeout",
  "DURATION",
  OptionSchema.fieldOf(Summarizer.Options, "timeout"),
  `the deadline of each model call tier, in seconds or with a unit such as "2 minutes" ` +
    `(default: PRECIS_SUMMARIZER_TIMEOUT, else ${Duration.format(Summarizer.defaults.timeout)})`
)

/** `--prior FILE`. */
export const prior = Options.text("prior").pipe(
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("a file holding the previous summary, given to the model as context (default: none)")
)

/** `--format` of `show`: the tree as text, or a diagram. */
export const diagramFormat = Options.choice("format", ["text", ...Diagram.formats]).pipe(
  Options.withDefault("text" as "text" | Diagram.Format),
  Options.withDescription(
    "text (the default: an indented tree), mermaid (a flowchart to paste into Markdown) or dot (Graphviz); " +
      "--json wins over it"
  )
)

/** `--session ID` of `search`: one session, or every session. */
export const searchSession = session("search this session only (default: every session)")

/** The number of hits `search` prints without `--limit`. */
export const defaultLimit = 20

/** `--limit N` of `search`. */
export const limit = integer("limit", 1, `at most N hits (default ${defaultLimit})`)

/** `--port N` of `serve`: a TCP port (a bad one is one line naming the flag, before anything listens). */
export const port = flag(
  "port",
  "N",
  OptionSchema.int({ min: 0, max: 65535 }),
  "the port to listen on; 0 picks a free one (default 4321)"
)

/** The port `serve` listens on without `--port`. */
export const defaultPort = 4321

/** `--host HOST` of `serve` (checked by `bind.ts`: this machine only, unless `--allow-remote`). */
export const host = Options.text("host").pipe(
  Options.withPseudoName("HOST"),
  Options.withDefault("127.0.0.1"),
  Options.withDescription(
    "the address to listen on (default 127.0.0.1: this machine only); another machine's view of it " +
      "(0.0.0.0, ::, an interface's address) needs --allow-remote"
  )
)

/** `--allow-remote` of `serve`. */
export const allowRemote = Options.boolean("allow-remote").pipe(
  Options.withDescription(
    "let --host be an address other machines reach (0.0.0.0 serves every interface): anyone who can reach it " +
      "reads every transcript in the store; a warning says so (default: this machine only)"
  )
)

/**
 * `--db FILE` of `mcp`, `hook claude-code` and `install claude-code`: the
 * store, by default the per-user one of the Claude Code set-up (see
 * `claudeCode.ts`: `$PRECIS_CLAUDE_CODE_DB`, else under `$XDG_DATA_HOME` or
 * `~/.local/share`).
 */
export const agentDb = Options.text("db").pipe(
  Options.withPseudoName("FILE"),
  Options.filterMap((name) => (name.trim().length === 0 ? Option.none() : Option.some(name)), "--db must name a file"),
  Options.optional,
  Options.withDescription(
    "the store: a SQLite file or a postgres:// URL (default: $PRECIS_CLAUDE_CODE_DB, else the store named " +
      "in ~/.config/precis/store (mode 600; install writes it for a URL with a password), else " +
      "$XDG_DATA_HOME/precis/claude-code.db, else ~/.local/share/precis/claude-code.db)"
  )
)

/** How long `hook claude-code` may import and compact on `PreCompact` and `SessionEnd` without `--deadline`. */
export const defaultDeadline = Duration.seconds(45)

/** `--deadline DURATION` of `hook claude-code`. */
export const deadline = flag(
  "deadline",
  "DURATION",
  OptionSchema.duration({ positive: true }),
  "how long a hook may run, its import included (PreCompact and SessionEnd import and compact), before it stops " +
    `and leaves the rest to the next hook (default ${Duration.format(defaultDeadline)}; the hooks precis installs have 60 s)`
)
