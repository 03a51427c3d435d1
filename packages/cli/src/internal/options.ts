/**
 * The options and arguments the commands share, with their help texts and
 * defaults. The compaction flags fall back to the `PRECIS_COMPACTION_*`
 * variables the library reads, so a flag and its variable mean the same.
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as Options from "@effect/cli/Options"
import { CompactionOptions, SleepMode } from "@precis/compaction"
import { Summarizer } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliError } from "./errors.js"
import * as Diagram from "./diagram.js"
import { type ProviderName, providers } from "./layers.js"

/** The conversation file a command reads. */
export const file = Args.text({ name: "FILE" }).pipe(Args.withDescription("the conversation file to read"))

/** `--db FILE`: the SQLite store; an empty name is refused (SQLite would use a throwaway database). */
export const db = Options.text("db").pipe(
  Options.withPseudoName("FILE"),
  Options.filterMap(
    (name) => (name.trim().length === 0 ? Option.none() : Option.some(name)),
    "--db must name a file (an empty name would write to a temporary database that is thrown away)"
  ),
  Options.withDefault("precis.db"),
  Options.withDescription(
    "the store: a SQLite file, or a PostgreSQL database as a URL postgres://USER@HOST:PORT/DB (default precis.db)"
  )
)

const session = (fallback: string) =>
  Options.text("session").pipe(
    Options.withPseudoName("ID"),
    Options.filterMap(
      (text) => (text.trim().length > 0 ? Option.some(text) : Option.none()),
      "--session must not be empty"
    ),
    Options.optional,
    Options.withDescription(`the session id (default: ${fallback})`)
  )

/**
 * `--session ID` of the commands that read a file into a session; for a file
 * of several conversations, the prefix of their sessions (`ID-TREE-ID`).
 */
export const importSession = session(
  "the file's base name without .jsonl/.json/.traj; for a file of several conversations, the prefix of their sessions"
)

/** `--session ID` of the commands that read a store. */
export const storeSession = session(`"default" if the store has it, else the store's only session`)

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

const isIntegerText = (text: string): boolean => /^[+-]?\d+$/.test(text.trim())

/**
 * An optional integer flag of at least `min`, parsed from text so that a bad
 * value's message names the flag. With `variable`, a missing flag is read from
 * that environment variable (checked the same way).
 */
const integer = (name: string, min: number, description: string, variable?: string) => {
  const flag = Options.text(name).pipe(
    Options.withPseudoName("N"),
    Options.filterMap(
      (text) => {
        const n = isIntegerText(text) ? Number(text) : Number.NaN
        return Number.isSafeInteger(n) && n >= min ? Option.some(n) : Option.none()
      },
      `--${name} must be an integer >= ${min}`
    )
  )
  const withVariable = variable === undefined ? flag : flag.pipe(
    Options.withFallbackConfig(
      Config.integer(variable).pipe(
        Config.validate({ message: `must be an integer >= ${min}`, validation: (n) => n >= min })
      )
    )
  )
  return withVariable.pipe(Options.optional, Options.withDescription(description))
}

/** The context budget, in tokens, when neither `--budget` nor `PRECIS_BUDGET` is given. */
export const defaultBudget = 32_000

/**
 * The compaction defaults the CLI derives from a context budget (in tokens),
 * for the options not given by a flag or a `PRECIS_COMPACTION_*` variable:
 * `CompactionOptions.fromBudget`. The default budget (32000) gives 2000 and 16.
 */
export const budgetDefaults = CompactionOptions.fromBudget

const { minFreshTailTurns, minLeafChunkTokens, tokensPerTailTurn } = CompactionOptions.budgetRule

/** The compaction flags, each falling back to its `PRECIS_COMPACTION_*` variable. */
export const compaction = {
  budget: integer(
    "budget",
    1,
    "the tokens the assembled context should fit in, from which the defaults of --leaf-chunk-tokens " +
      `(budget/16, within ${minLeafChunkTokens} and ${CompactionOptions.defaults.leafChunkTokens}) and --fresh-tail ` +
      `(budget/${tokensPerTailTurn} turns, within ${minFreshTailTurns} and ${CompactionOptions.defaults.freshTailTurns}) ` +
      `are derived (default: PRECIS_BUDGET, else ${defaultBudget})`,
    "PRECIS_BUDGET"
  ),
  freshTail: integer(
    "fresh-tail",
    0,
    `newest turns never summarized (default: derived from --budget, ${budgetDefaults(defaultBudget).freshTailTurns} ` +
      "for the default budget)",
    "PRECIS_COMPACTION_FRESH_TAIL_TURNS"
  ),
  leafChunkTokens: integer(
    "leaf-chunk-tokens",
    1,
    "largest chunk of turns per leaf summary, in tokens (default: derived from --budget, " +
      `${budgetDefaults(defaultBudget).leafChunkTokens} for the default budget)`,
    "PRECIS_COMPACTION_LEAF_CHUNK_TOKENS"
  ),
  minFanIn: integer(
    "min-fan-in",
    2,
    `fewest summaries condensed together (default ${CompactionOptions.defaults.minFanIn})`,
    "PRECIS_COMPACTION_MIN_FAN_IN"
  ),
  maxFanIn: integer(
    "max-fan-in",
    2,
    `most summaries condensed together (default ${CompactionOptions.defaults.maxFanIn})`,
    "PRECIS_COMPACTION_MAX_FAN_IN"
  ),
  concurrency: integer(
    "concurrency",
    1,
    `condensation calls at once (default ${CompactionOptions.defaults.concurrency})`,
    "PRECIS_COMPACTION_CONCURRENCY"
  ),
  noAlsoLine: Options.boolean("no-also-line").pipe(
    Options.withFallbackConfig(Config.boolean("PRECIS_COMPACTION_ALSO_LINE").pipe(Config.map((on) => !on))),
    Options.withDescription(
      "do not append to a summary the line \"Also: a; b; c\" listing the most important paths, commands, errors, " +
        "issue ids and results it dropped (by default they are appended when they fit its target size; " +
        "PRECIS_COMPACTION_ALSO_LINE=false does the same)"
    )
  )
}

/** The flag of each compaction option, for messages about them. */
export const compactionFlags: Partial<Record<CompactionOptions.Subject, string>> = {
  freshTailTurns: "--fresh-tail",
  leafChunkTokens: "--leaf-chunk-tokens",
  minFanIn: "--min-fan-in",
  maxFanIn: "--max-fan-in",
  concurrency: "--concurrency"
}

/** Compaction option problems in the CLI's words (`maxFanIn` -> `--max-fan-in`). */
const optionProblems = (error: CompactionOptions.InvalidOptionsError): string =>
  error.problems
    .map((problem) => CompactionOptions.describeProblem(problem, (option) => compactionFlags[option] ?? option))
    .join("; ")

/**
 * The compaction options of the {@link compaction} flags, checked (a
 * `CliError` naming the flags otherwise). What no flag or variable sets comes
 * from the budget, except the fan-ins and the concurrency.
 */
export const compactionOptions = (flags: {
  readonly budget: Option.Option<number>
  readonly freshTail: Option.Option<number>
  readonly leafChunkTokens: Option.Option<number>
  readonly minFanIn: Option.Option<number>
  readonly maxFanIn: Option.Option<number>
  readonly concurrency: Option.Option<number>
  readonly noAlsoLine: boolean
}): Effect.Effect<CompactionOptions.Options, CliError> => {
  const derived = budgetDefaults(Option.getOrElse(flags.budget, () => defaultBudget))
  const options: CompactionOptions.Options = {
    freshTailTurns: Option.getOrElse(flags.freshTail, () => derived.freshTailTurns),
    leafChunkTokens: Option.getOrElse(flags.leafChunkTokens, () => derived.leafChunkTokens),
    minFanIn: Option.getOrUndefined(flags.minFanIn),
    maxFanIn: Option.getOrUndefined(flags.maxFanIn),
    concurrency: Option.getOrUndefined(flags.concurrency),
    alsoLine: !flags.noAlsoLine
  }
  return Effect.mapError(
    Effect.as(CompactionOptions.resolveOptions(options), options),
    (error) => new CliError({ reason: optionProblems(error) })
  )
}

/** `--redo-fallbacks`. */
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

/** `--budget N`: the token budget a context is fitted into. */
export const budget = integer(
  "budget",
  1,
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
      "git, plan) that otherwise comes first (default: the header is shown)"
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

/**
 * A duration given as seconds (`30`) or with a unit (`30 seconds`, `2 minutes`,
 * `500 millis`); positive and finite.
 */
export const parseDuration = (text: string): Option.Option<Duration.Duration> => {
  const trimmed = text.trim()
  const decoded = /^\d+(\.\d+)?$/.test(trimmed)
    ? Option.some(Duration.seconds(Number(trimmed)))
    : Duration.decodeUnknown(trimmed)
  return Option.filter(decoded, (d) => Duration.isFinite(d) && Duration.greaterThan(d, Duration.zero))
}

/** `--timeout DURATION`: the deadline of each model tier; else `PRECIS_SUMMARIZER_TIMEOUT`, else 120 s. */
export const timeout = Options.text("timeout").pipe(
  Options.withPseudoName("DURATION"),
  Options.filterMap(parseDuration, "--timeout must be a duration such as 30, 30 seconds or 2 minutes"),
  Options.optional,
  Options.withDescription(
    `the deadline of each model call tier, in seconds or with a unit such as "2 minutes" ` +
      `(default: PRECIS_SUMMARIZER_TIMEOUT, else ${Duration.format(Summarizer.defaults.timeout)})`
  )
)

/** `--prior FILE`. */
export const prior = Options.text("prior").pipe(
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("a file holding the previous summary, given to the model as context (default: none)")
)

/** An optional duration flag (seconds, or with a unit), described with its default. */
const duration = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("DURATION"),
    Options.filterMap(parseDuration, `--${name} must be a duration such as 30, 30 seconds or 500 millis`),
    Options.optional,
    Options.withDescription(description)
  )

/** The paths `watch` follows. */
export const watchPaths = Args.text({ name: "PATH" }).pipe(
  Args.withDescription("a transcript file (JSONL) or a directory of them (its .jsonl files at any depth)"),
  Args.atLeast(1)
)

/** `--session ID` of `watch`. */
export const watchSession = session("each file's base name without .jsonl; only with a single FILE")

/** How often `watch` looks at the files, when `--poll-interval` is not given. */
export const defaultPollInterval = Duration.seconds(1)

/** The options of `watch`: polling and Sleep Mode's. */
export const watch = {
  pollInterval: duration(
    "poll-interval",
    `how often the files are checked for new lines (default ${Duration.format(defaultPollInterval)})`
  ),
  idleThreshold: duration(
    "idle-threshold",
    "how long without new lines before compacting in idle time " +
      `(default: PRECIS_SLEEP_IDLE_THRESHOLD, else ${Duration.format(SleepMode.defaults.idleThreshold)})`
  ),
  checkInterval: duration(
    "check-interval",
    "how often Sleep Mode checks whether it is idle " +
      `(default: PRECIS_SLEEP_CHECK_INTERVAL, else ${Duration.format(SleepMode.defaults.checkInterval)})`
  ),
  minUnprocessedTurns: integer(
    "min-unprocessed-turns",
    1,
    "fewest turns outside the fresh tail that make a session worth compacting " +
      `(default: PRECIS_SLEEP_MIN_UNPROCESSED_TURNS, else ${SleepMode.defaults.minUnprocessedTurns})`
  ),
  batchSize: integer(
    "batch-size",
    1,
    "most turns summarized per session per idle cycle " +
      `(default: PRECIS_SLEEP_BATCH_SIZE, else ${SleepMode.defaults.batchSize})`
  )
}

/** `--format` of `show`: the tree as text, or a diagram. */
export const diagramFormat = Options.choice("format", ["text", ...Diagram.formats]).pipe(
  Options.withDefault("text" as "text" | Diagram.Format),
  Options.withDescription(
    "text (the default: an indented tree), mermaid (a flowchart to paste into Markdown) or dot (Graphviz); " +
      "--json wins over it"
  )
)

/** `--session ID` of `search`: one session, or every session. */
export const searchSession = Options.text("session").pipe(
  Options.withPseudoName("ID"),
  Options.filterMap((text) => (text.trim().length > 0 ? Option.some(text) : Option.none()), "--session must not be empty"),
  Options.optional,
  Options.withDescription("search this session only (default: every session)")
)

/** The number of hits `search` prints without `--limit`. */
export const defaultLimit = 20

/** `--limit N` of `search`. */
export const limit = integer("limit", 1, `at most N hits (default ${defaultLimit})`)

/** `--port N` of `serve`. */
export const port = integer("port", 0, "the port to listen on; 0 picks a free one (default 4321)")

/** The port `serve` listens on without `--port`. */
export const defaultPort = 4321

/** `--host HOST` of `serve`. */
export const host = Options.text("host").pipe(
  Options.withPseudoName("HOST"),
  Options.withDefault("127.0.0.1"),
  Options.withDescription("the address to listen on (default 127.0.0.1: this machine only)")
)
