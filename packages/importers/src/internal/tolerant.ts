/**
 * Lenient reading of another program's log: a line whose reader fails is
 * skipped and reported (its line, the reason, its text), the reader goes on
 * with the next line.
 *
 * @internal
 */
import type { Skipped } from "../SkipReport.js"
import { LineFailure, type Sink } from "./common.js"
import type { LineReader } from "./jsonl.js"

/**
 * `reader`, with each line that fails pushed to `skipped` instead of failing
 * the file. Only a `LineFailure` is bad input; anything else thrown is a bug
 * and goes through. (A line that yields several turns and fails on a later one
 * keeps the earlier ones: reading the mended line again adds the rest, as the
 * kept ones are the same turns with the same ids.)
 */
export const tolerant = (reader: LineReader, skipped: Array<Skipped>): LineReader => ({
  push: (text: string, line: number, out: Sink) => {
    try {
      reader.push(text, line, out)
    } catch (error) {
      if (!(error instanceof LineFailure)) throw error
      skipped.push({ line: error.line, reason: error.reason, text })
    }
  },
  end: reader.end,
  save: reader.save
})
