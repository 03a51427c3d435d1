/**
 * The store's queries, written once for both drivers: a {@link Dialect} gives
 * what SQLite and PostgreSQL spell differently (the write transaction, JSON
 * aggregation, a JSON array as rows, bound parameters), and `SqliteMemoryStore`
 * and `PgMemoryStore` add their connection set-up, migrations and lease.
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import {
  type FollowedFile,
  type Service,
  type SessionInfo,
  StoreError,
  type StoredSessionState,
  StoredTurn,
  TurnConflictError
} from "../MemoryStore.js"
import { span } from "./plan.js"
import * as Rows from "./rows.js"
import { invalidInput, storeError } from "./storeError.js"

// Rows per multi-row INSERT: the 7,000 bound parameters of 1,000 turns stay below either
// engine's limit (SQLite 32,766, PostgreSQL 65,535); 200 made a 10 MB append ~15% slower.
const BATCH = 1000

const batches = <A>(items: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH))
  return out
}

// Runs a query and decodes its rows with `schema`, as `SqlSchema.findAll` does.
const isSqlError = (u: unknown): u is SqlError => u instanceof SqlError

// With `check`, for many rows: `check` takes the rows in place when they pass
// it, and the full decode runs only when one does not, for its `ParseError`.
const decodeAll = <A, I>(
  schema: Schema.Schema<A, I>,
  check: (rows: ReadonlyArray<unknown>) => ReadonlyArray<A> | undefined = () => undefined
) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    Effect.flatMap(query, (rows) => {
      const checked = check(rows)
      return checked === undefined ? decode(rows) : Effect.succeed(checked)
    })
}

// A schema without transformations: its rows are checked in place.
const checkAll = <A>(schema: Schema.Schema<A, A>) => decodeAll(schema, Rows.checkRows(schema))

const turnRows = decodeAll(Rows.TurnRow, Rows.checkTurnRows)
const summaryRows = decodeAll(Rows.SummaryWithSources)
const sessionRows = decodeAll(Rows.SessionRow)
const frontierRows = checkAll(Rows.TurnRow.pick("id", "seq", "timestamp"))
const childRows = checkAll(
  Rows.SummaryRow.pick(
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
const sameIdRows = decodeAll(Rows.TurnRow.pick("id", "role", "content"))
const claimRows = decodeAll(Schema.Struct({ session_id: Schema.String, stamp: Schema.Int }))
const nextSeqRows = decodeAll(Schema.Struct({ next: Schema.Int }))
const followedRows = decodeAll(Schema.Struct({
  path: Schema.String,
  session_id: Schema.String,
  format: Schema.String,
  byte_offset: Schema.Union(Schema.Number, Schema.NumberFromString),
  line_count: Schema.Union(Schema.Number, Schema.NumberFromString),
  head_hash: Schema.String
}))

const sessionStateRows = decodeAll(Schema.Struct({
  session_id: Schema.String,
  last_seq: Schema.Union(Schema.Number, Schema.NumberFromString),
  state: Schema.String
}))

// A summary about to be written, once its sources are checked: its row but for
// the id and creation time, and its sources in order (turns for a leaf,
// children for a condensed summary).
interface Draft {
  readonly row: Omit<Rows.SummaryRow, "id" | "created_at">
  readonly sources: { readonly column: "turn_id" | "child_summary_id"; readonly ids: ReadonlyArray<string> }
}

/**
 * What the two SQL dialects spell differently.
 *
 * @internal
 */
export interface Dialect {
  /** Runs `effect` in one write transaction (nested calls become savepoints). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
  /** The aggregate of `column` into a JSON array, as text, in `order` (`[]` over no rows). */
  readonly jsonArray: (column: string, order: string) => string
  /** A table of the elements of the JSON array bound at `param`, as columns `key` (0-based) and `value`. */
  readonly jsonElements: (param: string) => string
  /** The placeholder of the `n`-th (1-based) bound parameter of an unsafe statement. */
  readonly param: (n: number) => string
  /** What a `SELECT` ends with to lock the rows it returns, skipping those another transaction has locked. */
  readonly skipLocked: string
}

/**
 * The SQLite spelling, with `transaction` (an IMMEDIATE one).
 *
 * @internal
 */
export const sqlite = (transaction: Dialect["transaction"]): Dialect => ({
  transaction,
  jsonArray: (column, order) => `json_group_array(${column} ORDER BY ${order})`,
  jsonElements: (param) => `json_each(${param})`,
  param: () => "?",
  // One writer at a time: a statement has nothing to skip.
  skipLocked: ""
})

/**
 * The PostgreSQL spelling, with `transaction`.
 *
 * @internal
 */
export const postgres = (transaction: Dialect["transaction"]): Dialect => ({
  transaction,
  jsonArray: (column, order) => `coalesce(json_agg(${column} ORDER BY ${order}), '[]'::json)::text`,
  jsonElements: (param) =>
    `(SELECT (e.ord - 1)::int AS key, e.value FROM jsonb_array_elements_text(${param}::jsonb) WITH ORDINALITY AS e(value, ord))`,
  param: (n) => `$${n}`,
  skipLocked: "FOR UPDATE SKIP LOCKED"
})

/**
 * The store's operations but its session lease and search, over `sql` in `dialect`;
 * `error` maps a failure of an operation to a `StoreError`.
 *
 * @internal
 */
export const make = (
  sql: SqlClient.SqlClient,
  dialect: Dialect,
  error: (operation: string) => (cause: unknown) => StoreError
): Omit<Service, "withSessionLease" | "tryWithSessionLease" | "search" | "indexSearch"> => {
  const transaction = dialect.transaction

  const now = Effect.map(DateTime.now, DateTime.formatIso)

  const summaryColumns = sql`s.id, s.session_id, s.depth, s.content, s.tier, s.token_estimate, s.parent_id,
    s.time_range_start, s.time_range_end, s.descendant_count, s.created_at, s.first_seq, s.last_seq,
    (SELECT ${sql.literal(dialect.jsonArray("ss.turn_id", "ss.position"))} FROM summary_sources ss
      WHERE ss.summary_id = s.id AND ss.turn_id IS NOT NULL) AS turn_ids,
    (SELECT ${sql.literal(dialect.jsonArray("ss.child_summary_id", "ss.position"))} FROM summary_sources ss
      WHERE ss.summary_id = s.id AND ss.child_summary_id IS NOT NULL) AS child_ids`

  const selectSummaries = (where: Fragment) =>
    Effect.map(
      summaryRows(sql`SELECT ${summaryColumns} FROM summaries s WHERE ${where} ORDER BY s.first_seq, s.depth`),
      (rows) => rows.map(Rows.toRecord)
    )

  const turnColumns = sql`t.id, t.session_id, t.seq, t.role, t.content, t.timestamp, t.metadata`

  const selectTurns = (query: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    Effect.map(turnRows(query), (rows) => rows.map(Rows.toStoredTurn))

  // Multi-row inserts with a fixed SQL text per batch size: the statement is
  // prepared once and reused, and no per-row template is compiled.
  const insertRows = (table: string, columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
    Effect.forEach(
      batches(rows),
      (batch) => {
        const tuples = batch.map((_, row) =>
          `(${columns.map((_, column) => dialect.param(row * columns.length + column + 1)).join(", ")})`
        )
        const text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${tuples.join(", ")}`
        return sql.unsafe(text, batch.flat())
      },
      { discard: true }
    )

  // A summary's sources in order, with one fixed statement text whatever their
  // number (prepared once and reused): the ids go in as one JSON array.
  const insertSources = (summaryId: string, column: Draft["sources"]["column"], ids: ReadonlyArray<string>) =>
    sql.unsafe(
      `INSERT INTO summary_sources (summary_id, position, ${column})
        SELECT CAST(${dialect.param(1)} AS TEXT), j.key, j.value FROM ${dialect.jsonElements(dialect.param(2))} j`,
      [summaryId, JSON.stringify(ids)]
    )

  const ensureSession = (sessionId: string) =>
    Effect.flatMap(now, (createdAt) =>
      sql`INSERT INTO sessions (id, created_at) VALUES (${sessionId}, ${createdAt}) ON CONFLICT (id) DO NOTHING`)

  const appendTurns: Service["appendTurns"] = (sessionId, input) =>
    Effect.suspend(() => {
      const incoming = Array.from(input)
      if (incoming.length === 0) return Effect.succeed([])
      return Effect.gen(function*() {
        yield* ensureSession(sessionId)
        const last = yield* nextSeqRows(sql`SELECT coalesce(max(seq) + 1, 0) AS next
          FROM turns WHERE session_id = ${sessionId}`)
        const next = last[0]?.next ?? 0
        // The turns of the session with an incoming id (none in a new session), to
        // skip identical repeats and refuse conflicting ones. The ids go in as one
        // JSON array: one statement text whatever their number.
        const ids = incoming.flatMap((t) => (t.id === undefined ? [] : [t.id]))
        const existing = next === 0 || ids.length === 0
          ? []
          : yield* sameIdRows(sql.unsafe(
            `SELECT t.id, t.role, t.content FROM turns t JOIN ${dialect.jsonElements(dialect.param(1))} j
              ON t.id = j.value WHERE t.session_id = ${dialect.param(2)}`,
            [JSON.stringify(ids), sessionId]
          ))
        const known = new Map<string, { readonly role: string; readonly content: string }>(
          existing.map((row) => [row.id, row])
        )
        const added: Array<StoredTurn> = []
        for (const turn of incoming) {
          const id = turn.id ?? randomUUID()
          const prior = known.get(id)
          if (prior !== undefined) {
            if (prior.role === turn.role && prior.content === turn.content) continue
            return yield* new TurnConflictError({
              sessionId,
              turnId: id,
              field: prior.role === turn.role ? "content" : "role"
            })
          }
          known.set(id, turn)
          added.push(new StoredTurn({ ...turn, id, sessionId, seq: next + added.length }, true))
        }
        const rows = yield* Effect.try({
          try: () =>
            added.map((t) => [
              t.id,
              sessionId,
              t.seq,
              t.role,
              t.content,
              t.timestamp ?? null,
              t.metadata === undefined ? null : JSON.stringify(t.metadata)
            ]),
          catch: (cause) => invalidInput("appendTurns", "metadata is not JSON", cause)
        })
        yield* insertRows("turns", ["id", "session_id", "seq", "role", "content", "timestamp", "metadata"], rows)
        if (added.length > 0) {
          // Queues the session for the workers (or moves its stamp), with its turns.
          yield* sql`INSERT INTO session_work (session_id, stamp, claims) VALUES (${sessionId}, 1, 0)
            ON CONFLICT (session_id) DO UPDATE SET stamp = session_work.stamp + 1`
        }
        return added
      }).pipe(transaction)
    }).pipe(
      Effect.mapError((failure) => (failure._tag === "TurnConflictError" ? failure : error("appendTurns")(failure)))
    )

  const withTransaction: Service["withTransaction"] = (self) =>
    transaction(self).pipe(
      Effect.catchIf(isSqlError, (failure) => Effect.fail(error("withTransaction")(failure)))
    )

  const turns: Service["turns"] = (sessionId, range = {}) =>
    selectTurns(
      sql`SELECT ${turnColumns} FROM turns t WHERE ${
        sql.and([
          sql`t.session_id = ${sessionId}`,
          ...(range.from === undefined ? [] : [sql`t.seq >= ${range.from}`]),
          ...(range.to === undefined ? [] : [sql`t.seq <= ${range.to}`])
        ])
      } ORDER BY t.seq`
    ).pipe(Effect.mapError(error("turns")))

  // Leaves cover a prefix of the session's turns, in order (insertLeaf enforces
  // it): the uncovered turns are those from the seq after the newest leaf on.
  const frontier = (sessionId: string) =>
    sql`(SELECT coalesce((SELECT last_seq + 1 FROM summaries WHERE session_id = ${sessionId} AND depth = 0
      ORDER BY first_seq DESC LIMIT 1), 0))`

  const uncoveredTurns: Service["uncoveredTurns"] = (sessionId) =>
    selectTurns(
      sql`SELECT ${turnColumns} FROM turns t
        WHERE t.session_id = ${sessionId} AND t.seq >= ${frontier(sessionId)} ORDER BY t.seq`
    ).pipe(Effect.mapError(error("uncoveredTurns")))

  const summary: Service["summary"] = (id) =>
    Effect.map(selectSummaries(sql.and([sql`s.id = ${id}`])), (rows) => Option.fromNullable(rows[0])).pipe(
      Effect.mapError(error("summary"))
    )

  const depthClause = (depth: number | undefined) => (depth === undefined ? [] : [sql`s.depth = ${depth}`])

  const summaries: Service["summaries"] = (sessionId, options = {}) =>
    selectSummaries(sql.and([sql`s.session_id = ${sessionId}`, ...depthClause(options.depth)])).pipe(
      Effect.mapError(error("summaries"))
    )

  const parentless: Service["parentless"] = (sessionId, options = {}) =>
    selectSummaries(
      sql.and([sql`s.session_id = ${sessionId}`, sql`s.parent_id IS NULL`, ...depthClause(options.depth)])
    ).pipe(Effect.mapError(error("parentless")))

  const children: Service["children"] = (summaryId) =>
    selectSummaries(sql.and([sql`s.parent_id = ${summaryId}`])).pipe(Effect.mapError(error("children")))

  const sourceTurns: Service["sourceTurns"] = (summaryId) =>
    selectTurns(
      sql`WITH RECURSIVE below(id) AS (
          SELECT ${summaryId}
          UNION ALL
          SELECT ss.child_summary_id FROM summary_sources ss JOIN below b ON ss.summary_id = b.id
          WHERE ss.child_summary_id IS NOT NULL
        )
        SELECT ${turnColumns} FROM turns t
        WHERE t.session_id = (SELECT session_id FROM summaries WHERE id = ${summaryId}) AND t.id IN (
          SELECT ss.turn_id FROM summary_sources ss JOIN below b ON ss.summary_id = b.id WHERE ss.turn_id IS NOT NULL
        )
        ORDER BY t.seq`
    ).pipe(Effect.mapError(error("sourceTurns")))

  const latestLeaf: Service["latestLeaf"] = (sessionId) =>
    Effect.map(
      summaryRows(
        sql`SELECT ${summaryColumns} FROM summaries s WHERE s.session_id = ${sessionId} AND s.depth = 0
          ORDER BY s.first_seq DESC LIMIT 1`
      ),
      (rows) => Option.map(Option.fromNullable(rows[0]), Rows.toRecord)
    ).pipe(Effect.mapError(error("latestLeaf")))

  const sessions: Service["sessions"] = Effect.map(
    sessionRows(sql`SELECT id, created_at,
        (SELECT CAST(count(*) AS INTEGER) FROM turns t WHERE t.session_id = sessions.id) AS turns,
        (SELECT CAST(count(*) AS INTEGER) FROM summaries s WHERE s.session_id = sessions.id) AS summaries
      FROM sessions ORDER BY created_at, id`),
    (rows) =>
      rows.map((row): SessionInfo => ({
        id: row.id,
        createdAt: row.created_at,
        turnCount: row.turns,
        summaryCount: row.summaries
      }))
  ).pipe(Effect.mapError(error("sessions")))

  const conflict = (operation: string, reason: string) => Effect.fail(new StoreError({ operation, reason }))

  // The one writer of summaries: checks the sources (`draft`), then inserts the
  // row, its source links and, for a condensed summary, its children's
  // `parent_id`, all in one transaction.
  const insertSummary = (operation: string, draft: Effect.Effect<Draft, StoreError | SqlError | ParseError>) =>
    Effect.gen(function*() {
      const { row: partial, sources } = yield* draft
      const row: Rows.SummaryRow = { ...partial, id: randomUUID(), created_at: yield* now }
      yield* sql`INSERT INTO summaries ${sql.insert(row)}`
      yield* insertSources(row.id, sources.column, sources.ids)
      const condensed = sources.column === "child_summary_id"
      if (condensed) yield* sql`UPDATE summaries SET parent_id = ${row.id} WHERE ${sql.in("id", sources.ids)}`
      return Rows.toRecord({
        ...row,
        turn_ids: condensed ? [] : sources.ids,
        child_ids: condensed ? sources.ids : []
      })
    }).pipe(transaction, Effect.mapError(storeError(operation)))

  const insertLeaf: Service["insertLeaf"] = (leaf) =>
    insertSummary(
      "insertLeaf",
      Effect.gen(function*() {
        if (leaf.turnIds.length === 0) return yield* conflict("insertLeaf", "a leaf needs at least one turn")
        const found = yield* frontierRows(sql`SELECT t.id, t.seq, t.timestamp FROM turns t
          WHERE t.session_id = ${leaf.sessionId} AND t.seq >= ${frontier(leaf.sessionId)}
          ORDER BY t.seq LIMIT ${leaf.turnIds.length}`)
        if (found.length !== leaf.turnIds.length || found.some((row, i) => row.id !== leaf.turnIds[i])) {
          return yield* conflict(
            "insertLeaf",
            `the turns must be the next ${leaf.turnIds.length} uncovered turns of session ${leaf.sessionId}, in order`
          )
        }
        const times = span(found.map((row) => ({ start: row.timestamp, end: row.timestamp })))
        return {
          row: {
            session_id: leaf.sessionId,
            depth: 0,
            content: leaf.content,
            tier: leaf.tier,
            token_estimate: leaf.tokenEstimate,
            parent_id: null,
            time_range_start: times.start ?? null,
            time_range_end: times.end ?? null,
            descendant_count: 0,
            first_seq: found[0]!.seq,
            last_seq: found[found.length - 1]!.seq
          },
          sources: { column: "turn_id", ids: leaf.turnIds }
        } satisfies Draft
      })
    )

  const insertCondensed: Service["insertCondensed"] = (node) =>
    insertSummary(
      "insertCondensed",
      Effect.gen(function*() {
        if (node.childIds.length === 0) return yield* conflict("insertCondensed", "a summary needs at least one child")
        if (new Set(node.childIds).size !== node.childIds.length) {
          return yield* conflict("insertCondensed", "a child appears twice")
        }
        const rows = yield* childRows(sql`SELECT id, depth, parent_id, time_range_start, time_range_end, descendant_count,
          first_seq, last_seq FROM summaries WHERE session_id = ${node.sessionId} AND ${sql.in("id", node.childIds)}`)
        if (rows.length !== node.childIds.length) {
          return yield* conflict("insertCondensed", `unknown child in session ${node.sessionId}`)
        }
        if (rows.some((row) => row.parent_id !== null)) {
          return yield* conflict("insertCondensed", "a child already has a parent")
        }
        const depth = rows[0]!.depth
        if (rows.some((row) => row.depth !== depth)) {
          return yield* conflict("insertCondensed", "children of different depths")
        }
        const times = span(rows.map((row) => ({ start: row.time_range_start, end: row.time_range_end })))
        return {
          row: {
            session_id: node.sessionId,
            depth: depth + 1,
            content: node.content,
            tier: node.tier,
            token_estimate: node.tokenEstimate,
            parent_id: null,
            time_range_start: times.start ?? null,
            time_range_end: times.end ?? null,
            descendant_count: rows.reduce((n, row) => n + 1 + row.descendant_count, 0),
            first_seq: Math.min(...rows.map((row) => row.first_seq)),
            last_seq: Math.max(...rows.map((row) => row.last_seq))
          },
          sources: { column: "child_summary_id", ids: node.childIds }
        } satisfies Draft
      })
    )

  const followedFile: Service["followedFile"] = (path) =>
    Effect.map(
      followedRows(sql`SELECT path, session_id, format, byte_offset, line_count, head_hash
        FROM followed_files WHERE path = ${path}`),
      (rows) =>
        Option.map(Option.fromNullable(rows[0]), (row): FollowedFile => ({
          path: row.path,
          sessionId: row.session_id,
          format: row.format,
          byteOffset: row.byte_offset,
          lineCount: row.line_count,
          headHash: row.head_hash
        }))
    ).pipe(Effect.mapError(error("followedFile")))

  const saveFollowedFile: Service["saveFollowedFile"] = (file) =>
    Effect.flatMap(
      now,
      (updatedAt) =>
        sql`INSERT INTO followed_files (path, session_id, format, byte_offset, line_count, head_hash, updated_at)
          VALUES (${file.path}, ${file.sessionId}, ${file.format}, ${file.byteOffset}, ${file.lineCount},
            ${file.headHash}, ${updatedAt})
          ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, format = excluded.format,
            byte_offset = excluded.byte_offset, line_count = excluded.line_count, head_hash = excluded.head_hash,
            updated_at = excluded.updated_at`
    ).pipe(Effect.asVoid, Effect.mapError(error("saveFollowedFile")))

  const sessionState: Service["sessionState"] = (sessionId) =>
    Effect.map(
      sessionStateRows(sql`SELECT session_id, last_seq, state FROM session_state WHERE session_id = ${sessionId}`),
      (rows) =>
        Option.map(Option.fromNullable(rows[0]), (row): StoredSessionState => ({
          sessionId: row.session_id,
          state: row.state,
          lastSeq: row.last_seq
        }))
    ).pipe(Effect.mapError(error("sessionState")))

  const saveSessionState: Service["saveSessionState"] = (saved) =>
    Effect.flatMap(
      now,
      (updatedAt) =>
        sql`INSERT INTO session_state (session_id, last_seq, state, updated_at)
          VALUES (${saved.sessionId}, ${saved.lastSeq}, ${saved.state}, ${updatedAt})
          ON CONFLICT (session_id) DO UPDATE SET last_seq = excluded.last_seq, state = excluded.state,
            updated_at = excluded.updated_at
          WHERE session_state.last_seq <= excluded.last_seq`
    ).pipe(Effect.asVoid, Effect.mapError(error("saveSessionState")))

  const rewriteSummary: Service["rewriteSummary"] = (id, text) =>
    Effect.gen(function*() {
      yield* sql`UPDATE summaries SET content = ${text.content}, tier = ${text.tier},
        token_estimate = ${text.tokenEstimate} WHERE id = ${id}`
      const found = yield* summary(id)
      return yield* Option.match(found, {
        onNone: () => conflict("rewriteSummary", `no summary ${id}`),
        onSome: Effect.succeed
      })
    }).pipe(transaction, Effect.mapError(error("rewriteSummary")))

  // The first subquery picks a row of the least claimed (skipping those a
  // concurrent claim has locked); its `claims <= min` is checked again on a row
  // a concurrent claim updated meanwhile (PostgreSQL re-reads a row it locks
  // after waiting), so two claims at the same moment never take the same row
  // while an unclaimed one is left. Only when every least-claimed row is taken
  // does the second subquery take the next in order. The update moves the row back.
  const skipLocked = sql.literal(dialect.skipLocked)
  const claimWork: Service["claimWork"] = Effect.map(
    claimRows(sql`UPDATE session_work SET claims = claims + 1
      WHERE session_id = COALESCE(
        (SELECT session_id FROM session_work WHERE claims <= (SELECT min(claims) FROM session_work)
          ORDER BY session_id LIMIT 1 ${skipLocked}),
        (SELECT session_id FROM session_work ORDER BY claims, session_id LIMIT 1 ${skipLocked}))
      RETURNING session_id, stamp`),
    (rows) => Option.map(Option.fromNullable(rows[0]), (row) => ({ sessionId: row.session_id, stamp: row.stamp }))
  ).pipe(Effect.mapError(error("claimWork")))

  const settleWork: Service["settleWork"] = (claim) =>
    Effect.map(
      sql`DELETE FROM session_work WHERE session_id = ${claim.sessionId} AND stamp = ${claim.stamp}
        RETURNING session_id`,
      (rows) => rows.length > 0
    ).pipe(Effect.mapError(error("settleWork")))

  return {
    withTransaction,
    appendTurns,
    turns,
    uncoveredTurns,
    summary,
    summaries,
    parentless,
    children,
    sourceTurns,
    latestLeaf,
    sessions,
    insertLeaf,
    insertCondensed,
    rewriteSummary,
    followedFile,
    saveFollowedFile,
    claimWork,
    settleWork,
    sessionState,
    saveSessionState
  }
}
