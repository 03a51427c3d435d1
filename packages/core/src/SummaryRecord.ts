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
  createdAt: Schema.optional(Schema.String)
}) {}

/**
 * Builds a summary record from its fields (validating them).
 *
 * @since 0.1.0
 */
export const make = (fields: ConstructorParameters<typeof SummaryRecord>[0]): SummaryRecord =>
  new SummaryRecord(fields)
