/**
 * The rows of the tables users may query, as Schemas: `turns`, `summaries`
 * and `summary_sources` (their names and columns are part of the contract).
 * A Schema's `Encoded` side is the row as stored, its `Type` side the row as
 * used (JSON columns parsed). The store decodes what it reads with them.
 *
 * @example
 * ```ts
 * import { SqlClient } from "@effect/sql"
 * import { Tables } from "@precis/store"
 * import { Effect, Schema } from "effect"
 * const leaves = Effect.flatMap(SqlClient.SqlClient, (sql) =>
 *   Effect.flatMap(sql`SELECT * FROM summaries WHERE depth = 0`, Schema.decodeUnknown(Schema.Array(Tables.SummaryRow))))
 * ```
 * @since 0.1.0
 */
import { ConversationTurn, Summary } from "@precis/core"
import * as Schema from "effect/Schema"

/**
 * A row of `turns`; `metadata` is stored as JSON text.
 *
 * @since 0.1.0
 */
export const TurnRow = Schema.Struct({
  id: Schema.String,
  session_id: Schema.String,
  seq: Schema.Int,
  role: Schema.String,
  content: Schema.String,
  timestamp: Schema.NullOr(Schema.String),
  metadata: Schema.NullOr(Schema.parseJson(ConversationTurn.ConversationTurn.fields.metadata.from))
})

/**
 * @since 0.1.0
 */
export type TurnRow = typeof TurnRow.Type

/**
 * A row of `summaries`, with the store's own `first_seq`/`last_seq` (the seq
 * range of the turns below it, which orders summaries in conversation order
 * even when timestamps are missing).
 *
 * @since 0.1.0
 */
export const SummaryRow = Schema.Struct({
  id: Schema.String,
  session_id: Schema.String,
  depth: Schema.Int,
  content: Schema.String,
  tier: Summary.Tier,
  token_estimate: Schema.Int,
  /** The keys of its `Also:` line, a JSON array of strings (`AlsoLine`); written since schema 11. */
  also_keys: Schema.NullOr(Schema.String),
  parent_id: Schema.NullOr(Schema.String),
  time_range_start: Schema.NullOr(Schema.String),
  time_range_end: Schema.NullOr(Schema.String),
  descendant_count: Schema.Int,
  created_at: Schema.String,
  first_seq: Schema.Int,
  last_seq: Schema.Int
})

/**
 * @since 0.1.0
 */
export type SummaryRow = typeof SummaryRow.Type

/**
 * A row of `summary_sources`: exactly one of `turn_id` (a leaf's turn) and
 * `child_summary_id` (a condensed summary's child) is set.
 *
 * @since 0.1.0
 */
export const SourceRow = Schema.Struct({
  summary_id: Schema.String,
  position: Schema.Int,
  turn_id: Schema.NullOr(Schema.String),
  child_summary_id: Schema.NullOr(Schema.String)
})

/**
 * @since 0.1.0
 */
export type SourceRow = typeof SourceRow.Type
