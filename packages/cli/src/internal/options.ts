/**
 * The options and arguments the commands share, with their help texts and
 * defaults. A flag that sets a library option is read with that option's own
 * Schema (`OptionSchema.text`), so it has the library's bounds and messages;
 * the compaction, Sleep Mode and Summarizer settings not given by a flag come
 * from the library's `Config` (`PRECIS_COMPACTION_*`, `PRECIS_SLEEP_*`,
 * `PRECIS_SUMMARIZER_*`), checked with the same Schemas.
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import { CompactionOptions } from "@precis/compaction"
import { ConversationTurn, OptionConfig, OptionError, OptionSchema, Summarizer } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { positional } from "./argv.js"
import { CliError } from "./errors.js"
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

const compactionFlag = (
  name: string,
  option: "budget" | "freshTailTurns" | "leafChunkTokens" | "minFanIn" | "maxFanIn" | "concurrency",
  description: string
) =>
  flag(
    name,
    "N",
    OptionSchema.fieldOf(CompactionOptions.Options, option),
    `${description} (default: ${OptionConfig.variable(CompactionOptions.prefix, option)}, else ${
      option === "budget" ? "none" : CompactionOptions.defaults[option]
    })`
  )

/**
 * The compaction flags, each the library option of the same meaning (and
 * Schema); the options no flag or variable sets keep the library's defaults
 * (`CompactionOptions.defaults`), so `precis compact` compacts as
 * `CompactionManager.compact` does.
 */
export const compaction = {
  budget: compactionFlag(
    "budget",
    "budget",
    "the tokens the assembled context should fit in: the fresh tail then holds at most a quarter of them " +
      "(within 1000 and 32000), and a compaction brings the active context down to half of them " +
      "(PRECIS_COMPACTION_LOW_WATER)"
  ),
  freshTail: compactionFlag("fresh-tail", "freshTailTurns", "newest turns never summarized"),
  leafChunkTokens: compactionFlag(
    "leaf-chunk-tokens",
    "leafChunkTokens",
    "largest chunk of turns per leaf summary, in tokens; to assemble contexts of B tokens later, B/16 keeps " +
      "several leaves within one"
  ),
  minFanIn: compactionFlag("min-fan-in", "minFanIn", "fewest summaries condensed together"),
  maxFanIn: compactionFlag("max-fan-in", "maxFanIn", "most summaries condensed together"),
  concurrency: compactionFlag("concurrency", "concurrency", "condensation calls at once"),
  noAlsoLine: Options.boolean("no-also-line").pipe(
    Options.withDescription(
      "do not append to a summary the line \"Also: a; b; c\" listing the most important paths, commands, errors, " +
        "issue ids and results it dropped (by default they are appended when they fit its target size; " +
        "PRECIS_COMPACTION_ALSO_LINE=false does the same)"
    )
  )
}

/** The compaction option each flag sets, by flag. */
const compactionFlags = {
  budget: ["budget", "--budget"],
  freshTail: ["freshTailTurns", "--fresh-tail"],
  leafChunkTokens: ["leafChunkTokens", "--leaf-chunk-tokens"],
  minFanIn: ["minFanIn", "--min-fan-in"],
  maxFanIn: ["maxFanIn", "--max-fan-in"],
  concurrency: ["concurrency", "--concurrency"]
} as const

/**
 * The {@link compaction} flags given, as a command line gives them again
 * (`--fresh-tail=4`, `--no-also-line`): for the `precis` processes a command
 * starts to compact as it does.
 */
export const compactionArgs = (flags: CompactionFlags): ReadonlyArray<string> => [
  ...Object.entries(compactionFlags).flatMap(([key, [, name]]) =>
    Option.match(flags[key as keyof typeof compactionFlags], { onNone: () => [], onSome: (value) => [`${name}=${value}`] })
  ),
  ...(flags.noAlsoLine ? ["--no-also-line"] : [])
]

/** The values of the {@link compaction} flags. */
export interface CompactionFlags {
  readonly budget: Option.Option<number>
  readonly freshTail: Option.Option<number>
  readonly leafChunkTokens: Option.Option<number>
  readonly minFanIn: Option.Option<number>
  readonly maxFanIn: Option.Option<number>
  readonly concurrency: Option.Option<number>
  readonly noAlsoLine: boolean
}

/**
 * The compaction options: the `PRECIS_COMPACTION_*` variables (all of them,
 * read and checked by `CompactionOptions.config`: a bad one is a
 * `ConfigError` naming it), the {@link compaction} flags over them (a flag
 * wins), then checked together (a `CliError` naming the flags, or the
 * variables, a problem is about).
 */
export const compactionOptions = (flags: CompactionFlags): Effect.Effect<CompactionOptions.Options, CliError | ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const fromVariables = yield* CompactionOptions.config
    const given = Object.entries(compactionFlags).flatMap(([key, [option, name]]) =>
      Option.match(flags[key as keyof typeof compactionFlags], {
        onNone: () => [],
        onSome: (value) => [[option, value, name] as const]
      })
    )
    const options: CompactionOptions.Options = {
      ...fromVariables,
      ...Object.fromEntries(given.map(([option, value]) => [option, value])),
      ...(flags.noAlsoLine ? { alsoLine: false } : {})
    }
    // A problem left is a rule across options: each is named as it was given, by its flag or its
    // variable (an option left to its default, by the flag that sets it, if any).
    const variable = (option: string) => OptionConfig.variable(CompactionOptions.prefix, option)
    const flagOf = (option: string) => Object.values(compactionFlags).find(([known]) => known === option)?.[1]
    const nameOf = (option: string) =>
      given.find(([known]) => known === option)?.[2] ??
        (option in fromVariables ? variable(option) : flagOf(option) ?? variable(option))
    return yield* Effect.mapError(
      Effect.as(CompactionOptions.resolveOptions(options), options),
      (error) => new CliError({ reason: OptionError.describeProblems(error.problems, nameOf) })
    )
  })

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
