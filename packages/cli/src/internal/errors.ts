/**
 * User-facing failures and their one-line descriptions.
 *
 * @internal
 */
import * as ValidationError from "@effect/cli/ValidationError"
import { Redact } from "@precis/core"
import { StoreError } from "@precis/store"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
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

const describe = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return configErrorLine(error)
  if (error instanceof Error) return error.message.length > 0 ? error.message : error.name
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return error.message
  }
  return String(error)
}

/**
 * One line describing a failure value, with no URL's secrets (`Redact.url`),
 * whoever wrote the message.
 */
export const failureLine = (error: unknown): string => collapse(Redact.url(describe(error)))

/** Whether the cause is a parse error of `@effect/cli`, which the CLI app has already printed. */
export const isValidationError = (cause: Cause.Cause<unknown>): boolean =>
  Cause.failureOption(cause).pipe((o) => o._tag === "Some" && ValidationError.isValidationError(o.value))

/**
 * `self` with its store failures naming the store file: `precis.db: TurnStore.sessions: …`
 * (a `StoreError` of a file store already starts with its file name).
 */
export const inStore = (db: Db) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | CliError, R> =>
  Effect.mapError(
    self,
    (error): E | CliError =>
      error instanceof StoreError.StoreError
        ? new CliError({ reason: error.filename === undefined ? `${db}: ${error.message}` : error.message })
        : error
  )
