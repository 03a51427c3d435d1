/**
 * Pure text and JSON renderings of what the commands print.
 *
 * @internal
 */
import type { Condenser } from "@precis/context"
import type { ConversationTurn, SummaryRecord } from "@precis/core"
import { Escape, OutputDigest, Summary, Transcript } from "@precis/core"

/** A node of `precis show --json`. */
export interface DagNode {
  readonly id: string
  readonly depth: number
  readonly tier: Summary.Tier | null
  readonly parentId: string | null
  readonly tokenEstimate: number | null
  readonly timeRangeStart: string | null
  readonly timeRangeEnd: string | null
  readonly children: ReadonlyArray<string>
}

/** The JSON node of a stored summary; `null` stands for a missing field. */
export const dagNode = (summary: SummaryRecord.SummaryRecord): DagNode => ({
  id: summary.id,
  depth: summary.depth,
  tier: summary.tier ?? null,
  parentId: summary.parentId ?? null,
  tokenEstimate: summary.tokenEstimate ?? null,
  timeRangeStart: summary.timeRangeStart ?? null,
  timeRangeEnd: summary.timeRangeEnd ?? null,
  children: summary.sourceSummaryIds ?? []
})

/** `normal 3, aggressive 0, fallback 1`. */
export const tierCountsLine = (counts: Summary.TierCounts): string =>
  `normal ${counts.normal}, aggressive ${counts.aggressive}, fallback ${counts.fallback}`

const PREVIEW_CHARS = 60

// Lines that say nothing on their own: blank ones and omission marks (`OutputDigest.isOmission`).
const uninformative = (line: string): boolean => line.trim().length === 0 || OutputDigest.isOmission(line.trimEnd())

/**
 * The first informative line of `content`, without a leading `[timestamp] `
 * (the time range is shown beside it), cut to a short preview.
 */
export const preview = (content: string): string => {
  const line = content.split(/\r?\n/).find((l) => !uninformative(l)) ?? ""
  const text = line.trim().replace(/^\[(\d{4}-\d\d-\d\dT[\d:]+|\d\d:\d\d|\?)\]\s*/, "")
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text
}

/** A node's time range: `start → end`, or `no time range`. */
export const timeRange = (summary: SummaryRecord.SummaryRecord): string =>
  summary.timeRangeStart === undefined && summary.timeRangeEnd === undefined
    ? "no time range"
    : `${Transcript.shortTimestamp(summary.timeRangeStart)} → ${Transcript.shortTimestamp(summary.timeRangeEnd)}`

/** One line describing a node: depth, tier, tokens, time range, id and a preview. */
export const nodeLine = (summary: SummaryRecord.SummaryRecord): string =>
  `depth ${summary.depth} · ${summary.tier ?? "?"} · ${summary.tokenEstimate ?? "?"} tokens · ${timeRange(summary)} · ` +
  `${Escape.line(summary.id)}  ${JSON.stringify(preview(summary.content))}`

/**
 * The DAG as an indented tree: the parentless summaries (roots) in
 * conversation order, each followed by its children, recursively.
 */
export const tree = (summaries: ReadonlyArray<SummaryRecord.SummaryRecord>): Array<string> => {
  const byId = new Map(summaries.map((s) => [s.id, s]))
  const lines: Array<string> = []
  const visit = (summary: SummaryRecord.SummaryRecord, prefix: string, connector: string, childPrefix: string) => {
    lines.push(`${prefix}${connector}${nodeLine(summary)}`)
    const children = (summary.sourceSummaryIds ?? []).flatMap((id) => {
      const child = byId.get(id)
      return child === undefined ? [] : [child]
    })
    children.forEach((child, i) => {
      const last = i === children.length - 1
      visit(child, prefix + childPrefix, last ? "└─ " : "├─ ", last ? "   " : "│  ")
    })
  }
  for (const root of summaries.filter((s) => s.parentId === undefined || !byId.has(s.parentId))) {
    visit(root, "", "", "")
  }
  return lines
}

/** The header of `show`: session, turns, and summaries by kind. */
export const dagHeader = (
  sessionId: string,
  turnCount: number,
  uncovered: number,
  summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
): string => {
  const leaves = summaries.filter((s) => s.depth === 0).length
  const maxDepth = summaries.reduce((m, s) => Math.max(m, s.depth), -1)
  return `session ${Escape.line(sessionId)}: ${turnCount} turns (${uncovered} not summarized), ${summaries.length} summaries ` +
    `(${leaves} leaves, ${summaries.length - leaves} condensed, ${maxDepth + 1} levels)`
}

/** The tier counts of a list of summaries. */
export const tierCountsOf = (summaries: ReadonlyArray<SummaryRecord.SummaryRecord>): Summary.TierCounts =>
  summaries.reduce(
    (counts, s) => (s.tier === undefined ? counts : Summary.incrementTier(counts, s.tier)),
    Summary.emptyTierCounts
  )

/** A turn of a `--json` context: `null` for a missing field. */
export const contextTurn = (turn: ConversationTurn.ConversationTurn) => ({
  id: turn.id ?? null,
  role: turn.role,
  content: turn.content,
  timestamp: turn.timestamp ?? null
})

/**
 * The condenser's report in one line per stage that acted:
 * `condenser: 52000 -> 7980 tokens (budget 8000)` then
 * `  mask: 52000 -> 9100 tokens; masked 12, trimmed 1`.
 */
export const condenserReport = (report: Condenser.Report, budget: number): ReadonlyArray<string> => {
  const lines = [`condenser: ${report.tokensBefore} -> ${report.tokensAfter} tokens (budget ${budget})`]
  for (const stage of report.stages) {
    if (!stage.acted) continue
    const counts = (["masked", "trimmed", "dropped", "summarized", "expanded"] as const)
      .filter((key) => stage[key] > 0)
      .map((key) => `${key} ${stage[key]}`)
    // A stage that acted with nothing to count (`whole`: the session as it is) says only its tokens.
    lines.push(`${stage.stage}: ${stage.tokensBefore} -> ${stage.tokensAfter} tokens${counts.length === 0 ? "" : `; ${counts.join(", ")}`}`)
  }
  return lines
}

/**
 * What `precis context --budget N` reports on stderr beside the context: the
 * session state's tokens (when there is a header), the
 * {@link condenserReport} (whose counts are of the summaries and turns
 * alone), then what was printed, everything counted.
 */
export const contextReport = (
  assembled: { readonly headerTokens: number; readonly tokens: number; readonly report: Condenser.Report },
  budget: number
): ReadonlyArray<string> => [
  ...(assembled.headerTokens > 0 ? [`session state: ${assembled.headerTokens} tokens`] : []),
  ...condenserReport(assembled.report, budget),
  `printed: ${assembled.tokens} of ${budget} tokens`
]
