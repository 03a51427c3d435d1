/**
 * JSONL importers: one JSON value per line, parsed as the lines stream in.
 *
 * @internal
 */
import { Buffer, isAscii } from "node:buffer"
import { TextDecoder } from "node:util"
import { LineFailure, type Sink } from "./common.js"
import { parseJson } from "./json.js"

/** A stateful reader of one JSONL file; `push` each line in order (1-based numbers). */
export interface LineReader {
  readonly push: (text: string, line: number, out: Sink) => void
  /** Called once after the last line of a whole file: adds what the reader still holds back. */
  readonly end?: ((out: Sink) => void) | undefined
  /** What the reader holds between lines, as JSON: its format's `reader(saved)` goes on from it. */
  readonly save?: (() => unknown) | undefined
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

/**
 * Splits the bytes of a file into lines as they arrive, calling `onLine` with
 * each line and its 1-based number: the lines `Stream.decodeText` and
 * `Stream.splitLines` give (UTF-8, a leading byte-order mark dropped; lines end
 * at `\n` or `\r\n`; a last line without a line break counts unless it is
 * empty), without a stream step per line, and ASCII without decoding. `end`
 * passes the last line, if any.
 */
export const lineSplitter = (onLine: (text: string, line: number) => void) => {
  // A read of ASCII bytes is its own text, copied at once instead of decoded, unless
  // the decoder may hold the start of a character (its last read ended in one). The
  // decoder drops a byte-order mark only at the start of the file.
  let decoder: TextDecoder | undefined
  let pending = false
  let started = false
  // The start of the line the next bytes continue (it holds no line break).
  let rest = ""
  let line = 0
  const emit = (text: string) => onLine(text.endsWith("\r") ? text.slice(0, -1) : text, ++line)
  return {
    push: (bytes: Uint8Array): void => {
      let text: string
      if (!pending && isAscii(bytes)) {
        text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
      } else {
        decoder ??= new TextDecoder("utf-8", { ignoreBOM: started })
        text = decoder.decode(bytes, { stream: true })
        if (bytes.byteLength > 0) pending = bytes[bytes.byteLength - 1]! >= 0x80
      }
      if (bytes.byteLength > 0) started = true
      let start = 0
      let end = text.indexOf("\n")
      while (end !== -1) {
        emit(start === 0 && rest.length > 0 ? rest + text.slice(0, end) : text.slice(start, end))
        if (start === 0) rest = ""
        start = end + 1
        end = text.indexOf("\n", start)
      }
      rest = start === 0 ? rest + text : text.slice(start)
    },
    end: (): void => {
      const last = rest.endsWith("\r") ? rest.slice(0, -1) : rest
      rest = ""
      if (last.length > 0) onLine(last, ++line)
    }
  }
}

/** The failure for a line that is not the expected object. */
export function badLine(line: number, reason: string): never {
  throw new LineFailure(line, reason)
}

