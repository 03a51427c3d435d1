/**
 * What the store reads besides whole table rows (summaries with their
 * sources, session counts, search hits), and the conversions of decoded rows
 * into the port's models. The rows of the public tables are in `Tables`.
 *
 * @internal
 */
import { ConversationTurn, SummaryRecord } from "@precis/core"
import * as Schema from "effect/Schema"
import { SummaryRow, TurnRow } from "../Tables.js"
import { type SessionInfo, StoredTurn } from "../TurnStore.js"

/** A JSON column holding a list of ids (or of strings: a summary's Also keys). */
const Ids = Schema.parseJson(Schema.Array(Schema.String))

// The columns of a turn row as stored (`metadata` still JSON text), with their refinements.
const isTurnColumns = Schema.is(Schema.encodedBoundSchema(TurnRow))
const isMetadata = Schema.is(ConversationTurn.ConversationTurn.fields.metadata.from)

// The turn metadata in `text`, when it is JSON of a record (what the `metadata`
// column's `parseJson` decodes, checked by the same schema, without the parser's copy).
const parseMetadata = (text: string): { readonly [key: string]: unknown } | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return isMetadata(value) ? value : undefined
}

/**
 * A row of `turns` decoded by {@link TurnRow}, for the reads of a whole
 * session: its columns checked in place (`Schema.is` of the row as stored,
 * refinements included) and its JSON `metadata` parsed and checked by the
 * same schema: what a full decode does, minus copying the row through the
 * parser. `undefined` when the row fails, so that the caller decodes the
 * rows for the `ParseError` (the error is the full decode's).
 */
export const checkTurnRow = (row: unknown): TurnRow | undefined => {
  if (!isTurnColumns(row)) return undefined
  if (row.metadata === null) return { ...row, metadata: null }
  const metadata = parseMetadata(row.metadata)
  return metadata === undefined ? undefined : { ...row, metadata }
}

/**
 * Many rows of a query checked by a `schema` without transformations (its
 * rows as stored are its values: strings, integers, literals): each row is
 * checked in place by `Schema.is`, with no copy; `undefined` when a row fails,
 * so that the caller decodes them all for the `ParseError`.
 */
export const checkRows = <A>(schema: Schema.Schema<A, A>) => {
  const is = Schema.is(schema)
  return (rows: ReadonlyArray<unknown>): ReadonlyArray<A> | undefined => rows.every(is) ? rows : undefined
}

/** A summary read with its sources in order, aggregated into JSON arrays. */
export const SummaryWithSources = Schema.Struct({
  ...SummaryRow.fields,
  also_keys: Schema.NullOr(Ids),
  turn_ids: Ids,
  child_ids: Ids
})

/** @internal */
export type SummaryWithSources = typeof SummaryWithSources.Type

/** A row of the session list: a session, its project and time span, and the counts of its turns and summaries. */
export const SessionRow = Schema.Struct({
  id: Schema.String,
  created_at: Schema.String,
  turns: Schema.Int,
  summaries: Schema.Int,
  cwd: Schema.NullOr(Schema.String),
  git_root: Schema.NullOr(Schema.String),
  agent: Schema.NullOr(Schema.String),
  started_at: Schema.NullOr(Schema.String),
  ended_at: Schema.NullOr(Schema.String)
})

/** A row of the full-text search: a matching turn or summary. */
export const HitRow = Schema.Struct({
  kind: Schema.Literal("turn", "summary"),
  id: Schema.String,
  session_id: Schema.String,
  snippet: Schema.String,
  rank: Schema.Number,
  seq: Schema.NullOr(Schema.Int),
  depth: Schema.NullOr(Schema.Int),
  leaf_id: Schema.NullOr(Schema.String)
})

/** A decoded session row as a {@link SessionInfo}. */
export const toSessionInfo = (row: typeof SessionRow.Type): SessionInfo => ({
  id: row.id,
  createdAt: row.created_at,
  turnCount: row.turns,
  summaryCount: row.summaries,
  ...(row.cwd === null ? {} : {
    project: {
      directory: row.cwd,
      ...(row.git_root === null ? {} : { gitRoot: row.git_root }),
      ...(row.agent === null ? {} : { agent: row.agent })
    }
  }),
  ...(row.started_at === null ? {} : { startedAt: row.started_at }),
  ...(row.ended_at === null ? {} : { endedAt: row.ended_at })
})

/** A decoded turn row as a {@link StoredTurn}. */
export const toStoredTurn = (row: TurnRow): StoredTurn =>
  new StoredTurn(
    {
      id: row.id,
      sessionId: row.session_id,
      seq: row.seq,
      role: row.role,
      content: row.content,
      ...(row.timestamp === null ? {} : { timestamp: row.timestamp }),
      ...(row.metadata === null ? {} : { metadata: row.metadata })
    },
    true
  )

/** A decoded summary row (with its sources) as a `SummaryRecord`. */
export const toRecord = (row: SummaryWithSources): SummaryRecord.SummaryRecord =>
  new SummaryRecord.SummaryRecord(
    {
      id: row.id,
      sessionId: row.session_id,
      depth: row.depth,
      content: row.content,
      tier: row.tier,
      tokenEstimate: row.token_estimate,
      descendantCount: row.descendant_count,
      createdAt: row.created_at,
      sourceTurnIds: row.turn_ids,
      sourceSummaryIds: row.child_ids,
      ...(row.also_keys === null ? {} : { alsoKeys: row.also_keys }),
      ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
      ...(row.time_range_start === null ? {} : { timeRangeStart: row.time_range_start }),
      ...(row.time_range_end === null ? {} : { timeRangeEnd: row.time_range_end })
    },
    true
  )
