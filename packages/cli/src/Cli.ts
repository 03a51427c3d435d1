/**
 * The `precis` command: import conversations into a SQLite store, compact them
 * into a DAG of summaries, summarize a file, show the DAG and the assembled
 * context.
 *
 * ```sh
 * precis import session.jsonl --db precis.db          # parse fully, then store the turns
 * precis compact session.jsonl --leaf-chunk-tokens 2000  # import, then compact
 * precis summarize session.jsonl --json                # one summary, no store
 * precis show --json                                   # the DAG
 * precis context                                       # parentless summaries, then the fresh tail
 * ```
 *
 * Common options: `--db FILE` (default `precis.db`), `--session ID`,
 * `--provider extractive|openai` (default `extractive`, offline), `--json`
 * (one JSON document on stdout), `--verbose` (debug logs with per-call timings
 * on stderr). Session default: for `import` and `compact FILE`, the file's base
 * name without `.jsonl`/`.json`/`.traj`; for the other commands, the session
 * `default` if the store has it, else the store's only session.
 *
 * Errors are one line on stderr (`precis: reason`) and exit code 1.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Terminal from "@effect/platform/Terminal"
import { ActiveContext, CompactionManager, CompactionOptions, MemoryStore, SqliteMemoryStore } from "@precis/compaction"
import { type ConversationTurn, type Provider, Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { OpenAiProvider } from "@precis/provider-openai"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Importer from "./Importer.js"
import { CliError, failureLine, isValidationError } from "./internal/errors.js"
import { exists, readText, readTurns } from "./internal/input.js"
import { withPlainOutput } from "./internal/console.js"
import * as Progress from "./internal/progress.js"
import * as Render from "./internal/render.js"

export {
  /**
   * A user mistake reported by the CLI: a missing file, an unknown session, a
   * missing store or provider setting. Its `message` is the one line printed.
   *
   * @since 0.1.0
   */
  CliError
} from "./internal/errors.js"

/**
 * The CLI's version.
 *
 * @since 0.1.0
 */
export const version = "0.1.0"

/**
 * The summary providers of `--provider`.
 *
 * @since 0.1.0
 */
export const providers = ["extractive", "openai"] as const

/**
 * A value of `--provider`: `extractive` (offline, deterministic, the default)
 * or `openai` (any OpenAI-compatible server, configured by `PRECIS_OPENAI_*`).
 *
 * @since 0.1.0
 */
export type ProviderName = typeof providers[number]

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

const fileArg = Args.text({ name: "FILE" }).pipe(Args.withDescription("the conversation file to read"))

const dbOption = Options.text("db").pipe(
  Options.withPseudoName("FILE"),
  Options.withDefault("precis.db"),
  Options.withDescription("the SQLite store")
)

const sessionOption = (fallback: string) =>
  Options.text("session").pipe(
    Options.withPseudoName("ID"),
    Options.optional,
    Options.withDescription(`the session id (default: ${fallback})`)
  )

const importSession = sessionOption("the file's base name without .jsonl/.json/.traj")
const storeSession = sessionOption(`"default" if the store has it, else the store's only session`)

const formatOption = Options.choice("format", Importer.formats).pipe(
  Options.withDefault("auto" as Importer.Format),
  Options.withDescription("the input format; auto detects it from the content")
)

const providerOption = Options.choice("provider", providers).pipe(
  Options.withDefault("extractive" as ProviderName),
  Options.withDescription(
    "who writes summaries: extractive (offline, deterministic) or openai (an OpenAI-compatible server: " +
      "PRECIS_OPENAI_MODEL, PRECIS_OPENAI_BASE_URL, PRECIS_OPENAI_API_KEY)"
  )
)

// Parsed from text so that a bad value's message names the option.
const integerOption = (name: string, min: number, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("N"),
    Options.filterMap(
      (text) => {
        const n = /^[+-]?\d+$/.test(text.trim()) ? Number(text) : Number.NaN
        return Number.isSafeInteger(n) && n >= min ? Option.some(n) : Option.none()
      },
      `--${name} must be an integer >= ${min}`
    ),
    Options.optional,
    Options.withDescription(description)
  )

const compactionOptions = {
  freshTail: integerOption(
    "fresh-tail",
    0,
    `newest turns never summarized (default ${CompactionOptions.defaults.freshTailTurns})`
  ),
  leafChunkTokens: integerOption(
    "leaf-chunk-tokens",
    1,
    `largest chunk of turns per leaf summary, in tokens (default ${CompactionOptions.defaults.leafChunkTokens})`
  ),
  minFanIn: integerOption(
    "min-fan-in",
    2,
    `fewest summaries condensed together (default ${CompactionOptions.defaults.minFanIn})`
  ),
  maxFanIn: integerOption(
    "max-fan-in",
    2,
    `most summaries condensed together (default ${CompactionOptions.defaults.maxFanIn})`
  ),
  concurrency: integerOption(
    "concurrency",
    1,
    `condensation calls at once (default ${CompactionOptions.defaults.concurrency})`
  )
}

const jsonOption = Options.boolean("json").pipe(Options.withDescription("print one JSON document on stdout"))

const verboseOption = Options.boolean("verbose").pipe(
  Options.withAlias("v"),
  Options.withDescription("debug logs with per-call timings on stderr")
)

const targetTokensOption = integerOption(
  "target-tokens",
  1,
  `the summary size asked of the aggressive tier and kept by the fallback (default ${Summarizer.defaults.leafTargetTokens})`
)

const priorOption = Options.text("prior").pipe(
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("a file holding the previous summary, given to the model as context")
)

// -----------------------------------------------------------------------------
// Services
// -----------------------------------------------------------------------------

const openAiLayer = Layer.unwrapEffect(
  Effect.map(
    Config.nonEmptyString("PRECIS_OPENAI_MODEL").pipe(
      Effect.mapError(() =>
        new CliError({
          reason: "--provider openai needs a model: set PRECIS_OPENAI_MODEL (e.g. PRECIS_OPENAI_MODEL=gpt-4o-mini); " +
            "PRECIS_OPENAI_BASE_URL and PRECIS_OPENAI_API_KEY are optional"
        })
      )
    ),
    () => OpenAiProvider.layerConfig().pipe(Layer.provide(NodeHttpClient.layerUndici))
  )
)

/**
 * The `Provider` layer named by `--provider`. `openai` fails with a
 * {@link CliError} when `PRECIS_OPENAI_MODEL` is not set.
 *
 * @since 0.1.0
 */
export const providerLayer = (
  name: ProviderName
): Layer.Layer<Provider.Provider, CliError | ConfigError.ConfigError> =>
  name === "openai" ? openAiLayer : ExtractiveProvider.layer()

/** The Summarizer over the chosen provider, its options from `PRECIS_SUMMARIZER_*`. */
const summarizerLayer = (name: ProviderName) =>
  Summarizer.layerConfig().pipe(Layer.provide(providerLayer(name)))

/** Opens the store; read-only commands first make sure it exists, so they never create one. */
const storeLayer = (db: string) => SqliteMemoryStore.layer({ filename: db })

const requireStore = (db: string) =>
  Effect.flatMap(exists(db), (found) =>
    found
      ? Effect.void
      : Effect.fail(new CliError({ reason: `${db}: no such store (import a file first: precis import FILE --db ${db})` })))

/**
 * The session to work on: `explicit` when given (it must exist), else
 * `default` when the store has it, else the store's only session.
 */
const resolveSession = (db: string, explicit: Option.Option<string>) =>
  Effect.gen(function*() {
    const store = yield* MemoryStore.MemoryStore
    const ids = (yield* store.sessions).map((s) => s.id)
    const list = ids.length === 0 ? "none" : ids.join(", ")
    if (Option.isSome(explicit)) {
      if (ids.includes(explicit.value)) return explicit.value
      return yield* new CliError({ reason: `unknown session '${explicit.value}' in ${db} (sessions: ${list})` })
    }
    if (ids.includes("default")) return "default"
    if (ids.length === 1) return ids[0]!
    return yield* new CliError({
      reason: ids.length === 0
        ? `${db} holds no session yet (import a file first)`
        : `${db} holds several sessions (${list}): choose one with --session`
    })
  })

const flagNames: Partial<Record<CompactionOptions.Subject, string>> = {
  freshTailTurns: "--fresh-tail",
  leafChunkTokens: "--leaf-chunk-tokens",
  minFanIn: "--min-fan-in",
  maxFanIn: "--max-fan-in",
  concurrency: "--concurrency"
}

/** Compaction option problems in the CLI's words (`maxFanIn` -> `--max-fan-in`). */
const optionProblems = (error: CompactionOptions.InvalidOptionsError): string =>
  error.problems
    .map((problem) => CompactionOptions.describeProblem(problem, (option) => flagNames[option] ?? option))
    .join("; ")

/** Debug logs (with timings) when verbose, warnings and errors otherwise. */
const withVerbosity = (verbose: boolean) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Logger.withMinimumLogLevel(self, verbose ? LogLevel.Debug : LogLevel.Warning)

/** Runs `self` and logs how long it took at debug level. */
const timed = (label: string) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.timed(self).pipe(
    Effect.tap(([elapsed]) =>
      Effect.logDebug(`precis: ${label}`).pipe(Effect.annotateLogs({ elapsedMs: Duration.toMillis(elapsed) }))
    ),
    Effect.map(([, a]) => a)
  )

const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** The DAG of a session: the header line and the tree. */
const dagLines = (sessionId: string) =>
  Effect.gen(function*() {
    const store = yield* MemoryStore.MemoryStore
    // The turn count comes from the session list, so the turns themselves are never loaded.
    const [summaries, sessions, uncovered] = yield* Effect.all([
      store.summaries(sessionId),
      store.sessions,
      store.uncoveredTurns(sessionId)
    ])
    const turnCount = sessions.find((s) => s.id === sessionId)?.turnCount ?? 0
    const lines = [Render.dagHeader(sessionId, turnCount, uncovered.length, summaries)]
    lines.push(
      ...(summaries.length === 0
        ? ["(no summaries yet: run precis compact)"]
        : [...Render.tree(summaries), `tiers of the stored summaries: ${Render.tierCountsLine(Render.tierCountsOf(summaries))}`])
    )
    return { lines, summaries }
  })

/** Imports a file's turns into a session: parsed in full before the store is touched. */
const importInto = (sessionId: string, turns: ReadonlyArray<ConversationTurn.ConversationTurn>) =>
  Effect.gen(function*() {
    const store = yield* MemoryStore.MemoryStore
    const added = yield* timed("stored turns")(store.appendTurns(sessionId, turns))
    return { turns: turns.length, added: added.length, skipped: turns.length - added.length }
  })

// -----------------------------------------------------------------------------
// Commands
// -----------------------------------------------------------------------------

const importCommand = Command.make(
  "import",
  { file: fileArg, db: dbOption, session: importSession, format: formatOption, json: jsonOption, verbose: verboseOption },
  (args) =>
    Effect.gen(function*() {
      const sessionId = Option.getOrElse(args.session, () => Render.sessionIdFromPath(args.file))
      const turns = yield* timed("parsed input")(readTurns(args.file, args.format, sessionId))
      const result = yield* Effect.provide(importInto(sessionId, turns), storeLayer(args.db))
      if (args.json) {
        return yield* printJson({ session: sessionId, file: args.file, db: args.db, ...result })
      }
      const skipped = result.skipped === 0 ? "" : ` (${result.skipped} already present)`
      yield* Console.log(
        `imported ${result.added} of ${result.turns} turns from ${args.file} into session ${sessionId} in ${args.db}${skipped}`
      )
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Read a conversation file (precis JSONL, OpenAI chat JSON, Claude Code JSONL, SWE-agent .traj, OpenHands " +
      "events, OpenAssistant trees) and append its turns to a session. The whole file is parsed first: a bad line writes nothing. " +
      "Importing the same file again adds nothing."
  )
)

const compactCommand = Command.make(
  "compact",
  {
    file: Args.optional(fileArg),
    db: dbOption,
    session: importSession,
    format: formatOption,
    provider: providerOption,
    ...compactionOptions,
    json: jsonOption,
    verbose: verboseOption
  },
  (args) =>
    Effect.gen(function*() {
      // The options are checked and the input parsed in full (and the store checked) before
      // anything is opened or written.
      const options: CompactionOptions.Options = {
        freshTailTurns: Option.getOrUndefined(args.freshTail),
        leafChunkTokens: Option.getOrUndefined(args.leafChunkTokens),
        minFanIn: Option.getOrUndefined(args.minFanIn),
        maxFanIn: Option.getOrUndefined(args.maxFanIn),
        concurrency: Option.getOrUndefined(args.concurrency)
      }
      yield* Effect.mapError(
        CompactionOptions.resolveOptions(options),
        (error) => new CliError({ reason: optionProblems(error) })
      )
      const input = Option.isSome(args.file)
        ? yield* Effect.gen(function*() {
          const file = args.file.pipe(Option.getOrThrow)
          const sessionId = Option.getOrElse(args.session, () => Render.sessionIdFromPath(file))
          const turns = yield* timed("parsed input")(readTurns(file, args.format, sessionId))
          return Option.some({ sessionId, turns })
        })
        : Option.none()
      if (Option.isNone(input)) yield* requireStore(args.db)
      const reporter = args.json && !args.verbose ? Progress.silent : yield* Progress.stderr

      const program = Effect.gen(function*() {
        const imported = Option.isSome(input)
          ? yield* importInto(input.value.sessionId, input.value.turns)
          : undefined
        const sessionId = Option.isSome(input)
          ? input.value.sessionId
          : yield* resolveSession(args.db, args.session)
        const manager = yield* CompactionManager.CompactionManager
        const stats = yield* manager.compact(sessionId, { ...options, onProgress: reporter.onProgress }).pipe(
          timed("compacted"),
          Effect.ensuring(reporter.finish)
        )
        const tierCounts = yield* Effect.flatMap(Summarizer.Summarizer, (s) => s.tierCounts)
        if (args.json) {
          return yield* printJson({
            session: sessionId,
            ...(imported === undefined ? {} : { imported }),
            ...stats,
            tierCounts
          })
        }
        if (imported !== undefined) {
          yield* Console.log(
            `imported ${imported.added} of ${imported.turns} turns into session ${sessionId}` +
              (imported.skipped === 0 ? "" : ` (${imported.skipped} already present)`)
          )
        }
        yield* Console.log(
          `compacted ${stats.turnsCompacted} turns into ${stats.leafSummariesCreated} leaf and ` +
            `${stats.condensedSummariesCreated} condensed summaries`
        )
        const dag = yield* dagLines(sessionId)
        yield* Console.log(["", ...dag.lines, "", `tiers this run: ${Render.tierCountsLine(tierCounts)}`].join("\n"))
      })

      // The summarizer (and its provider configuration) is checked before the store is opened.
      const live = CompactionManager.layer().pipe(
        Layer.provideMerge(storeLayer(args.db)),
        Layer.provideMerge(summarizerLayer(args.provider))
      )
      yield* Effect.provide(program, live)
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Compact a session into a DAG of summaries: leaf summaries of the turns outside the fresh tail, then " +
      "condensed summaries of summaries. Given FILE, import it first. Prints the DAG and the tier counts."
  )
)

const summarizeCommand = Command.make(
  "summarize",
  {
    file: fileArg,
    format: formatOption,
    provider: providerOption,
    prior: priorOption,
    targetTokens: targetTokensOption,
    json: jsonOption,
    verbose: verboseOption
  },
  (args) =>
    Effect.gen(function*() {
      const turns = yield* timed("parsed input")(readTurns(args.file, args.format))
      if (turns.length === 0) return yield* new CliError({ reason: `${args.file}: no turns to summarize` })
      const priorSummary = Option.isSome(args.prior) ? yield* readText(args.prior.value) : undefined
      const summary = yield* Effect.flatMap(Summarizer.Summarizer, (s) =>
        s.summarizeTurns(turns, {
          priorSummary,
          targetTokens: Option.getOrUndefined(args.targetTokens)
        })).pipe(timed("summarized"), Effect.provide(summarizerLayer(args.provider)))
      if (args.json) {
        return yield* printJson({
          text: summary.text,
          tier: summary.tier,
          inputTokens: summary.inputTokens,
          outputTokens: summary.outputTokens
        })
      }
      yield* Console.log(
        `${summary.text}\n\ntier: ${summary.tier} · ${summary.inputTokens} tokens in · ${summary.outputTokens} tokens out`
      )
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Summarize all the turns of a file into one summary (no store): prints its text and the tier that wrote it."
  )
)

const showCommand = Command.make(
  "show",
  { db: dbOption, session: storeSession, json: jsonOption, verbose: verboseOption },
  (args) =>
    Effect.gen(function*() {
      yield* requireStore(args.db)
      yield* Effect.gen(function*() {
        const sessionId = yield* resolveSession(args.db, args.session)
        const dag = yield* dagLines(sessionId)
        if (args.json) return yield* printJson({ session: sessionId, nodes: dag.summaries.map(Render.dagNode) })
        yield* Console.log(dag.lines.join("\n"))
      }).pipe(Effect.provide(storeLayer(args.db)))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Print a session's summary DAG as a tree: depth, tier, token estimate, time range and id of each node. " +
      "--json gives { session, nodes: [{ id, depth, tier, parentId, tokenEstimate, timeRangeStart, " +
      "timeRangeEnd, children }] }."
  )
)

const contextCommand = Command.make(
  "context",
  { db: dbOption, session: storeSession, json: jsonOption, verbose: verboseOption },
  (args) =>
    Effect.gen(function*() {
      yield* requireStore(args.db)
      const live = CompactionManager.layer().pipe(
        Layer.provideMerge(storeLayer(args.db)),
        // Assembling the context calls no model: the offline provider stands in.
        Layer.provide(Summarizer.layer().pipe(Layer.provide(ExtractiveProvider.layer())))
      )
      yield* Effect.gen(function*() {
        const sessionId = yield* resolveSession(args.db, args.session)
        const context = yield* Effect.flatMap(CompactionManager.CompactionManager, (m) => m.context(sessionId))
        if (args.json) {
          return yield* printJson({
            session: sessionId,
            tokens: context.tokens,
            summaries: context.summaries.map((s) => ({ ...Render.dagNode(s), content: s.content })),
            turns: context.turns.map((t) => ({
              id: t.id,
              seq: t.seq,
              role: t.role,
              content: t.content,
              timestamp: t.timestamp ?? null
            }))
          })
        }
        yield* Console.log(ActiveContext.render(context))
      }).pipe(Effect.provide(live))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Print the context an agent would send: the parentless summaries in time order, then the turns not yet " +
      "summarized (the fresh tail)."
  )
)

/**
 * The `precis` command tree (exported for tests and for embedding).
 *
 * @since 0.1.0
 */
export const command = Command.make("precis").pipe(
  Command.withDescription("Compress long agent conversations into a DAG of summaries."),
  Command.withHandler((): Effect.Effect<void> =>
    Console.log(HelpDoc.toAnsiText(Command.getHelp(command, CliConfig.defaultConfig)).trimEnd())
  ),
  Command.withSubcommands([importCommand, compactCommand, summarizeCommand, showCommand, contextCommand])
)

/**
 * Everything the commands need from the platform (`NodeContext.layer` provides it).
 *
 * @since 0.1.0
 */
export type Environment = FileSystem.FileSystem | Path.Path | Terminal.Terminal

/**
 * Parses `argv` (`[node, script, ...args]`, as `process.argv`) and runs the
 * command. Fails with what went wrong; see {@link main} for the exit-code form.
 *
 * @since 0.1.0
 */
export const run = (argv: ReadonlyArray<string>) => Command.run(command, { name: "precis", version })(argv)

/** Logs go to stderr, so that stdout holds only the command's output. */
const stderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

/**
 * Runs the CLI and turns the outcome into an exit code: 0 on success, 1 on
 * failure after printing one line `precis: reason` on stderr (parse errors of
 * the arguments are printed by the parser itself). An unexpected defect is
 * printed with its cause. Interruption is not caught.
 *
 * @since 0.1.0
 */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number, never, Environment> =>
  run(argv).pipe(
    Effect.provide(stderrLogger),
    withPlainOutput,
    Effect.as(0),
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      if (isValidationError(cause)) return Effect.succeed(1)
      const failure = Cause.failureOption(cause)
      return Option.isSome(failure)
        ? Effect.as(Console.error(`precis: ${failureLine(failure.value)}`), 1)
        : Effect.as(Console.error(`precis: unexpected error\n${Cause.pretty(cause)}`), 1)
    })
  )
