/**
 * What a lenient import left out or changed: the lines of another program's
 * log that could not be read (skipped, with their text, so that nothing is
 * lost) and the turns stored with a character made visible (a NUL in a tool's
 * output). The importer gives them with the turns (`Importer.Imported`,
 * `LineParser.report`); the CLI prints them as `FILE:LINE: skipped:
 * reason` and keeps the skipped lines' text beside the store.
 *
 * @since 0.1.0
 */

/**
 * A line (or record) of a file that could not be read and was skipped: its
 * 1-based line, why, and its text as read (without its line break).
 *
 * @since 0.1.0
 */
export interface Skipped {
  readonly line: number
  readonly reason: string
  readonly text: string
}

/**
 * A turn stored with its content changed so that it could be stored: its
 * line and what was changed (`NUL shown as ␀`).
 *
 * @since 0.1.0
 */
export interface Mended {
  readonly line: number
  readonly reason: string
}

/**
 * What an import skipped and mended, in line order.
 *
 * @since 0.1.0
 */
export interface SkipReport {
  readonly skipped: ReadonlyArray<Skipped>
  readonly mended: ReadonlyArray<Mended>
}

/**
 * The report of an import that skipped and mended nothing.
 *
 * @since 0.1.0
 */
export const empty: SkipReport = { skipped: [], mended: [] }

/**
 * The line a skipped line is reported with: `FILE:LINE: skipped: reason`.
 *
 * @example
 * ```ts
 * import { SkipReport } from "@precis/importers"
 * SkipReport.skippedLine("s.jsonl", { line: 7, reason: "invalid JSON: invalid escape in string", text: "{" })
 * // "s.jsonl:7: skipped: invalid JSON: invalid escape in string"
 * ```
 * @since 0.1.0
 */
export const skippedLine = (file: string, skipped: Skipped): string => `${file}:${skipped.line}: skipped: ${skipped.reason}`

/**
 * The line a mended turn is reported with: `FILE:LINE: reason`.
 *
 * @since 0.1.0
 */
export const mendedLine = (file: string, mended: Mended): string => `${file}:${mended.line}: ${mended.reason}`

/**
 * The character a NUL (U+0000) of a lenient import's content is shown as:
 * U+2400, SYMBOL FOR NULL (`␀`). Stores refuse a NUL (PostgreSQL's text
 * cannot hold one); a tool's output that printed one is kept, visibly.
 *
 * @since 0.1.0
 */
export const visibleNul = "\u2400"
