/**
 * The SQLite driver of the {@link MemoryStore} port, over `@effect/sql`: the
 * schema is created by migrations, rows are decoded with Schemas, and every
 * write is one IMMEDIATE transaction (so concurrent writers from other
 * processes wait under the busy timeout instead of failing). Session leases
 * live in a `leases` table. A writing store refuses a file that is not a
 * precis store or that a newer precis wrote; a read-only one
 * (`readonly: true`) never writes, migrates or creates anything.
 *
 * @since 0.1.0
 */
import { SqlError } from "@effect/sql/SqlError"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { existsSync } from "node:fs"
import { span } from "./internal/plan.js"
import * as Lease from "./internal/lease.js"
import * as Rows from "./internal/rows.js"
import { migrate, requireUsable } from "./internal/schema.js"
import * as Search from "./internal/search.js"
import { invalidInput, storeError } from "./internal/storeError.js"
import { immediate } from "./internal/transaction.js"
import { MemoryStore, type Service, type SessionInfo, StoreError, StoredTurn, TurnConflictError } from "./MemoryStore.js"

// Rows per multi-row INSERT: bound parameters stay far below SQLite's limit.
const BATCH = 200

const batches = <A>(items: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH))
  return out
}

// Runs a query and decodes its rows with `schema`, as `SqlSchema.findAll` does.
const isSqlError = (u: unknown): u is SqlError => u instanceof SqlError

const decodeAll = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) => Effect.flatMap(query, decode)
}

const turnRows = decodeAll(Rows.TurnRow)
const summaryRows = decodeAll(Rows.SummaryWithSources)
const sessionRows = decodeAll(Rows.SessionRow)
const frontierRows = decodeAll(Rows.TurnRow.pick("id", "seq", "timestamp"))
const childRows = decodeAll(
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
const nextSeqRows = decodeAll(Schema.Struct({ next: Schema.Int }))

// A summary about to be written, once its sources are checked: its row but for
// the id and creation time, and its sources in order (turns for a leaf,
// children for a condensed summary).
interface Draft {
  readonly row: Omit<Rows.SummaryRow, "id" | "created_at">
  readonly sources: { readonly column: "turn_id" | "child_summary_id"; readonly ids: ReadonlyArray<string> }
}

/**
 * Options of {@link makeWith}.
 *
 * @since 0.1.0
 */
export interface MakeOptions {
  /** The database file, named in every `StoreError` of this store. */
  readonly filename?: string | undefined
  /**
   * Read only: check that the database is a precis store this version can
   * read, never migrate, and fail on any write. The connection itself must
   * refuse writes too (as {@link layer} sets it up).
   */
  readonly readonly?: boolean | undefined
  /** How long a session lease lives unless its holder renews it (default 30 seconds). */
  readonly leaseTtl?: Duration.DurationInput | undefined
  /** How often a waiter for a session lease tries again (default 100 millis). */
  readonly leaseRetry?: Duration.DurationInput | undefined
}

/**
 * Builds the store over the `SqlClient` in context (SQLite dialect). A writing
 * store first checks that the database is empty or a precis store no newer
 * than this version, then runs the missing migrations, both in one IMMEDIATE
 * transaction (two processes opening a new file do not race); a read-only
 * store only checks.
 *
 * @since 0.1.0
 */
export const makeWith = (
  options: MakeOptions = {}
): Effect.Effect<Service, StoreError, SqlClient.SqlClient> => {
  const error = (operation: string) => storeError(operation, options.filename)
  return Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const transaction = immediate(sql)
    yield* sql`PRAGMA foreign_keys = ON`
    yield* sql`PRAGMA busy_timeout = 5000`
    // With WAL, NORMAL keeps the database consistent on a crash (it may lose the
    // last commits on power loss) and avoids an fsync per transaction.
    yield* sql`PRAGMA synchronous = NORMAL`
    if (options.readonly === true) {
      yield* requireUsable("read")
    } else {
      yield* transaction(Effect.zipRight(
        requireUsable("write"),
        // The migrator turns a failed migration into a defect: report it as a StoreError.
        Effect.catchAllDefect(migrate, (defect) => Effect.fail(error("migrate")(defect)))
      ))
    }
    const withSessionLease = Lease.make(sql, transaction, {
      ttl: Duration.decode(options.leaseTtl ?? "30 seconds"),
      retry: Duration.decode(options.leaseRetry ?? "100 millis")
    }, error("withSessionLease"))

    const now = Effect.map(DateTime.now, DateTime.formatIso)

    const summaryColumns = sql`s.id, s.session_id, s.depth, s.content, s.tier, s.token_estimate, s.parent_id,
      s.time_range_start, s.time_range_end, s.descendant_count, s.created_at, s.first_seq, s.last_seq,
      (SELECT json_group_array(ss.turn_id ORDER BY ss.position) FROM summary_sources ss
        WHERE ss.summary_id = s.id AND ss.turn_id IS NOT NULL) AS turn_ids,
      (SELECT json_group_array(ss.child_summary_id ORDER BY ss.position) FROM summary_sources ss
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
          const tuple = `(${columns.map(() => "?").join(", ")})`
          const text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${Array(batch.length).fill(tuple).join(", ")}`
          return sql.unsafe(text, batch.flat())
        },
        { discard: true }
      )

    // A summary's sources in order, with one fixed statement text whatever their
    // number (prepared once and reused): the ids go in as one JSON array.
    const insertSources = (summaryId: string, column: Draft["sources"]["column"], ids: ReadonlyArray<string>) =>
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
              `SELECT t.id, t.role, t.content FROM turns t JOIN json_each(?) j ON t.id = j.value WHERE t.session_id = ?`,
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
          (SELECT count(*) FROM turns t WHERE t.session_id = sessions.id) AS turns,
          (SELECT count(*) FROM summaries s WHERE s.session_id = sessions.id) AS summaries
        FROM sessions ORDER BY created_at, id`),
      (rows) =>
        rows.map((row): SessionInfo => ({
          id: row.id,
          createdAt: row.created_at,
          turnCount: row.turns,
          summaryCount: row.summaries
        }))
    ).pipe(Effect.mapError(error("sessions")))

    const search = Search.make(sql, error("search"))

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

    return MemoryStore.of({
      withSessionLease,
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
      search,
      insertLeaf,
      insertCondensed,
      rewriteSummary
    })
  }).pipe(Effect.mapError(error("open")))
}

/**
 * Builds a writing store over the `SqlClient` in context with the default
 * {@link MakeOptions}.
 *
 * @since 0.1.0
 */
export const make: Effect.Effect<Service, StoreError, SqlClient.SqlClient> = makeWith()

/**
 * The store over a `SqlClient` the caller provides (SQLite dialect): for a
 * client shared with other code, or configured differently from {@link layer}.
 *
 * @since 0.1.0
 */
export const layerClient: Layer.Layer<MemoryStore, StoreError, SqlClient.SqlClient> = Layer.effect(MemoryStore, make)

/**
 * Options of {@link layer}.
 *
 * @since 0.1.0
 */
export interface SqliteOptions extends MakeOptions {
  /**
   * A database file (created when missing, unless read-only; WAL mode) or
   * `:memory:`. An empty name is refused: SQLite would open a temporary
   * database and throw it away.
   */
  readonly filename: string
  /**
   * Caps the database at this many pages (`PRAGMA max_page_count`): a write
   * past it fails with "database or disk is full", as on a full disk.
   */
  readonly maxPageCount?: number | undefined
}

// Bytes per database page of a new file (SQLite's default is 4 KiB).
const PAGE_SIZE = 16384

// What the connection needs before the store is built. Writing: refuse a
// foreign or newer file before anything touches it, then page size and WAL (the
// page size only takes effect before the file is initialized, which switching
// to WAL does, so WAL is turned on here rather than by the client; 16 KiB pages
// hold most turns without overflow pages, which makes bulk imports several
// times cheaper; an existing file keeps its own). Read-only: `query_only`.
// Why not better-sqlite3's `readonly` (SQLITE_OPEN_READONLY): on a WAL database
// such a connection creates the -wal and -shm files and, unable to write, can
// never remove them; a `query_only` connection refuses every write just the
// same, and as the last one to close it removes them like any reader.
const setUp = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (options.maxPageCount !== undefined) yield* sql.unsafe(`PRAGMA max_page_count = ${options.maxPageCount}`)
    if (options.readonly === true) return yield* sql`PRAGMA query_only = ON`
    yield* requireUsable("write")
    yield* sql.unsafe(`PRAGMA page_size = ${PAGE_SIZE}`)
    yield* sql`PRAGMA journal_mode = WAL`
  })

/**
 * The SQLite store: opens (or creates) `filename` and migrates its schema.
 * A new file gets 16 KiB pages and WAL mode. It fails with a `StoreError`
 * naming the file when the file is not a precis store (it has tables but no
 * precis migrations) or a newer precis wrote it. With `readonly: true` it
 * never writes (no migration, no WAL switch, no file created) and also
 * refuses an empty file.
 *
 * @example
 * ```ts
 * import { SqliteMemoryStore } from "@precis/compaction"
 * const StoreLive = SqliteMemoryStore.layer({ filename: "precis.db" }) // Layer<MemoryStore, StoreError>
 * const Reader = SqliteMemoryStore.layer({ filename: "precis.db", readonly: true })
 * ```
 * @since 0.1.0
 */
export const layer = (options: SqliteOptions): Layer.Layer<MemoryStore, StoreError> => {
  const error = storeError("open", options.filename)
  if (options.filename.trim().length === 0) {
    return Layer.fail(
      new StoreError({
        operation: "open",
        reason: "the database filename is empty (SQLite would use a temporary database and throw it away)"
      })
    )
  }
  // A read-write connection creates a missing file: a reader checks first.
  if (options.readonly === true && options.filename !== ":memory:" && !existsSync(options.filename)) {
    return Layer.fail(new StoreError({ operation: "open", reason: "no such file", filename: options.filename }))
  }
  return Layer.effect(MemoryStore, makeWith(options)).pipe(
    Layer.provide(
      SqliteClient.layer({ filename: options.filename, disableWAL: true }).pipe(
        Layer.tap((context) => Effect.provide(setUp(options), context)),
        // better-sqlite3 throws (a defect) when the file cannot be opened.
        Layer.catchAllCause((cause) => Layer.fail(error(Cause.squash(cause))))
      )
    )
  )
}

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
  Layer.unwrapEffect(Effect.map(options, layer))
