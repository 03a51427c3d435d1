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
 * precis watch                                        # follow every agent's sessions, compact in idle time
 * precis search "flaky test"                           # full-text search over turns and summaries
 * precis show --format mermaid                         # the DAG as a diagram for Markdown
 * precis serve                                         # a read-only web viewer on http://127.0.0.1:4321/
 * precis install claude-code                           # Claude Code hooks and MCP server, per user
 * precis mcp                                           # the recall tools over MCP (stdio)
 * precis hook claude-code < event.json                 # what Claude Code's hooks run
 * precis install codex | gemini | opencode             # MCP server and hooks (Codex, Gemini) or plugin (opencode)
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
 * code 1, each kind printed by the one table of `internal/errors.ts`; those
 * about a store name its file. The arguments are parsed by `@effect/cli`,
 * with one workaround (`internal/argv.ts`: a word that looks like an option
 * is not taken for a FILE, PATH or QUERY). With
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set, the spans and metrics are exported over
 * OTLP/HTTP (see `internal/telemetry.ts`). `--help` pages are the library's
 * help, wrapped at the terminal's width (see `internal/help.ts`); `--wizard`
 * is refused.
 *
 * This module only assembles: each command lives in `commands/`, listed once
 * in `commands/registry.ts` (the parser, the help pages and the README's list
 * are read from it), the shared options in `internal/options.ts` and the
 * layers in `internal/layers.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as CommandDescriptor from "@effect/cli/CommandDescriptor"
import * as ValidationError from "@effect/cli/ValidationError"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Terminal from "@effect/platform/Terminal"
import type { Provider } from "@precis/core"
import type { Importer } from "@precis/importers"
import type { OpenAiProvider } from "@precis/provider-openai"
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import type * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Registry from "./commands/registry.js"
import * as Argv from "./internal/argv.js"
import { logger, unescaped, withPlainOutput, withPrefixedErrors, withSafeOutput } from "./internal/console.js"
import * as Errors from "./internal/errors.js"
import * as Help from "./internal/help.js"
import * as Layers from "./internal/layers.js"
import * as Telemetry from "./internal/telemetry.js"
import * as Version from "./internal/version.js"

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
export const version: string = Version.version

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
 * A value of `--format` of the commands that read transcripts: `auto` or one
 * of `Importer.formats`.
 *
 * @since 0.1.0
 */
export type Format = Importer.Format

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
  Errors.CliError | ConfigError.ConfigError | OpenAiProvider.InvalidOpenAiOptionsError
> = Layers.provider

/**
 * Everything a command can fail with; {@link main} prints each as one line
 * (the table of `internal/errors.ts`, where each command's inferred errors
 * are checked against this union).
 *
 * @since 0.1.0
 */
export type Failure = Errors.Failure

const app = { name: "precis", version }

/** The root command without its subcommands: its description and the built-in options. */
const root = Command.make(app.name).pipe(
  Command.withDescription("Compress long agent conversations into a DAG of summaries."),
  Command.withHandler(() => printRoot)
)

/** The root page: the root's description and built-in options, then the commands of the registry. */
const printRoot: Effect.Effect<void, never, Terminal.Terminal> = unescaped(Effect.flatMap(Help.width, (width) =>
  Console.log(Help.page(app, [], root.descriptor, width, Help.commandList(app, Registry.entries)))))

/**
 * The `precis` command tree (exported for tests and for embedding): the root
 * and the commands of the registry (`commands/registry.ts`).
 *
 * @since 0.1.0
 */
export const command = root.pipe(Command.withSubcommands(Arr.map(Registry.commands, (module) => module.command)))

/** The registry's commands by name. */
const byName: ReadonlyMap<string, CommandDescriptor.Command<unknown>> = new Map(
  Registry.entries.map((entry) => [entry.name, entry.descriptor])
)

/** The subcommands of a command by name (`getSubcommands` counts a command among its own). */
const subcommandsOf = (command: CommandDescriptor.Command<unknown>): ReadonlyMap<string, CommandDescriptor.Command<unknown>> => {
  const own = new Set(CommandDescriptor.getNames(command))
  return new Map(HashMap.toEntries(CommandDescriptor.getSubcommands(command)).filter(([name]) => !own.has(name)))
}

/**
 * The help page of the command the leading words of `args` name
 * (`hook claude-code`), the root's without one.
 */
const printHelp = (args: ReadonlyArray<string>): Effect.Effect<void, never, Terminal.Terminal> => {
  const path: Array<string> = []
  let reached: CommandDescriptor.Command<unknown> = command.descriptor
  for (const arg of args) {
    const next = (path.length === 0 ? byName : subcommandsOf(reached)).get(arg)
    if (next === undefined) break
    path.push(arg)
    reached = next
  }
  return path.length === 0
    ? printRoot
    : unescaped(Effect.flatMap(Help.width, (width) => Console.log(Help.page(app, [app.name, ...path.slice(0, -1)], reached, width))))
}

/**
 * Everything the commands need from the platform (`NodeContext.layer` provides it).
 *
 * @since 0.1.0
 */
export type Environment = FileSystem.FileSystem | Path.Path | Terminal.Terminal

/**
 * Parses `argv` (`[node, script, ...args]`, as `process.argv`) and runs the
 * command. Fails with what went wrong; see {@link main} for the exit-code form.
 * `--help`/`-h` before `--` prints the help page of the command named, at the
 * terminal's width (see `internal/help.ts`: the parser takes them for a value
 * after an option with its value, see `internal/argv.ts`); `--wizard` fails
 * with a {@link CliError}.
 *
 * @since 0.1.0
 */
export const run = (argv: ReadonlyArray<string>) => {
  const args = argv.slice(2)
  const flags = Argv.beforeDashes(args)
  if (flags.includes(Help.wizardFlag)) {
    return Effect.fail(new Errors.CliError({ reason: `${Help.wizardFlag} is not supported: see precis --help` }))
  }
  if (flags.includes("--help") || flags.includes("-h")) return printHelp(args)
  return Command.run(command, app)(argv).pipe(Argv.withArgs(args))
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
      const failure = Cause.failureOption(cause)
      if (Option.isNone(failure)) return Effect.as(Console.error(`precis: unexpected error\n${Cause.pretty(cause)}`), 1)
      // The parser has printed its own errors.
      if (ValidationError.isValidationError(failure.value)) return Effect.succeed(1)
      const { exitCode, line } = Errors.report(failure.value)
      return Effect.as(Console.error(`precis: ${line}`), exitCode)
    })
  )
