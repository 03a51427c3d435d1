/**
 * JSONL importers: one JSON value per line, parsed as the lines stream in.
 *
 * @internal
 */
import { LineFailure, type Sink } from "./common.js"
import { parseJson } from "./json.js"

/** A stateful reader of one JSONL file; `push` each line in order (1-based numbers). */
export interface LineReader {
  readonly push: (text: string, line: number, out: Sink) => void
  /** Called once after the last line of a whole file: adds what the reader still holds back. */
  readonly end?: ((out: Sink) => void) | undefined
}

const NON_BLANK = /\S/

/** Builds a reader from a function of each parsed non-blank line. */
export const lineReader = (
  onValue: (value: unknown, line: number, out: Sink) => void
): LineReader => ({
  push: (raw, line, out) => {
    // A byte-order mark may start the file; blank lines are allowed anywhere.
    const text = line === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
    if (!NON_BLANK.test(text)) return
    onValue(parseJson(text, line), line, out)
  }
})

/** Reads every line of `text` with `reader`. */
export const readLines = (reader: LineReader, text: string, out: Sink): void => {
  let start = 0
  let line = 1
  while (start <= text.length) {
    let end = text.indexOf("\n", start)
    if (end === -1) end = text.length
    const raw = text.slice(start, end)
    reader.push(raw.endsWith("\r") ? raw.slice(0, -1) : raw, line, out)
    start = end + 1
    line++
  }
  reader.end?.(out)
}

/** The failure for a line that is not the expected object. */
export function badLine(line: number, reason: string): never {
  throw new LineFailure(line, reason)
}

