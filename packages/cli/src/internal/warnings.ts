/**
 * Node's process warnings (a library's security or deprecation notice, such
 * as pg's about `sslmode=require`) in the CLI's form: one line
 * `precis: warning: ...` on stderr (the notice's first line, redacted and
 * escaped), instead of Node's several lines with a process id and a hint
 * about `--trace-warnings`.
 *
 * @internal
 */
import { Escape, Redact } from "@precis/core"

/** The line printed for `warning`. */
export const warningLine = (warning: Error): string => {
  const first = warning.message.split(/\r?\n/).find((line) => line.trim().length > 0)?.trim() ?? warning.name
  const kind = warning.name === "Warning" ? "" : `${warning.name}: `
  return `precis: warning: ${Escape.line(Redact.url(`${kind}${first}`))}`
}

/** From now on, each process warning is printed as {@link warningLine}, and Node prints none of its own. */
export const printWarningsAsLines = (): void => {
  process.removeAllListeners("warning")
  process.on("warning", (warning) => {
    process.stderr.write(`${warningLine(warning)}\n`)
  })
}
