/**
 * Sessions, turns and the summary DAG, stored in SQLite.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { ConversationTurn, type Summary, SummaryRecord } from "@precis/core"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { span } from "./internal/plan.js"
import { migrate } from "./internal/schema.js"

/**
 * A turn as stored: its `id` (the source id, or a generated one), its session
 * and its `seq` (0-based position in the session).
 *
 * @since 0.1.0
 */
export class StoredTurn extends Schema.Class<StoredTurn>("@precis/compaction/StoredTurn")({
  ...ConversationTurn.ConversationTurn.fields,
  id: Schema.String,
  sessionId: Schema.String,
  seq: Schema.Int
}) {}

/**
 * A session and its sizes.
 *
 * @since 0.1.0
 */
export interface SessionInfo {
  readonly id: string
  readonly createdAt: string
  readonly turnCount: number
  readonly summaryCount: number
}

/**
 * An inclusive range of `seq`; a missing end is open.
 *
 * @since 0.1.0
 */
export interface SeqRange {
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/**
 * A leaf summary to insert: its text and the ids of the (uncovered) turns it summarizes.
 *
 * @since 0.1.0
 */
export interface NewLeaf {
  readonly sessionId: string
  readonly content: string
  readonly tier: Summary.Tier
  readonly tokenEstimate: number
  readonly turnIds: ReadonlyArray<string>
}

/**
 * A condensed summary to insert: its text and the ids of its (parentless,
 * same-depth) children, in order.
 *
 * @since 0.1.0
 */
export interface NewCondensed {
  readonly sessionId: string
  readonly content: string
  readonly tier: Summary.Tier
  readonly tokenEstimate: number
  readonly childIds: ReadonlyArray<string>
}

/**
 * A store operation failed; `cause` is the underlying `SqlError` when there is one.
 *
 * @since 0.1.0
 */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly reason: string
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  override get message(): string {
    return `MemoryStore.${this.operation}: ${this.reason}`
  }
}

/**
 * @since 0.1.0
 */
export interface Service {
  /**
   * Appends turns to a session (created on first use), in order. Idempotent: a
   * turn whose `id` already exists in the session is skipped (as is a repeated
   * id within `turns`). Turns without an `id` get a generated one. Returns the
   * turns actually added, with their ids and seqs. One transaction.
   */
  readonly appendTurns: (
    sessionId: string,
    turns: Iterable<ConversationTurn.ConversationTurn>
  ) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** A session's turns in seq order, optionally within a seq range. */
  readonly turns: (sessionId: string, range?: SeqRange) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** The turns no leaf summary covers yet, in seq order. */
  readonly uncoveredTurns: (sessionId: string) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** One summary by id. */
  readonly summary: (id: string) => Effect.Effect<Option.Option<SummaryRecord.SummaryRecord>, StoreError>
  /** A session's summaries in conversation order, all or those of one depth. */
  readonly summaries: (
    sessionId: string,
    options?: { readonly depth?: number | undefined }
  ) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** The summaries without a parent in conversation order, all or those of one depth. */
  readonly parentless: (
    sessionId: string,
    options?: { readonly depth?: number | undefined }
  ) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** The children of a condensed summary, in order (none for a leaf). */
  readonly children: (summaryId: string) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** Drill-down: the raw turns below a summary (of any depth), in seq order. */
  readonly sourceTurns: (summaryId: string) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** The leaf covering the newest turns, if any. */
  readonly latestLeaf: (sessionId: string) => Effect.Effect<Option.Option<SummaryRecord.SummaryRecord>, StoreError>
  /** Every session, oldest first. */
  readonly sessions: Effect.Effect<ReadonlyArray<SessionInfo>, StoreError>
  /**
   * Inserts a leaf and its source links in one transaction. Leaves cover a
   * session's turns in order: `turnIds` must be the oldest uncovered turns, in
   * seq order; otherwise (a turn unknown, repeated, already covered or skipped)
   * it fails and writes nothing.
   */
  readonly insertLeaf: (leaf: NewLeaf) => Effect.Effect<SummaryRecord.SummaryRecord, StoreError>
  /**
   * Inserts a condensed summary, its source links and its children's
   * `parent_id` in one transaction. Depth, time range, seq range and
   * `descendant_count` (the number of summaries below it) come from the
   * children. Fails (writing nothing) unless every child exists in the session,
   * has no parent and all share one depth.
   */
  readonly insertCondensed: (node: NewCondensed) => Effect.Effect<SummaryRecord.SummaryRecord, StoreError>
}

/**
 * The MemoryStore service tag.
 *
 * @since 0.1.0
 */
export class MemoryStore extends Context.Tag("@precis/compaction/MemoryStore")<MemoryStore, Service>() {}

interface TurnRow {
  readonly id: string
  readonly seq: number
  readonly role: string
  readonly content: string
  readonly timestamp: string | null
  readonly metadata: string | null
}

interface SummaryRow {
  readonly id: string
  readonly session_id: string
  readonly depth: number
  readonly content: string
  readonly tier: Summary.Tier
  readonly token_estimate: number
  readonly parent_id: string | null
  readonly time_range_start: string | null
  readonly time_range_end: string | null
  readonly descendant_count: number
  readonly created_at: string
  readonly turn_ids: string
  readonly child_ids: string
}

// Rows per multi-row INSERT: bound parameters stay far below SQLite's limit.
const BATCH = 200

const batches = <A>(items: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH))
  return out
}

const toStoredTurn = (sessionId: string, row: TurnRow): StoredTurn =>
  new StoredTurn(
    {
      id: row.id,
      sessionId,
      seq: row.seq,
      role: row.role,
      content: row.content,
      ...(row.timestamp === null ? {} : { timestamp: row.timestamp }),
      ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as Record<string, unknown> })
    },
    true
  )

const toRecord = (row: SummaryRow): SummaryRecord.SummaryRecord => {
  const turnIds = JSON.parse(row.turn_ids) as Array<string>
  const childIds = JSON.parse(row.child_ids) as Array<string>
  return new SummaryRecord.SummaryRecord(
    {
      id: row.id,
      sessionId: row.session_id,
      depth: row.depth,
      content: row.content,
      tier: row.tier,
      tokenEstimate: row.token_estimate,
      descendantCount: row.descendant_count,
      createdAt: row.created_at,
      sourceTurnIds: turnIds,
      sourceSummaryIds: childIds,
      ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
      ...(row.time_range_start === null ? {} : { timeRangeStart: row.time_range_start }),
      ...(row.time_range_end === null ? {} : { timeRangeEnd: row.time_range_end })
    },
    true
  )
}

const describe = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null) {
    const inner = (cause as { readonly cause?: unknown }).cause
    if (inner instanceof Error) return inner.message
    if (cause instanceof Error) return cause.message
  }
  return String(cause)
}

const storeError = (operation: string) => (error: unknown): StoreError =>
  error instanceof StoreError ? error : new StoreError({ operation, reason: describe(error), cause: error })

/**
 * Builds the store over the `SqlClient` in context (SQLite dialect), running
 * the migrations first.
 *
 * @since 0.1.0
 */
export const make: Effect.Effect<Service, StoreError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`PRAGMA foreign_keys = ON`
  yield* sql`PRAGMA busy_timeout = 5000`
  // With WAL, NORMAL keeps the database consistent on a crash (it may lose the
  // last commits on power loss) and avoids an fsync per transaction.
  yield* sql`PRAGMA synchronous = NORMAL`
  // The migrator turns a failed migration into a defect: report it as a StoreError.
  yield* Effect.catchAllDefect(migrate, (defect) => Effect.fail(storeError("migrate")(defect)))

  const now = Effect.map(DateTime.now, DateTime.formatIso)

  const summaryColumns = sql`s.id, s.session_id, s.depth, s.content, s.tier, s.token_estimate, s.parent_id,
    s.time_range_start, s.time_range_end, s.descendant_count, s.created_at,
    (SELECT json_group_array(ss.turn_id ORDER BY ss.position) FROM summary_sources ss
      WHERE ss.summary_id = s.id AND ss.turn_id IS NOT NULL) AS turn_ids,
    (SELECT json_group_array(ss.child_summary_id ORDER BY ss.position) FROM summary_sources ss
      WHERE ss.summary_id = s.id AND ss.child_summary_id IS NOT NULL) AS child_ids`

  const selectSummaries = (where: Fragment) =>
    Effect.map(
      sql<SummaryRow>`SELECT ${summaryColumns} FROM summaries s WHERE ${where} ORDER BY s.first_seq, s.depth`,
      (rows) => rows.map(toRecord)
    )

  const turnColumns = sql`t.id, t.seq, t.role, t.content, t.timestamp, t.metadata`

  // Multi-row inserts with a fixed SQL text per batch size: the statement is
  // prepared once and reused, and no per-row template is compiled.
  const insertRows = (table: string, columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
    Effect.forEach(
      batches(rows),
      (batch) => {
        const tuple = `(${columns.map(() => "?").join(", ")})`
        const text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${Array(batch.length).fill(tuple).join(", ")}`
        return sql.unsafe(text, batch.flat())
      },
      { discard: true }
    )

  // A summary's sources in order, with one fixed statement text whatever their
  // number (prepared once and reused): the ids go in as one JSON array.
  const insertSources = (summaryId: string, column: "turn_id" | "child_summary_id", ids: ReadonlyArray<string>) =>
    sql.unsafe(
      `INSERT INTO summary_sources (summary_id, position, ${column}) SELECT ?, key, value FROM json_each(?)`,
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
        const last = yield* sql<{ readonly next: number }>`SELECT coalesce(max(seq) + 1, 0) AS next
          FROM turns WHERE session_id = ${sessionId}`
        const next = last[0]?.next ?? 0
        // Ids already in the session: none in a new one; a lookup of the incoming
        // ids for a small append (an agent's turn); all of them for an import.
        const ids = incoming.flatMap((t) => (t.id === undefined ? [] : [t.id]))
        const existing = next === 0 || ids.length === 0
          ? []
          : ids.length <= BATCH
          ? yield* sql<{ readonly id: string }>`SELECT id FROM turns WHERE session_id = ${sessionId} AND ${
            sql.in("id", ids)
          }`
          : yield* sql<{ readonly id: string }>`SELECT id FROM turns WHERE session_id = ${sessionId}`
        const seen = new Set(existing.map((row) => row.id))
        const added: Array<StoredTurn> = []
        for (const turn of incoming) {
          const id = turn.id ?? randomUUID()
          if (seen.has(id)) continue
          seen.add(id)
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
          catch: (cause) =>
            new StoreError({ operation: "appendTurns", reason: `metadata is not JSON: ${describe(cause)}`, cause })
        })
        yield* insertRows("turns", ["id", "session_id", "seq", "role", "content", "timestamp", "metadata"], rows)
        return added
      }).pipe(sql.withTransaction)
    }).pipe(Effect.mapError(storeError("appendTurns")))

  const turns: Service["turns"] = (sessionId, range = {}) =>
    Effect.map(
      sql<TurnRow>`SELECT ${turnColumns} FROM turns t WHERE ${
        sql.and([
          sql`t.session_id = ${sessionId}`,
          ...(range.from === undefined ? [] : [sql`t.seq >= ${range.from}`]),
          ...(range.to === undefined ? [] : [sql`t.seq <= ${range.to}`])
        ])
      } ORDER BY t.seq`,
      (rows) => rows.map((row) => toStoredTurn(sessionId, row))
    ).pipe(Effect.mapError(storeError("turns")))

  // Leaves cover a prefix of the session's turns, in order (insertLeaf enforces
  // it): the uncovered turns are those from the seq after the newest leaf on.
  const frontier = (sessionId: string) =>
    sql`(SELECT coalesce((SELECT last_seq + 1 FROM summaries WHERE session_id = ${sessionId} AND depth = 0
      ORDER BY first_seq DESC LIMIT 1), 0))`

  const uncoveredTurns: Service["uncoveredTurns"] = (sessionId) =>
    Effect.map(
      sql<TurnRow>`SELECT ${turnColumns} FROM turns t
        WHERE t.session_id = ${sessionId} AND t.seq >= ${frontier(sessionId)} ORDER BY t.seq`,
      (rows) => rows.map((row) => toStoredTurn(sessionId, row))
    ).pipe(Effect.mapError(storeError("uncoveredTurns")))

  const summary: Service["summary"] = (id) =>
    Effect.map(selectSummaries(sql.and([sql`s.id = ${id}`])), (rows) => Option.fromNullable(rows[0])).pipe(
      Effect.mapError(storeError("summary"))
    )

  const depthClause = (depth: number | undefined) => (depth === undefined ? [] : [sql`s.depth = ${depth}`])

  const summaries: Service["summaries"] = (sessionId, options = {}) =>
    selectSummaries(sql.and([sql`s.session_id = ${sessionId}`, ...depthClause(options.depth)])).pipe(
      Effect.mapError(storeError("summaries"))
    )

  const parentless: Service["parentless"] = (sessionId, options = {}) =>
    selectSummaries(
      sql.and([sql`s.session_id = ${sessionId}`, sql`s.parent_id IS NULL`, ...depthClause(options.depth)])
    ).pipe(Effect.mapError(storeError("parentless")))

  const children: Service["children"] = (summaryId) =>
    selectSummaries(sql.and([sql`s.parent_id = ${summaryId}`])).pipe(Effect.mapError(storeError("children")))

  const sourceTurns: Service["sourceTurns"] = (summaryId) =>
    Effect.gen(function*() {
      const owner = yield* sql<{ readonly session_id: string }>`SELECT session_id FROM summaries
        WHERE id = ${summaryId}`
      if (owner.length === 0) return []
      const sessionId = owner[0]!.session_id
      const rows = yield* sql<TurnRow>`WITH RECURSIVE below(id) AS (
          SELECT ${summaryId}
          UNION ALL
          SELECT ss.child_summary_id FROM summary_sources ss JOIN below b ON ss.summary_id = b.id
          WHERE ss.child_summary_id IS NOT NULL
        )
        SELECT ${turnColumns} FROM turns t
        WHERE t.session_id = ${sessionId} AND t.id IN (
          SELECT ss.turn_id FROM summary_sources ss JOIN below b ON ss.summary_id = b.id WHERE ss.turn_id IS NOT NULL
        )
        ORDER BY t.seq`
      return rows.map((row) => toStoredTurn(sessionId, row))
    }).pipe(Effect.mapError(storeError("sourceTurns")))

  const latestLeaf: Service["latestLeaf"] = (sessionId) =>
    Effect.map(
      sql<SummaryRow>`SELECT ${summaryColumns} FROM summaries s WHERE s.session_id = ${sessionId} AND s.depth = 0
        ORDER BY s.first_seq DESC LIMIT 1`,
      (rows) => Option.map(Option.fromNullable(rows[0]), toRecord)
    ).pipe(Effect.mapError(storeError("latestLeaf")))

  const sessions: Service["sessions"] = Effect.map(
    sql<{ readonly id: string; readonly created_at: string; readonly turns: number; readonly summaries: number }>`
      SELECT id, created_at,
        (SELECT count(*) FROM turns t WHERE t.session_id = sessions.id) AS turns,
        (SELECT count(*) FROM summaries s WHERE s.session_id = sessions.id) AS summaries
      FROM sessions ORDER BY created_at, id`,
    (rows) =>
      rows.map((row): SessionInfo => ({
        id: row.id,
        createdAt: row.created_at,
        turnCount: row.turns,
        summaryCount: row.summaries
      }))
  ).pipe(Effect.mapError(storeError("sessions")))

  const conflict = (operation: string, reason: string) => Effect.fail(new StoreError({ operation, reason }))

  const insertLeaf: Service["insertLeaf"] = (leaf) =>
    Effect.gen(function*() {
      if (leaf.turnIds.length === 0) return yield* conflict("insertLeaf", "a leaf needs at least one turn")
      const found = yield* sql<{ readonly id: string; readonly seq: number; readonly timestamp: string | null }>`
        SELECT t.id, t.seq, t.timestamp FROM turns t
        WHERE t.session_id = ${leaf.sessionId} AND t.seq >= ${frontier(leaf.sessionId)}
        ORDER BY t.seq LIMIT ${leaf.turnIds.length}`
      if (found.length !== leaf.turnIds.length || found.some((row, i) => row.id !== leaf.turnIds[i])) {
        return yield* conflict(
          "insertLeaf",
          `the turns must be the next ${leaf.turnIds.length} uncovered turns of session ${leaf.sessionId}, in order`
        )
      }
      const id = randomUUID()
      const createdAt = yield* now
      const times = span(found.map((row) => ({ start: row.timestamp, end: row.timestamp })))
      yield* sql`INSERT INTO summaries ${
        sql.insert({
          id,
          session_id: leaf.sessionId,
          depth: 0,
          content: leaf.content,
          tier: leaf.tier,
          token_estimate: leaf.tokenEstimate,
          parent_id: null,
          time_range_start: times.start ?? null,
          time_range_end: times.end ?? null,
          descendant_count: 0,
          created_at: createdAt,
          first_seq: found[0]!.seq,
          last_seq: found[found.length - 1]!.seq
        })
      }`
      yield* insertSources(id, "turn_id", leaf.turnIds)
      return new SummaryRecord.SummaryRecord(
        {
          id,
          sessionId: leaf.sessionId,
          depth: 0,
          content: leaf.content,
          tier: leaf.tier,
          tokenEstimate: leaf.tokenEstimate,
          descendantCount: 0,
          createdAt,
          sourceTurnIds: leaf.turnIds,
          sourceSummaryIds: [],
          ...(times.start === undefined ? {} : { timeRangeStart: times.start }),
          ...(times.end === undefined ? {} : { timeRangeEnd: times.end })
        },
        true
      )
    }).pipe(sql.withTransaction, Effect.mapError(storeError("insertLeaf")))

  const insertCondensed: Service["insertCondensed"] = (node) =>
    Effect.gen(function*() {
      if (node.childIds.length === 0) return yield* conflict("insertCondensed", "a summary needs at least one child")
      if (new Set(node.childIds).size !== node.childIds.length) {
        return yield* conflict("insertCondensed", "a child appears twice")
      }
      const rows = yield* sql<{
        readonly id: string
        readonly depth: number
        readonly parent_id: string | null
        readonly time_range_start: string | null
        readonly time_range_end: string | null
        readonly descendant_count: number
        readonly first_seq: number
        readonly last_seq: number
      }>`SELECT id, depth, parent_id, time_range_start, time_range_end, descendant_count, first_seq, last_seq
        FROM summaries WHERE session_id = ${node.sessionId} AND ${sql.in("id", node.childIds)}`
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
      const id = randomUUID()
      const createdAt = yield* now
      const times = span(rows.map((row) => ({ start: row.time_range_start, end: row.time_range_end })))
      const descendantCount = rows.reduce((n, row) => n + 1 + row.descendant_count, 0)
      yield* sql`INSERT INTO summaries ${
        sql.insert({
          id,
          session_id: node.sessionId,
          depth: depth + 1,
          content: node.content,
          tier: node.tier,
          token_estimate: node.tokenEstimate,
          parent_id: null,
          time_range_start: times.start ?? null,
          time_range_end: times.end ?? null,
          descendant_count: descendantCount,
          created_at: createdAt,
          first_seq: Math.min(...rows.map((row) => row.first_seq)),
          last_seq: Math.max(...rows.map((row) => row.last_seq))
        })
      }`
      yield* insertSources(id, "child_summary_id", node.childIds)
      yield* sql`UPDATE summaries SET parent_id = ${id} WHERE ${sql.in("id", node.childIds)}`
      return new SummaryRecord.SummaryRecord(
        {
          id,
          sessionId: node.sessionId,
          depth: depth + 1,
          content: node.content,
          tier: node.tier,
          tokenEstimate: node.tokenEstimate,
          descendantCount,
          createdAt,
          sourceTurnIds: [],
          sourceSummaryIds: node.childIds,
          ...(times.start === undefined ? {} : { timeRangeStart: times.start }),
          ...(times.end === undefined ? {} : { timeRangeEnd: times.end })
        },
        true
      )
    }).pipe(sql.withTransaction, Effect.mapError(storeError("insertCondensed")))

  return MemoryStore.of({
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
    insertCondensed
  })
}).pipe(Effect.mapError(storeError("open")))

/**
 * The store over an existing `SqlClient` (SQLite dialect).
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<MemoryStore, StoreError, SqlClient.SqlClient> = Layer.effect(MemoryStore, make)

/**
 * @since 0.1.0
 */
export interface SqliteOptions {
  /** A database file (created when missing; WAL mode) or `:memory:`. */
  readonly filename: string
}

// Bytes per database page of a new file (SQLite's default is 4 KiB).
const PAGE_SIZE = 16384

/**
 * The SQLite store: opens (or creates) `filename` and migrates its schema.
 * A new file gets 16 KiB pages and WAL mode.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@precis/compaction"
 * const StoreLive = MemoryStore.layerSqlite({ filename: "precis.db" })
 * ```
 * @since 0.1.0
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<MemoryStore, StoreError> =>
  layer.pipe(
    Layer.provide(
      // The page size only takes effect before the file is initialized, which
      // switching to WAL does: so WAL is turned on here, after it, rather than by
      // the client. 16 KiB pages hold most turns without overflow pages, which
      // makes bulk imports several times cheaper; an existing file keeps its own.
      SqliteClient.layer({ filename: options.filename, disableWAL: true }).pipe(
        Layer.tap((context) => {
          const sql = Context.get(context, SqlClient.SqlClient)
          return Effect.zipRight(sql.unsafe(`PRAGMA page_size = ${PAGE_SIZE}`), sql`PRAGMA journal_mode = WAL`)
        }),
        // better-sqlite3 throws (a defect) when the file cannot be opened.
        Layer.catchAllCause((cause) => Layer.fail(storeError("open")(Cause.squash(cause))))
      )
    )
  )

/**
 * {@link SqliteOptions} from `Config`: `PRECIS_DB` (default `precis.db`).
 *
 * @since 0.1.0
 */
export const config: Config.Config<SqliteOptions> = Config.all({
  filename: Config.string("PRECIS_DB").pipe(Config.withDefault("precis.db"))
})

/**
 * The SQLite store with its options read from {@link config} (or the given `Config`).
 *
 * @since 0.1.0
 */
export const layerConfig = (
  options: Config.Config<SqliteOptions> = config
): Layer.Layer<MemoryStore, StoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(options, layerSqlite))
