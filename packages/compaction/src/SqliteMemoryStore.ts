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
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { existsSync } from "node:fs"
import * as Lease from "./internal/lease.js"
import { migrate, requireUsable } from "./internal/schema.js"
import * as Search from "./internal/search.js"
import * as Store from "./internal/store.js"
import { storeError } from "./internal/storeError.js"
import { immediate } from "./internal/transaction.js"
import { MemoryStore, type Service, StoreError } from "./MemoryStore.js"

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
    const lease = Lease.make(sql, transaction, {
      ttl: Duration.decode(options.leaseTtl ?? "30 seconds"),
      retry: Duration.decode(options.leaseRetry ?? "100 millis")
    }, error("withSessionLease"))

    // A read-only store cannot write the index: it searches what writers indexed.
    const indexTurns = options.readonly === true ? Effect.succeed(0) : Search.indexTurns(sql, transaction)
    return MemoryStore.of({
      ...Store.make(sql, Store.sqlite(transaction), error),
      search: Search.make(sql, error("search"), indexTurns),
      indexSearch: Effect.mapError(indexTurns, error("indexSearch")),
      ...lease
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
