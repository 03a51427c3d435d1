/**
 * The CLI's Consoles: one that drops ANSI styling when its stream is not a
 * terminal (or `NO_COLOR` is set), since the help pages of `@effect/cli` are
 * always styled; one that puts each `Console.error` message in the CLI's
 * one-line `precis: ` form; and one that escapes every control character of
 * what the commands print (`Escape.terminal`), so that no transcript, id or
 * file name drives the terminal. The CLI's logger (`logger`) writes one line
 * per log, redacted and escaped the same way.
 *
 * @internal
 */
import { Escape, Redact } from "@precis/core"
import * as Cause from "effect/Cause"
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { collapse } from "./errors.js"

// CSI sequences such as "\x1b[0;1m".
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g

/** `text` without ANSI escape sequences. */
export const stripAnsi = (text: string): string => text.replace(ANSI, "")

const plainArgs = (args: ReadonlyArray<unknown>): Array<unknown> =>
  args.map((a) => (typeof a === "string" ? stripAnsi(a) : a))

type Args = (args: ReadonlyArray<unknown>) => ReadonlyArray<unknown>
const same: Args = (args) => args

// `base` with what `log`/`info` (stdout) and `error`/`warn` (stderr) print passed through `out` and `err`.
const mapArgs = (base: Console.Console, out: Args, err: Args): Console.Console => ({
  ...base,
  log: (...args) => base.log(...out(args)),
  info: (...args) => base.info(...out(args)),
  error: (...args) => base.error(...err(args)),
  warn: (...args) => base.warn(...err(args)),
  unsafe: {
    ...base.unsafe,
    log: (...args) => base.unsafe.log(...out(args)),
    info: (...args) => base.unsafe.info(...out(args)),
    error: (...args) => base.unsafe.error(...err(args)),
    warn: (...args) => base.unsafe.warn(...err(args))
  }
})

/** `base` with the styling removed from what `log`/`info` (stdout) and `error`/`warn` (stderr) print, as asked. */
export const plain = (
  base: Console.Console,
  strip: { readonly stdout: boolean; readonly stderr: boolean }
): Console.Console =>
  !strip.stdout && !strip.stderr ? base : mapArgs(base, strip.stdout ? plainArgs : same, strip.stderr ? plainArgs : same)

/** Runs `self` with styling removed from the streams that are not terminals. */
export const withPlainOutput = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.consoleWith((base) => {
    const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== ""
    return Effect.withConsole(
      self,
      plain(base, { stdout: noColor || process.stdout.isTTY !== true, stderr: noColor || process.stderr.isTTY !== true })
    )
  })

const PREFIX = "precis: "

/**
 * `base` whose `error` gives each message the CLI's one-line form: `precis: `
 * first (unless it is there), no styling, the lines joined. Inside the CLI,
 * `error` is called by the parser of `@effect/cli` (bad option values, unknown
 * commands) and by the progress lines; the logger writes through
 * `unsafe.error`, which is left alone.
 */
export const prefixed = (base: Console.Console): Console.Console => ({
  ...base,
  error: (...args) => {
    const line = collapse(stripAnsi(args.map(String).join(" ")))
    return base.error(line.startsWith(PREFIX) ? line : `${PREFIX}${line}`)
  }
})

/** Runs `self` with its `Console.error` messages in the CLI's one-line form (see {@link prefixed}). */
export const withPrefixedErrors = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.consoleWith((base) => Effect.withConsole(self, prefixed(base)))

// Where a safe console keeps the console it escapes for: the styled help pages write to it.
const Unescaped: unique symbol = Symbol.for("@precis/cli/console/Unescaped")

const escapedArgs: Args = (args) => args.map((a) => (typeof a === "string" ? Escape.terminal(a) : a))

/**
 * `base` writing every string it is given through `Escape.terminal`: no
 * escape sequence, carriage return or other control character that a
 * transcript, an id or a file name holds reaches the terminal, and JSON stays
 * the same JSON (the escapes are JSON's). The styling of the help pages is
 * written as it is ({@link unescaped}).
 */
export const safe = (base: Console.Console): Console.Console =>
  Object.assign(mapArgs(base, escapedArgs, escapedArgs), { [Unescaped]: base })

/** Runs `self` with what it prints escaped (see {@link safe}). */
export const withSafeOutput = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.consoleWith((base) => Effect.withConsole(self, safe(base)))

/**
 * Runs `self` (a help page of the CLI's own, styled on purpose) with what it
 * prints left as it is: on the console the safe one escapes for (kept by the
 * consoles wrapping it, which copy its properties).
 */
export const unescaped = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.consoleWith((console) => {
    const inner = (console as Console.Console & { readonly [Unescaped]?: Console.Console })[Unescaped]
    return inner === undefined ? self : Effect.withConsole(self, inner)
  })

// A log's message parts and its cause, as text.
const messageOf = (message: unknown, cause: Cause.Cause<unknown>): string => {
  const parts = (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : String(m)))
  return [...parts, ...(Cause.isEmpty(cause) ? [] : [Cause.pretty(cause)])].join(" ")
}

/**
 * The CLI's logger, on stderr (the console's `unsafe.error`, so escaped as
 * everything printed is): a warning or an error is one line
 * `precis: warning: message` (what a user reads: a writer waiting for
 * another, a step that failed and was skipped); debug and info logs
 * (`--verbose`) keep logfmt with their annotations. Every line is redacted
 * (`Redact.url`): no log shows a password.
 */
export const logger: Logger.Logger<unknown, void> = Logger.withConsoleError(
  Logger.make((options) =>
    Redact.url(
      LogLevel.greaterThanEqual(options.logLevel, LogLevel.Warning)
        ? `${PREFIX}${options.logLevel._tag === "Warning" ? "warning" : "error"}: ${
          collapse(messageOf(options.message, options.cause))
        }`
        : Logger.logfmtLogger.log(options)
    )
  )
)
