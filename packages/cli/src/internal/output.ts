/**
 * How the commands print: JSON documents, log verbosity and timings.
 *
 * @internal
 */
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

/** Debug logs (with timings) when verbose, warnings and errors otherwise. */
export const withVerbosity = (verbose: boolean) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Logger.withMinimumLogLevel(self, verbose ? LogLevel.Debug : LogLevel.Warning)

/** Runs `self` and logs how long it took at debug level. */
export const timed = (label: string) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.timed(self).pipe(
    Effect.tap(([elapsed]) =>
      Effect.logDebug(`precis: ${label}`).pipe(Effect.annotateLogs({ elapsedMs: Duration.toMillis(elapsed) }))
    ),
    Effect.map(([, a]) => a)
  )

/** Prints `value` as one indented JSON document on stdout. */
export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

