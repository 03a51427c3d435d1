/**
 * Pure rendering of turns and summaries into the material a model reads, and
 * its parser: the transcript line format has one home.
 *
 * @since 0.1.0
 */
import type { ConversationTurn } from "./ConversationTurn.js"
import * as Escape from "./Escape.js"

/**
 * The first 19 characters of an ISO-8601 timestamp (`YYYY-MM-DDTHH:MM:SS`), or
 * `?` when it is missing or empty; on one line whatever it holds
 * (`Escape.line`).
 *
 * @since 0.1.0
 */
export const shortTimestamp = (timestamp: string | undefined): string =>
  timestamp === undefined || timestamp.length === 0 ? "?" : Escape.line(timestamp.slice(0, 19))

// Continuation lines are indented so that no line of a turn's content can pose
// as the start of another turn.
const INDENT = "  "
const indentContinuation = (content: string): string =>
  content.includes("\n") ? content.replace(/\r?\n/g, `\n${INDENT}`) : content

/**
 * The head of a turn's first line: `[YYYY-MM-DDTHH:MM:SS] role:` (`[?] role:`
 * without a timestamp). The role and the timestamp stay on that line, even
 * from a store written before they were checked (`Escape.line`).
 *
 * @since 0.1.0
 */
export const turnPrefix = (turn: Pick<ConversationTurn, "role" | "timestamp">): string =>
  `[${shortTimestamp(turn.timestamp)}] ${Escape.line(turn.role)}:`

/**
 * One turn as `[YYYY-MM-DDTHH:MM:SS] role: content`; the lines after the first
 * of a multi-line content are indented by two spaces.
 *
 * @example
 * ```ts
 * import { ConversationTurn, Transcript } from "@precis/core"
 * Transcript.formatTurn(ConversationTurn.make({ role: "user", content: "hi", timestamp: "2025-01-02T03:04:05.678Z" }))
 * // "[2025-01-02T03:04:05] user: hi"
 * ```
 * @since 0.1.0
 */
export const formatTurn = (turn: Pick<ConversationTurn, "role" | "content" | "timestamp">): string =>
  `${turnPrefix(turn)} ${indentContinuation(turn.content)}`

/**
 * Turns one per line, in the order given.
 *
 * @since 0.1.0
 */
export const formatTurns = (turns: Iterable<Pick<ConversationTurn, "role" | "content" | "timestamp">>): string => {
  const lines: Array<string> = []
  for (const turn of turns) lines.push(formatTurn(turn))
  return lines.join("\n")
}

/**
 * What a rendered summary shows (a `SummaryRecord` fits): its depth, its
 * content and its time range.
 *
 * @since 0.1.0
 */
export interface RenderedSummary {
  readonly depth: number
  readonly content: string
  readonly timeRangeStart?: string | undefined
  readonly timeRangeEnd?: string | undefined
}

/**
 * The header line of a rendered summary: 1-based index, depth and, when both
 * ends exist, the time range.
 *
 * @since 0.1.0
 */
export const summaryHeader = (
  index: number,
  summary: Omit<RenderedSummary, "content">
): string => {
  const range = summary.timeRangeStart !== undefined && summary.timeRangeEnd !== undefined
    ? `, ${shortTimestamp(summary.timeRangeStart)} to ${shortTimestamp(summary.timeRangeEnd)}`
    : ""
  return `[Summary ${index}, depth ${summary.depth}${range}]`
}

/**
 * Summaries rendered in order, each as its header line followed by its content,
 * separated by blank lines.
 *
 * @since 0.1.0
 */
export const renderSummaries = (
  summaries: ReadonlyArray<RenderedSummary>
): string => summaries.map((s, i) => `${summaryHeader(i + 1, s)}\n${s.content}`).join("\n\n")

/**
 * A turn read back from a transcript: its timestamp as written (`undefined`
 * for `?`), its role and its content.
 *
 * @since 0.1.0
 */
export interface ParsedTurn {
  readonly timestamp: string | undefined
  readonly role: string
  readonly content: string
}

// A bracket of at most 40 characters (short forms such as `[09:03]` included),
// a role of at most 64 characters up to the first colon, then the content.
const TURN_LINE = /^\[([^\]\n]{1,40})\] ([^:\n]{1,64}?):(?: ([^\n]*))?$/

/**
 * The parts of a turn's first line, `[timestamp] role: content`, or
 * `undefined` when `line` does not open a turn. `content` is the rest of that
 * line only.
 *
 * @example
 * ```ts
 * import { Transcript } from "@precis/core"
 * Transcript.parseTurnLine("[2025-01-02T03:04:05] user: hi")
 * // { timestamp: "2025-01-02T03:04:05", role: "user", content: "hi" }
 * Transcript.parseTurnLine("[?] tool:") // { timestamp: undefined, role: "tool", content: "" }
 * ```
 * @since 0.1.0
 */
export const parseTurnLine = (line: string): ParsedTurn | undefined => {
  const match = TURN_LINE.exec(line)
  if (match === null) return undefined
  const stamp = match[1]!
  return { timestamp: stamp === "?" ? undefined : stamp, role: match[2]!, content: match[3] ?? "" }
}

/**
 * The text of a continuation line (one indented by two spaces, inside a
 * turn) without its indent, or `undefined` for a line that is not one.
 *
 * @since 0.1.0
 */
export const parseContinuation = (line: string): string | undefined =>
  line.startsWith(INDENT) ? line.slice(INDENT.length) : undefined

/**
 * Turns read back from a transcript: a turn line opens a turn, the indented
 * lines after it continue its content; other lines (summary headers, text
 * outside any turn) are skipped. The inverse of {@link formatTurns} up to the
 * formatting: timestamps come back as their first 19 characters, `\r\n`
 * inside a content as `\n`. Roles with a colon or a newline, or longer than
 * 64 characters, and timestamps with `]` do not come back.
 *
 * @example
 * ```ts
 * import { Transcript } from "@precis/core"
 * Transcript.parse("[2025-01-02T03:04:05] tool: line 1\n  line 2\n[?] assistant: ok")
 * // [{ timestamp: "2025-01-02T03:04:05", role: "tool", content: "line 1\nline 2" },
 * //  { timestamp: undefined, role: "assistant", content: "ok" }]
 * ```
 * @since 0.1.0
 */
export const parse = (transcript: string): Array<ParsedTurn> => {
  const turns: Array<ParsedTurn> = []
  let open: { readonly timestamp: string | undefined; readonly role: string; readonly lines: Array<string> } | undefined
  for (const line of transcript.split("\n")) {
    if (open !== undefined) {
      const continued = parseContinuation(line)
      if (continued !== undefined) {
        open.lines.push(continued)
        continue
      }
      turns.push({ timestamp: open.timestamp, role: open.role, content: open.lines.join("\n") })
      open = undefined
    }
    const turn = parseTurnLine(line)
    if (turn !== undefined) open = { timestamp: turn.timestamp, role: turn.role, lines: [turn.content] }
  }
  if (open !== undefined) turns.push({ timestamp: open.timestamp, role: open.role, content: open.lines.join("\n") })
  return turns
}

/**
 * The fields of a summary header line, as {@link summaryHeader} writes it.
 *
 * @since 0.1.0
 */
export interface ParsedSummaryHeader {
  readonly index: number
  readonly depth: number
  /** The short start of the time range; `undefined` when there is no range or it reads `?`. */
  readonly timeRangeStart: string | undefined
  /** The short end of the time range; `undefined` when there is no range or it reads `?`. */
  readonly timeRangeEnd: string | undefined
}

const SUMMARY_HEADER = /^\[Summary (\d+), depth (\d+)([^\]\n]*)\]$/
const TIME_RANGE = /^, (.+?) to (.+)$/

/**
 * The fields of a summary header line (`[Summary i, depth d]` or
 * `[Summary i, depth d, START to END]`), or `undefined` when `line` is not one.
 *
 * @example
 * ```ts
 * import { Transcript } from "@precis/core"
 * Transcript.parseSummaryHeader("[Summary 2, depth 1, 2025-01-01T00:00:00 to 2025-01-01T01:00:00]")
 * // { index: 2, depth: 1, timeRangeStart: "2025-01-01T00:00:00", timeRangeEnd: "2025-01-01T01:00:00" }
 * ```
 * @since 0.1.0
 */
export const parseSummaryHeader = (line: string): ParsedSummaryHeader | undefined => {
  const match = SUMMARY_HEADER.exec(line)
  if (match === null) return undefined
  const range = TIME_RANGE.exec(match[3]!)
  const stamp = (value: string | undefined) => value === undefined || value === "?" ? undefined : value
  return {
    index: Number(match[1]),
    depth: Number(match[2]),
    timeRangeStart: stamp(range?.[1]),
    timeRangeEnd: stamp(range?.[2])
  }
}
