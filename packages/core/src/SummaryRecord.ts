/**
 * A stored node of the summary DAG.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Tier } from "./Summary.js"

/**
 * A summary node: depth 0 summarizes raw turns (`sourceTurnIds`), depth `d > 0`
 * condenses summaries of depth `d - 1` (`sourceSummaryIds`). `parentId` is set once
 * a higher-depth summary has absorbed this one.
 *
 * @since 0.1.0
 */
export class SummaryRecord extends Schema.Class<SummaryRecord>("@precis/core/SummaryRecord")({
  id: Schema.String,
  depth: Schema.Int.pipe(Schema.nonNegative()),
  content: Schema.String,
  sessionId: Schema.optional(Schema.String),
  timeRangeStart: Schema.optional(Schema.String),
  timeRangeEnd: Schema.optional(Schema.String),
  tokenEstimate: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  sourceTurnIds: Schema.optional(Schema.Array(Schema.String)),
  sourceSummaryIds: Schema.optional(Schema.Array(Schema.String)),
  parentId: Schema.optional(Schema.String),
  descendantCount: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  tier: Schema.optional(Tier),
  createdAt: Schema.optional(Schema.String),
  /** The keys of the summary's `Also:` line (`Summary.alsoKeys`), stored with it. */
  alsoKeys: Schema.optional(Schema.Array(Schema.String))
}) {}

/**
 * Builds a summary record from its fields (validating them).
 *
 * @since 0.1.0
 */
export const make = (fields: ConstructorParameters<typeof SummaryRecord>[0]): SummaryRecord =>
  new SummaryRecord(fields)

/**
 * The time range of a summary over its sources: the earliest start and the
 * latest end of their ranges (a turn's range is its timestamp at both ends);
 * missing or empty ends are ignored. Instants are compared when both parse,
 * text otherwise.
 *
 * @example
 * ```ts
 * import { SummaryRecord } from "@precis/core"
 * SummaryRecord.timeRange([
 *   { start: "2025-01-02T00:00:00Z", end: "2025-01-03T00:00:00Z" },
 *   { start: "2025-01-01T00:00:00Z", end: null }
 * ]) // { start: "2025-01-01T00:00:00Z", end: "2025-01-03T00:00:00Z" }
 * ```
 * @since 0.1.0
 */
export const timeRange = (
  ranges: Iterable<{ readonly start: string | null | undefined; readonly end: string | null | undefined }>
): { readonly start: string | undefined; readonly end: string | undefined } => {
  // The instants of the current start and end are kept, so each timestamp is parsed once.
  let start: string | undefined
  let startAt = NaN
  let end: string | undefined
  let endAt = NaN
  for (const range of ranges) {
    if (range.start != null && range.start.length > 0) {
      const at = Date.parse(range.start)
      if (start === undefined || (Number.isNaN(at) || Number.isNaN(startAt) ? range.start < start : at < startAt)) {
        start = range.start
        startAt = at
      }
    }
    if (range.end != null && range.end.length > 0) {
      const at = Date.parse(range.end)
      if (end === undefined || (Number.isNaN(at) || Number.isNaN(endAt) ? end < range.end : endAt < at)) {
        end = range.end
        endAt = at
      }
    }
  }
  return { start, end }
}
