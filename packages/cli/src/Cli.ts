/**
 * The `precis` command: import conversations into a SQLite store, compact them
 * into a DAG of summaries, summarize a file, show the DAG and the assembled
 * context.
 *
 * ```sh
 * precis import session.jsonl --db precis.db          # parse fully, then store the turns
 * precis compact session.jsonl --budget 32000            # import, then compact
 * precis summarize session.jsonl --json                # one summary, no store
 * precis sessions                                      # the store's sessions
 * precis show --json                                   # the DAG
 * precis context                                       # parentless summaries, then the fresh tail
 * precis context --budget 8000                         # the same, fitted into 8000 tokens
 * precis condense session.jsonl --budget 8000          # the condenser pipeline over a file, no store
 * precis watch ~/.claude/projects                      # follow transcripts, compact them in idle time
 * precis search "flaky test"                           # full-text search over turns and summaries
 * precis show --format mermaid                         # the DAG as a diagram for Markdown
 * precis serve                                         # a read-only web viewer on http://127.0.0.1:4321/
 * ```
 *
 * Common options: `--db FILE` (default `precis.db`), `--session ID`,
 * `--provider extractive|openai` (default `extractive`, offline), `--json`
 * (one JSON document on stdout), `--verbose` (debug logs with per-call timings
 * on stderr). Session default: for `import` and `compact FILE`, the file's base
 * name without `.jsonl`/`.json`/`.traj`; for the other commands, the session
 * `default` if the store has it, else the store's only session.
 *
 * The compaction flags of `compact` and `watch` are the library's options
 * (`CompactionOptions`), read with its Schema; every option a flag does not
 * give comes from its `PRECIS_COMPACTION_*` variable, else the library's
 * default, so `precis compact` writes the DAG `CompactionManager.compact`
 * writes. A bad flag or variable is one line and exit code 1.
 *
 * Errors are one line on stderr (`precis: reason`, the parser's too) and exit
 * code 1; those about a store name its file. With `OTEL_EXPORTER_OTLP_ENDPOINT` set, the
 * spans and metrics are exported over OTLP/HTTP (see `internal/telemetry.ts`). `--help` pages are the CLI's own
 * (see `internal/help.ts`); `--wizard` is refused.
 *
 * This module only assembles: each command lives in `commands/`, the shared
 * options in `internal/options.ts` and the layers in `internal/layers.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Terminal from "@effect/platform/Terminal"
import type { CompactionManager, CompactionOptions, SleepMode } from "@precis/compaction"
import type { Provider, Summarizer } from "@precis/core"
import type { Importer } from "@precis/importers"
import type { OpenAiProvider } from "@precis/provider-openai"
import type { StoreError } from "@precis/store"
import * as Cause from "effect/Cause"
import type * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Compact from "./commands/compact.js"
import * as Condense from "./commands/condense.js"
import * as Context from "./commands/context.js"
import * as Import from "./commands/import.js"
import * as Search from "./commands/search.js"
import * as Serve from "./commands/serve.js"
import * as Sessions from "./commands/sessions.js"
import * as Show from "./commands/show.js"
import * as Summarize from "./commands/summarize.js"
import * as Watch from "./commands/watch.js"
import { logger, unescaped, withPlainOutput, withPrefixedErrors, withSafeOutput } from "./internal/console.js"
import { CliError, failureLine, isValidationError } from "./internal/errors.js"
import * as Help from "./internal/help.js"
import * as Layers from "./internal/layers.js"
import * as Telemetry from "./internal/telemetry.js"

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
export const providers = Layers.providers

/**
 * A value of `--provider`: `extractive` (offline, deterministic, the default)
 * or `openai` (any OpenAI-compatible server, configured by `PRECIS_OPENAI_*`).
 *
 * @since 0.1.0
 */
export type ProviderName = Layers.ProviderName

/**
 * The `Provider` layer named by `--provider`. `openai` fails with a
 * {@link CliError} when `PRECIS_OPENAI_MODEL` is not set.
 *
 * @since 0.1.0
 */
export const providerLayer: (
  name: ProviderName
) => Layer.Layer<
  Provider.Provider,
  CliError | ConfigError.ConfigError | OpenAiProvider.InvalidOpenAiOptionsError
> = Layers.provider

/**
 * Everything a command can fail with; {@link main} prints each as one line.
 *
 * @since 0.1.0
 */
export type Failure =
  | CliError
  | ConfigError.ConfigError
  | Importer.ImportError
  | StoreError.StoreError
  | CompactionOptions.InvalidOptionsError
  | CompactionManager.ProviderUnavailableError
  | SleepMode.InvalidSleepOptionsError
  | Summarizer.InvalidSummarizerOptionsError
  | OpenAiProvider.InvalidOpenAiOptionsError

const app = { name: "precis", version }

/** Prints the help page of the root (`parents` empty) or of a subcommand. */
const printHelp = <Name extends string, R, E, A>(
  target: Command.Command<Name, R, E, A>,
  parents: ReadonlyArray<string>
): Effect.Effect<void> =>
  unescaped(Effect.suspend(() => Console.log(HelpDoc.toAnsiText(Help.page(target, parents, app)).trimEnd())))

/** The help page of each subcommand, by name. */
const subcommandHelp: Readonly<Record<string, Effect.Effect<void>>> = {
  import: printHelp(Import.command, [app.name]),
  compact: printHelp(Compact.command, [app.name]),
  summarize: printHelp(Summarize.command, [app.name]),
  sessions: printHelp(Sessions.command, [app.name]),
  show: printHelp(Show.command, [app.name]),
  context: printHelp(Context.command, [app.name]),
  watch: printHelp(Watch.command, [app.name]),
  search: printHelp(Search.command, [app.name]),
  serve: printHelp(Serve.command, [app.name])
}

/**
 * The `precis` command tree (exported for tests and for embedding).
 *
 * @since 0.1.0
 */
export const command = Command.make("precis").pipe(
  Command.withDescription("Compress long agent conversations into a DAG of summaries."),
  Command.withHandler((): Effect.Effect<void> => printHelp(command, [])),
  Command.withSubcommands([
    Import.command,
    Compact.command,
    Summarize.command,
    Sessions.command,
    Show.command,
    Context.command,
    Condense.command,
    Watch.command,
    Search.command,
    Serve.command
  ])
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
 * Before the parser of `@effect/cli` sees them, `--help`/`-h` print the CLI's
 * own help page of the command named (the root's without one), and `--wizard`
 * fails with a {@link CliError}.
 *
 * @since 0.1.0
 */
export const run = (argv: ReadonlyArray<string>) => {
  // Only the arguments before `--` can be flags.
  const args = argv.slice(2)
  const end = args.indexOf("--")
  const flags = end === -1 ? args : args.slice(0, end)
  if (flags.includes(Help.wizardFlag)) {
    return Effect.fail(new CliError({ reason: `${Help.wizardFlag} is not supported: see precis --help` }))
  }
  if (flags.includes("--help") || flags.includes("-h")) {
    // The subcommand is the first argument naming one, as the parser of @effect/cli has it.
    const name = flags.find((arg) => Object.hasOwn(subcommandHelp, arg))
    return name === undefined ? printHelp(command, []) : subcommandHelp[name]!
  }
  return Command.run(command, app)(argv)
}

/** Logs go to stderr, so that stdout holds only the command's output (see `internal/console.ts`). */
const stderrLogger = Logger.replace(Logger.defaultLogger, logger)

/**
 * Runs the CLI and turns the outcome into an exit code: 0 on success, 1 on
 * failure after printing one line `precis: reason` on stderr (parse errors of
 * the arguments are printed by the parser itself, given the same prefix). An
 * unexpected defect is printed with its cause. Interruption is not caught.
 *
 * @since 0.1.0
 */
export const main = (argv: ReadonlyArray<string>): Effect.Effect<number, never, Environment> =>
  run(argv).pipe(
    Effect.provide(Telemetry.layer),
    Effect.provide(stderrLogger),
    withPrefixedErrors,
    withSafeOutput,
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
