/**
 * Pure rendering of turns and summaries into the material a model reads.
 *
 * @since 0.1.0
 */
import type { ConversationTurn } from "./ConversationTurn.js"
import type { SummaryRecord } from "./SummaryRecord.js"

/**
 * The first 19 characters of an ISO-8601 timestamp (`YYYY-MM-DDTHH:MM:SS`), or
 * `?` when it is missing or empty.
 *
 * @since 0.1.0
 */
export const shortTimestamp = (timestamp: string | undefined): string =>
  timestamp === undefined || timestamp.length === 0 ? "?" : timestamp.slice(0, 19)

// Continuation lines are indented so that no line of a turn's content can pose
// as the start of another turn.
const indentContinuation = (content: string): string =>
  content.includes("\n") ? content.replace(/\r?\n/g, "\n  ") : content

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
  `[${shortTimestamp(turn.timestamp)}] ${turn.role}: ${indentContinuation(turn.content)}`

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
 * The header line of a rendered summary: 1-based index, depth and, when both
 * ends exist, the time range.
 *
 * @since 0.1.0
 */
export const summaryHeader = (
  index: number,
  summary: Pick<SummaryRecord, "depth" | "timeRangeStart" | "timeRangeEnd">
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
  summaries: ReadonlyArray<Pick<SummaryRecord, "depth" | "content" | "timeRangeStart" | "timeRangeEnd">>
): string => summaries.map((s, i) => `${summaryHeader(i + 1, s)}\n${s.content}`).join("\n\n")
