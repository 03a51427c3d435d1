/**
 * The options and arguments the commands share, with their help texts and
 * defaults. The compaction flags fall back to the `PRECIS_COMPACTION_*`
 * variables the library reads, so a flag and its variable mean the same.
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as Options from "@effect/cli/Options"
import { CompactionOptions } from "@precis/compaction"
import { Summarizer } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import { type ProviderName, providers } from "./layers.js"

/** The conversation file a command reads. */
export const file = Args.text({ name: "FILE" }).pipe(Args.withDescription("the conversation file to read"))

/** `--db FILE`: the SQLite store. */
export const db = Options.text("db").pipe(
  Options.withPseudoName("FILE"),
  Options.withDefault("precis.db"),
  Options.withDescription("the SQLite store")
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
  Options.withDescription("the input format; auto detects it from the content")
)

/** `--provider`: who writes summaries. */
export const provider = Options.choice("provider", providers).pipe(
  Options.withDefault("extractive" as ProviderName),
  Options.withDescription(
    "who writes summaries: extractive (offline, deterministic) or openai (an OpenAI-compatible server: " +
      "PRECIS_OPENAI_MODEL, PRECIS_OPENAI_BASE_URL, PRECIS_OPENAI_API_KEY)"
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

/** The compaction flags, each falling back to its `PRECIS_COMPACTION_*` variable. */
export const compaction = {
  freshTail: integer(
    "fresh-tail",
    0,
    `newest turns never summarized (default ${CompactionOptions.defaults.freshTailTurns})`,
    "PRECIS_COMPACTION_FRESH_TAIL_TURNS"
  ),
  leafChunkTokens: integer(
    "leaf-chunk-tokens",
    1,
    `largest chunk of turns per leaf summary, in tokens (default ${CompactionOptions.defaults.leafChunkTokens})`,
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

/** `--json`. */
export const json = Options.boolean("json").pipe(Options.withDescription("print one JSON document on stdout"))

/** `--verbose` / `-v`. */
export const verbose = Options.boolean("verbose").pipe(
  Options.withAlias("v"),
  Options.withDescription("debug logs with per-call timings on stderr")
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
  Options.withDescription("a file holding the previous summary, given to the model as context")
)
