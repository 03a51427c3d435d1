/**
 * The queries of `DagStore`: reading summaries with their sources, the
 * drill-down to the turns below a summary, and the one writer of summaries
 * (a leaf over the oldest uncovered turns, a condensed summary over
 * parentless siblings), which checks the sources before it writes.
 *
 * @internal
 */
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { SummaryRecord } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ParseError } from "effect/ParseResult"
import { randomUUID } from "node:crypto"
import type { NewCondensed, NewLeaf, Service } from "../DagStore.js"
import type { Page } from "../TurnStore.js"
import { type Reason, StoreError } from "../StoreError.js"
import { SummaryRow, TurnRow } from "../Tables.js"
import type { Env } from "./dialect.js"
import { checkAll, decodeAll, now, pageClause, turnReads } from "./query.js"
import * as Rows from "./rows.js"

const summaryRows = decodeAll(Rows.SummaryWithSources)
const frontierRows = checkAll(TurnRow.pick("id", "seq", "timestamp"))
const childRows = checkAll(
  SummaryRow.pick(
    "id",
    "depth",
    "parent_id",
    "time_range_start",
    "time_range_end",
    "descendant_count",
    "first_seq",
    "last_seq"
  )
)

// A summary about to be written, once its sources are checked: its row but for
// the id and creation time, and its sources in order (turns for a leaf,
// children for a condensed summary).
interface Draft {
  readonly row: Omit<SummaryRow, "id" | "created_at">
  readonly alsoKeys: ReadonlyArray<string>
  readonly sources: { readonly column: "turn_id" | "child_summary_id"; readonly ids: ReadonlyArray<string> }
}

const conflict = (operation: string, description: string, reason: Reason = "InvalidInput") =>
  Effect.fail(new StoreError({ operation, reason, description }))

// The NUL rule of turns (`ConversationTurn.Content`) holds for summaries too: refused by every driver,
// as PostgreSQL would refuse it.
const withoutNul = (operation: string, content: string) =>
  content.includes("\u0000") ? conflict(operation, "a summary's content must not hold U+0000 (NUL)") : Effect.void

// The reads of summaries (each with its sources, aggregated in order) and of
// the turns below them.
const reads = (env: Env) => {
  const { dialect, error, sql } = env
  const turns = turnReads(env)
  const summaryColumns = sql`s.id, s.session_id, s.depth, s.content, s.tier, s.token_estimate, s.also_keys, s.parent_id,
    s.time_range_start, s.time_range_end, s.descendant_count, s.created_at, s.first_seq, s.last_seq,
    (SELECT ${sql.literal(dialect.jsonArray("ss.turn_id", "ss.position"))} FROM summary_sources ss
      WHERE ss.summary_id = s.id AND ss.turn_id IS NOT NULL) AS turn_ids,
    (SELECT ${sql.literal(dialect.jsonArray("ss.child_summary_id", "ss.position"))} FROM summary_sources ss
      WHERE ss.summary_id = s.id AND ss.child_summary_id IS NOT NULL) AS child_ids`

  const selectSummaries = (where: Fragment, page?: Page) =>
    Effect.map(
      summaryRows(
        sql`SELECT ${summaryColumns} FROM summaries s WHERE ${where} ORDER BY s.first_seq, s.depth ${pageClause(env, page)}`
      ),
      (rows) => rows.map(Rows.toRecord)
    )

  const depthClause = (depth: number | undefined) => (depth === undefined ? [] : [sql`s.depth = ${depth}`])

  const summary: Service["summary"] = (id) =>
    Effect.map(selectSummaries(sql.and([sql`s.id = ${id}`])), (rows) => Option.fromNullable(rows[0])).pipe(
      Effect.mapError(error("DagStore.summary"))
    )

  // `substr` rather than LIKE, as `TurnStore.turnsWithIdPrefix`: an id may hold `%` or `_`.
  const summariesWithIdPrefix: Service["summariesWithIdPrefix"] = (sessionId, prefix, limit = 20) =>
    Effect.map(
      summaryRows(
        sql`SELECT ${summaryColumns} FROM summaries s WHERE ${
          sql.and([
            ...(sessionId === undefined ? [] : [sql`s.session_id = ${sessionId}`]),
            sql`substr(s.id, 1, ${[...prefix].length}) = ${prefix}`
          ])
        } ORDER BY s.session_id, s.first_seq, s.depth LIMIT ${Math.max(1, Math.floor(limit))}`
      ),
      (rows) => rows.map(Rows.toRecord)
    ).pipe(Effect.mapError(error("DagStore.summariesWithIdPrefix")))

  const summaries: Service["summaries"] = (sessionId, options = {}) =>
    selectSummaries(sql.and([sql`s.session_id = ${sessionId}`, ...depthClause(options.depth)]), options.page).pipe(
      Effect.mapError(error("DagStore.summaries"))
    )

  const parentless: Service["parentless"] = (sessionId, options = {}) =>
    selectSummaries(
      sql.and([sql`s.session_id = ${sessionId}`, sql`s.parent_id IS NULL`, ...depthClause(options.depth)]),
      options.page
    ).pipe(Effect.mapError(error("DagStore.parentless")))

  const children: Service["children"] = (summaryId) =>
    selectSummaries(sql.and([sql`s.parent_id = ${summaryId}`])).pipe(Effect.mapError(error("DagStore.children")))

  const sourceTurns: Service["sourceTurns"] = (summaryId, page) =>
    turns.select(
      sql`WITH RECURSIVE below(id) AS (
          SELECT ${summaryId}
          UNION ALL
          SELECT ss.child_summary_id FROM summary_sources ss JOIN below b ON ss.summary_id = b.id
          WHERE ss.child_summary_id IS NOT NULL
        )
        SELECT ${turns.columns} FROM turns t
        WHERE t.session_id = (SELECT session_id FROM summaries WHERE id = ${summaryId}) AND t.id IN (
          SELECT ss.turn_id FROM summary_sources ss JOIN below b ON ss.summary_id = b.id WHERE ss.turn_id IS NOT NULL
        )
        ORDER BY t.seq ${pageClause(env, page)}`
    ).pipe(Effect.mapError(error("DagStore.sourceTurns")))

  const latestLeaf: Service["latestLeaf"] = (sessionId) =>
    Effect.map(
      summaryRows(
        sql`SELECT ${summaryColumns} FROM summaries s WHERE s.session_id = ${sessionId} AND s.depth = 0
          ORDER BY s.first_seq DESC LIMIT 1`
      ),
      (rows) => Option.map(Option.fromNullable(rows[0]), Rows.toRecord)
    ).pipe(Effect.mapError(error("DagStore.latestLeaf")))

  return { summary, summariesWithIdPrefix, summaries, parentless, children, sourceTurns, latestLeaf }
}

// The one writer of summaries: checks the sources (`draft`), then inserts the
// row, its source links (one fixed statement text whatever their number: the
// ids go in as one JSON array) and, for a condensed summary, its children's
// `parent_id`, all in one transaction.
const insertSummary = (
  { dialect, sql }: Env,
  operation: string,
  draft: Effect.Effect<Draft, StoreError | SqlError | ParseError>
) =>
  Effect.gen(function*() {
    const { alsoKeys, row: partial, sources } = yield* draft
    const row: SummaryRow = { ...partial, id: randomUUID(), created_at: yield* now }
    yield* sql`INSERT INTO summaries ${sql.insert(row)}`
    yield* sql.unsafe(
      `INSERT INTO summary_sources (summary_id, position, ${sources.column})
        SELECT CAST(${dialect.param(1)} AS TEXT), j.key, j.value FROM ${dialect.jsonElements(dialect.param(2))} j`,
      [row.id, JSON.stringify(sources.ids)]
    )
    const condensed = sources.column === "child_summary_id"
    if (condensed) yield* sql`UPDATE summaries SET parent_id = ${row.id} WHERE ${sql.in("id", sources.ids)}`
    return Rows.toRecord({
      ...row,
      also_keys: alsoKeys,
      turn_ids: condensed ? [] : sources.ids,
      child_ids: condensed ? sources.ids : []
    })
  }).pipe(dialect.transaction, Effect.mapError((cause) => StoreError.fromCause(cause, operation)))

// A leaf's row once its turns are checked: the next uncovered turns, in order.
const leafDraft = (env: Env, leaf: NewLeaf) =>
  Effect.gen(function*() {
    const operation = "DagStore.insertLeaf"
    if (leaf.turnIds.length === 0) return yield* conflict(operation, "a leaf needs at least one turn")
    yield* withoutNul(operation, leaf.content)
    const found = yield* frontierRows(env.sql`SELECT t.id, t.seq, t.timestamp FROM turns t
      WHERE t.session_id = ${leaf.sessionId} AND t.seq >= ${turnReads(env).frontier(leaf.sessionId)}
      ORDER BY t.seq LIMIT ${leaf.turnIds.length}`)
    if (found.length !== leaf.turnIds.length || found.some((row, i) => row.id !== leaf.turnIds[i])) {
      return yield* conflict(
        operation,
        `the turns must be the next ${leaf.turnIds.length} uncovered turns of session ${leaf.sessionId}, in order`
      )
    }
    const times = SummaryRecord.timeRange(found.map((row) => ({ start: row.timestamp, end: row.timestamp })))
    return {
      row: {
        session_id: leaf.sessionId,
        depth: 0,
        content: leaf.content,
        tier: leaf.tier,
        token_estimate: leaf.tokenEstimate,
        also_keys: JSON.stringify(leaf.alsoKeys ?? []),
        parent_id: null,
        time_range_start: times.start ?? null,
        time_range_end: times.end ?? null,
        descendant_count: 0,
        first_seq: found[0]!.seq,
        last_seq: found[found.length - 1]!.seq
      },
      alsoKeys: leaf.alsoKeys ?? [],
      sources: { column: "turn_id", ids: leaf.turnIds }
    } satisfies Draft
  })

// A condensed summary's row once its children are checked: parentless
// summaries of the session, of one depth, none twice.
const condensedDraft = ({ sql }: Env, node: NewCondensed) =>
  Effect.gen(function*() {
    const operation = "DagStore.insertCondensed"
    if (node.childIds.length === 0) return yield* conflict(operation, "a summary needs at least one child")
    yield* withoutNul(operation, node.content)
    if (new Set(node.childIds).size !== node.childIds.length) return yield* conflict(operation, "a child appears twice")
    const rows = yield* childRows(sql`SELECT id, depth, parent_id, time_range_start, time_range_end, descendant_count,
      first_seq, last_seq FROM summaries WHERE session_id = ${node.sessionId} AND ${sql.in("id", node.childIds)}`)
    if (rows.length !== node.childIds.length) {
      return yield* conflict(operation, `unknown child in session ${node.sessionId}`)
    }
    if (rows.some((row) => row.parent_id !== null)) return yield* conflict(operation, "a child already has a parent")
    const depth = rows[0]!.depth
    if (rows.some((row) => row.depth !== depth)) return yield* conflict(operation, "children of different depths")
    const times = SummaryRecord.timeRange(rows.map((row) => ({ start: row.time_range_start, end: row.time_range_end })))
    return {
      row: {
        session_id: node.sessionId,
        depth: depth + 1,
        content: node.content,
        tier: node.tier,
        token_estimate: node.tokenEstimate,
        also_keys: JSON.stringify(node.alsoKeys ?? []),
        parent_id: null,
        time_range_start: times.start ?? null,
        time_range_end: times.end ?? null,
        descendant_count: rows.reduce((n, row) => n + 1 + row.descendant_count, 0),
        first_seq: Math.min(...rows.map((row) => row.first_seq)),
        last_seq: Math.max(...rows.map((row) => row.last_seq))
      },
      alsoKeys: node.alsoKeys ?? [],
      sources: { column: "child_summary_id", ids: node.childIds }
    } satisfies Draft
  })

/**
 * `DagStore` over `env`.
 *
 * @internal
 */
export const make = (env: Env): Service => {
  const { dialect, error, sql } = env
  const read = reads(env)

  const rewriteSummary: Service["rewriteSummary"] = (id, text) =>
    Effect.gen(function*() {
      yield* withoutNul("DagStore.rewriteSummary", text.content)
      yield* sql`UPDATE summaries SET content = ${text.content}, tier = ${text.tier},
        token_estimate = ${text.tokenEstimate}, also_keys = ${JSON.stringify(text.alsoKeys ?? [])} WHERE id = ${id}`
      const found = yield* read.summary(id)
      return yield* Option.match(found, {
        onNone: () => conflict("DagStore.rewriteSummary", `no summary ${id}`, "NotFound"),
        onSome: Effect.succeed
      })
    }).pipe(dialect.transaction, Effect.mapError(error("DagStore.rewriteSummary")))

  return {
    ...read,
    insertLeaf: (leaf) => insertSummary(env, "DagStore.insertLeaf", leafDraft(env, leaf)),
    insertCondensed: (node) => insertSummary(env, "DagStore.insertCondensed", condensedDraft(env, node)),
    rewriteSummary
  }
}
