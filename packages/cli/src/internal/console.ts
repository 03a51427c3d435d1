/**
 * The CLI's Consoles: one that drops ANSI styling when its stream is not a
 * terminal (or `NO_COLOR` is set), since the help pages of `@effect/cli` are
 * always styled; and one that puts each `Console.error` message in the CLI's
 * one-line `precis: ` form.
 *
 * @internal
 */
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { collapse } from "./errors.js"

// CSI sequences such as "\x1b[0;1m".
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g

/** `text` without ANSI escape sequences. */
export const stripAnsi = (text: string): string => text.replace(ANSI, "")

const plainArgs = (args: ReadonlyArray<unknown>): Array<unknown> =>
  args.map((a) => (typeof a === "string" ? stripAnsi(a) : a))

/** `base` with the styling removed from what `log`/`info` (stdout) and `error`/`warn` (stderr) print, as asked. */
export const plain = (
  base: Console.Console,
  strip: { readonly stdout: boolean; readonly stderr: boolean }
): Console.Console => {
  if (!strip.stdout && !strip.stderr) return base
  const out = (args: ReadonlyArray<unknown>) => (strip.stdout ? plainArgs(args) : args)
  const err = (args: ReadonlyArray<unknown>) => (strip.stderr ? plainArgs(args) : args)
  return {
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
  }
}

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
