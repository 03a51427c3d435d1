/**
 * Pure rendering of turns and summaries into the material a model reads: the
 * transcript line format has one home. Nothing parses a material back (a
 * summary task carries its items); only a summary's own text, which a model
 * wrote, is read ({@link turnHead}).
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

/**
 * The indent of a turn's lines after its first: no line of a turn's content
 * can pose as the start of another turn.
 *
 * @since 0.1.0
 */
export const indent = "  "

const indentContinuation = (content: string): string =>
  content.includes("\n") ? content.replace(/\r?\n/g, `\n${indent}`) : content

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
 * The head of a line of a summary's text that opens a turn: its time as
 * written (`undefined` for `?`), its role, and the rest of the line.
 *
 * @since 0.1.0
 */
export interface TurnHead {
  readonly timestamp: string | undefined
  readonly role: string
  readonly content: string
}

// A bracket of at most 40 characters (short forms such as `[09:03]` included),
// a role of at most 64 characters up to the first colon, then the content.
const TURN_HEAD = /^\[([^\]\n]{1,40})\] ([^:\n]{1,64}?):(?: ([^\n]*))?$/

/**
 * The turn head of a line of a summary's text (`[09:03] tool: 3 tests, 0
 * failures`, as the extractive provider writes its lines, or a model quoting
 * them), or `undefined` when `line` opens no turn. A summary is text, written
 * by a model: this reads it, for the extractive provider (a condensation's
 * children, a prior summary) and the fact check of a condensation. Turns are
 * never read back from a material: a summary task carries them as items.
 *
 * @example
 * ```ts
 * import { Transcript } from "@precis/core"
 * Transcript.turnHead("[09:03] tool: 3 tests, 0 failures") // { timestamp: "09:03", role: "tool", content: "3 tests, 0 failures" }
 * Transcript.turnHead("[?] tool:") // { timestamp: undefined, role: "tool", content: "" }
 * ```
 * @since 0.1.0
 */
export const turnHead = (line: string): TurnHead | undefined => {
  const match = TURN_HEAD.exec(line)
  if (match === null) return undefined
  const stamp = match[1]!
  return { timestamp: stamp === "?" ? undefined : stamp, role: match[2]!, content: match[3] ?? "" }
}
