/**
 * What a command may fail with ({@link Failure}) and how each failure is
 * reported: one line and an exit code ({@link report}), in one table. A
 * command's errors are inferred from its handler; {@link reported} checks
 * that each is in the table.
 *
 * @internal
 */
import type * as Command from "@effect/cli/Command"
import type { CompactionError, CompactionOptions, SleepMode } from "@precis/compaction"
import type { ContextError } from "@precis/context"
import { Redact, type Summarizer } from "@precis/core"
import type { ImportError } from "@precis/importers"
import type { OpenAiProvider } from "@precis/provider-openai"
import { StoreError } from "@precis/store"
import * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Match from "effect/Match"
import type { Db } from "./db.js"

/** A user mistake (missing file, unknown session, bad option value, missing configuration). */
export class CliError extends Data.TaggedError("CliError")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason
  }
}

/** `text` on one line: its line breaks (and the blanks around them) become one space. */
export const collapse = (text: string): string => text.replace(/\s*\r?\n\s*/g, " ").trim()

const configErrorLine = (error: ConfigError.ConfigError): string => {
  const parts = ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left: Array<string>, right: Array<string>) => [...left, ...right],
    orCase: (_, left: Array<string>, right: Array<string>) => [...left, ...right],
    invalidDataCase: (_, path, message) => [`${path.join(".")}: ${message}`],
    missingDataCase: (_, path, message) => [`${path.join(".")}: ${message}`],
    sourceUnavailableCase: (_, path, message) => [`${path.join(".")}: ${message}`],
    unsupportedCase: (_, path, message) => [`${path.join(".")}: ${message}`]
  })
  return `configuration error: ${Array.from(new Set(parts)).join("; ")}`
}

/**
 * Every failure a command may end with: a user's mistake, bad configuration
 * or options, bad input, a store that cannot be used, a provider that will
 * not heal. {@link report} prints each.
 */
export type Failure =
  | CliError
  | ConfigError.ConfigError
  | StoreError.StoreError
  | ImportError.ImportError
  | CompactionOptions.InvalidOptionsError
  | ContextError.InvalidContextOptionsError
  | CompactionError.ProviderUnavailableError
  | SleepMode.InvalidSleepOptionsError
  | Summarizer.InvalidSummarizerOptionsError
  | OpenAiProvider.InvalidOpenAiOptionsError

/**
 * `command`, whose failures are inferred from its handler, as the CLI runs
 * it: it compiles only when each of them is a {@link Failure}.
 */
export const reported = <Name extends string, R, A>(
  command: Command.Command<Name, R, Failure, A>
): Command.Command<Name, R, Failure, A> => command

/** How the CLI ends on a failure: the line it prints after `precis: ` and its exit code. */
export interface Report {
  readonly line: string
  readonly exitCode: number
}

// The sentence of each failure, by its tag. Every one says what went wrong in its message: a
// store's names the store and says why (its `reason`: not a store, newer schema, locked, ...).
const sentence: (error: Failure) => string = Match.type<Failure>().pipe(
  Match.when(ConfigError.isConfigError, configErrorLine),
  Match.tagsExhaustive({
    CliError: (error) => error.reason,
    StoreError: (error) => error.message,
    ImportError: (error) => error.message,
    InvalidOptionsError: (error) => error.message,
    InvalidContextOptionsError: (error) => error.message,
    ProviderUnavailableError: (error) => error.message,
    InvalidSleepOptionsError: (error) => error.message,
    InvalidSummarizerOptionsError: (error) => error.message,
    InvalidOpenAiOptionsError: (error) => error.message
  })
)

/**
 * The report of a failure: its sentence on one line, with no URL's secrets
 * (`Redact.url`), whoever wrote the message; every failure exits with 1
 * (never 2, which a Claude Code hook reads as "block").
 */
export const report = (error: Failure): Report => ({ line: collapse(Redact.url(sentence(error))), exitCode: 1 })

/**
 * `self` with its store failures naming the store: `postgres://…: TurnStore.sessions: …`
 * (a `StoreError` of a file store already starts with its file name).
 */
export const inStore = (db: Db) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError.StoreError, R> =>
  Effect.mapError(
    self,
    (error): E | StoreError.StoreError => error instanceof StoreError.StoreError ? error.inStore(`${db}`) : error
  )
