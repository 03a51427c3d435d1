/**
 * The store over `@effect/sql`'s `SqlClient`: the whole port with its queries
 * written once for SQLite and PostgreSQL, what the two spell differently
 * picked by a {@link Dialect}. The drivers (`@precis/store-sqlite`,
 * `@precis/store-pg`) open the connection, pick the dialect and call
 * {@link make}; the tables are created by migrations, and a writing store
 * refuses a database that is not a precis store or that a newer precis wrote.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AdvisoryLease from "./internal/advisoryLease.js"
import * as Dag from "./internal/dag.js"
import * as Dialects from "./internal/dialect.js"
import * as SqlFollowedFiles from "./internal/followedFiles.js"
import * as Lease from "./internal/lease.js"
import * as Migrations from "./internal/migrations.js"
import * as Search from "./internal/search.js"
import { immediate } from "./internal/transaction.js"
import * as Turns from "./internal/turns.js"
import * as Usable from "./internal/usable.js"
import * as Work from "./internal/workQueue.js"
import { FollowedFiles } from "./FollowedFiles.js"
import * as Store from "./Store.js"
import { StoreError } from "./StoreError.js"

/**
 * SQLite: every write is one IMMEDIATE transaction (so writers of other
 * processes wait under the busy timeout instead of failing), session leases
 * are rows of a `leases` table with an expiry, and turns are indexed for
 * search after they are written (before a search, or by `indexSearch`).
 *
 * @since 0.1.0
 */
export interface SqliteDialect {
  readonly _tag: "sqlite"
  /** How long a session lease lives unless its holder renews it (default 30 seconds). */
  readonly leaseTtl?: Duration.DurationInput | undefined
  /** How often a waiter for a session lease tries again (default 100 millis). */
  readonly leaseRetry?: Duration.DurationInput | undefined
}

/**
 * PostgreSQL: session leases are advisory locks (the server queues waiters and
 * drops a dead holder's lock with its connection), workers claim sessions with
 * `FOR UPDATE SKIP LOCKED`, and the search indexes follow every write.
 *
 * @since 0.1.0
 */
export interface PgDialect {
  readonly _tag: "pg"
  /** How often a lease holder checks that its connection (and so its lock) is alive (default 10 seconds). */
  readonly leaseCheck?: Duration.DurationInput | undefined
}

/**
 * The SQL dialect of the client, and its settings.
 *
 * @since 0.1.0
 */
export type Dialect = SqliteDialect | PgDialect

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
 */
export interface MakeOptions {
  /** The database file, named in every `StoreError` of this store. */
  readonly filename?: string | undefined
  /**
   * Read only: check that the database is a precis store this version can
   * read, never migrate, and (SQLite) never index. The connection itself
   * should refuse writes too (as `SqliteStore.layer` sets it up).
   */
  readonly readonly?: boolean | undefined
  /**
   * Whether a writing store may create the schema in an empty database
   * (default true). `false` refuses an empty database, as a reader does, but
   * still migrates an older schema: for writers that only work on what the
   * store already holds (compacting stored sessions), so that they never turn
   * a stray empty file into a store.
   */
  readonly create?: boolean | undefined
}

/**
 * How a store uses its database: `read` (a reader: the database must be a
 * precis store of this very schema), `write` (may create the schema and
 * migrate an older one) or `update` (migrates an older schema but creates
 * nothing).
 *
 * @since 0.1.0
 */
export type Mode = Usable.Mode

/**
 * The {@link Mode} of a store opened with `options`.
 *
 * @since 0.1.0
 */
export const modeOf = (options: MakeOptions): Mode =>
  options.readonly === true ? "read" : options.create === false ? "update" : "write"

/**
 * The newest schema version this code knows (the id of its last migration).
 *
 * @since 0.1.0
 */
export const schemaVersion: number = Migrations.knownVersion

/**
 * Fails with a `StoreError` when the database of the `SqlClient` in context
 * must not be used in `mode`: it has tables but is not a precis store, a newer
 * precis wrote it, (but to create it) it is empty, or (to read) an older
 * precis wrote it. Writes nothing: a driver checks with it before it changes
 * anything on a connection.
 *
 * @since 0.1.0
 */
export const requireUsable = (mode: Mode): Effect.Effect<void, StoreError, SqlClient.SqlClient> =>
  Effect.mapError(Usable.requireUsable(mode), (cause) => StoreError.fromCause(cause, "Store.open"))

// A constant advisory-lock key that serializes migrations across processes
// (in its own transaction, so it is released at commit).
const MIGRATION_LOCK = 0x70726563

// SQLite: check and migrate in one IMMEDIATE transaction (two processes
// opening a new file do not race).
const migrateSqlite = (transaction: Dialects.Dialect["transaction"], mode: Mode) =>
  transaction(Effect.zipRight(
    Usable.requireUsable(mode),
    // The migrator turns a failed migration into a defect: report it as a StoreError.
    Effect.catchAllDefect(Migrations.migrate, (defect) => Effect.fail(StoreError.fromCause(defect, "Store.migrate")))
  ))

// PostgreSQL: check the current schema and migrate in one transaction under an
// advisory lock (processes starting together do not race).
const migratePg = (sql: SqlClient.SqlClient, mode: Mode) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    yield* Usable.requireUsable(mode)
    // The migrator probes its table with a query that fails when the table is
    // missing, which would abort this transaction: create it first, as it would.
    yield* sql`CREATE TABLE IF NOT EXISTS ${sql(Migrations.MIGRATIONS_TABLE)} (
      migration_id integer primary key,
      created_at timestamp with time zone not null default now(),
      name text not null
    )`
    yield* Effect.catchAllDefect(Migrations.migrate, (defect) => Effect.fail(StoreError.fromCause(defect, "Store.migrate")))
  }))

/**
 * Builds the store over the `SqlClient` in context, in `dialect`. A writing
 * store first checks that the database is empty (unless `create: false`) or
 * a precis store no newer than this version, then runs the missing
 * migrations; a read-only store only checks (and refuses an older schema,
 * which it would misread). Every failure is a `StoreError` naming
 * `options.filename` when given.
 *
 * @since 0.1.0
 */
export const make = (
  dialect: Dialect,
  options: MakeOptions = {}
): Effect.Effect<Store.Service, StoreError, SqlClient.SqlClient> => {
  const error = (operation: string) => (cause: unknown) => StoreError.fromCause(cause, operation, options.filename)
  const mode = modeOf(options)
  const readonly = mode === "read"
  return Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A writer waits for the write lock as long as a lease lives, saying so once.
    const transaction = dialect._tag === "sqlite"
      ? immediate(sql, { wait: Duration.decode(dialect.leaseTtl ?? "30 seconds"), name: options.filename })
      : sql.withTransaction
    if (readonly) yield* Usable.requireUsable("read")
    else yield* dialect._tag === "sqlite" ? migrateSqlite(transaction, mode) : migratePg(sql, mode)
    const env: Dialects.Env = {
      sql,
      dialect: dialect._tag === "sqlite" ? Dialects.sqlite(transaction) : Dialects.postgres(transaction),
      error
    }
    const parts = { ...Turns.make(env), ...Dag.make(env), ...Work.make(env) }
    const leaseError = error("WorkQueue.withSessionLease")
    if (dialect._tag === "pg") {
      return {
        ...parts,
        search: Search.makePg(sql, error("SearchIndex.search")),
        // PostgreSQL keeps its GIN indexes in step with every write.
        indexSearch: Effect.succeed(0),
        ...AdvisoryLease.make(sql, dialect.leaseCheck ?? "10 seconds", leaseError)
      }
    }
    // A read-only store cannot write the index: it searches what writers indexed.
    const indexTurns = readonly ? Effect.succeed(0) : Search.indexTurns(sql, transaction)
    return {
      ...parts,
      search: Search.make(sql, error("SearchIndex.search"), indexTurns),
      indexSearch: Effect.mapError(indexTurns, error("SearchIndex.indexSearch")),
      ...Lease.make(sql, transaction, {
        ttl: Duration.decode(dialect.leaseTtl ?? "30 seconds"),
        retry: Duration.decode(dialect.leaseRetry ?? "100 millis")
      }, leaseError)
    }
  }).pipe(Effect.mapError(error("Store.open")))
}

/**
 * The store `make` builds over the `SqlClient` in context, with the
 * {@link FollowedFiles} of the same database, provided with that client, so
 * that tables of the caller's own can be written in the store's transactions
 * (`TurnStore.withTransaction`): a driver's `layer` once given its connection.
 *
 * @since 0.1.0
 */
export const layer = <E>(
  make: Effect.Effect<Store.Service, E, SqlClient.SqlClient>
): Layer.Layer<Store.Store | FollowedFiles | SqlClient.SqlClient, E, SqlClient.SqlClient> =>
  Layer.effectContext(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return Store.context(yield* make).pipe(
      Context.add(FollowedFiles, SqlFollowedFiles.make(sql)),
      Context.add(SqlClient.SqlClient, sql)
    )
  }))
