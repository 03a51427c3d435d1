/**
 * The SQLite driver of the precis store, over `@effect/sql-sqlite-node`: it
 * opens the file, sets up the connection and builds the store
 * (`SqlStore.make`, SQLite dialect). Every write is one IMMEDIATE transaction,
 * so concurrent writers from other processes wait for the write lock instead
 * of failing (as long as a lease lives, logging a warning when they start
 * waiting); session leases live in a `leases` table. A writing store refuses a
 * file that is not a precis store or that a newer precis wrote (and, with
 * `create: false`, an empty one); a read-only one (`readonly: true`) opens the
 * file read-only at the driver and never writes, migrates or creates anything.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { type FollowedFiles, SqlStore, Store, StoreError } from "@precis/store"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { existsSync, statSync } from "node:fs"
import * as path from "node:path"
import { type ReadTarget, readTarget } from "./internal/readOnly.js"

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
 */
export interface MakeOptions {
  /** The database file, named in every `StoreError` of this store. */
  readonly filename?: string | undefined
  /**
   * Read only: check that the database is a precis store of this version's
   * schema, never migrate, and fail on any write. The connection itself must
   * refuse writes too (as {@link layer} sets it up).
   */
  readonly readonly?: boolean | undefined
  /**
   * Whether a writing store may create the schema in an empty database (a
   * new or 0-byte file; default true). `false` refuses it, and {@link layer}
   * refuses a missing file: for writers that only work on what the store
   * already holds. An older schema is still migrated.
   */
  readonly create?: boolean | undefined
  /** How long a session lease lives unless its holder renews it (default 30 seconds). */
  readonly leaseTtl?: Duration.DurationInput | undefined
  /** How often a waiter for a session lease tries again (default 100 millis). */
  readonly leaseRetry?: Duration.DurationInput | undefined
}

/**
 * Builds the store over the `SqlClient` in context (a SQLite one: a client
 * shared with other code, or set up differently from {@link layer}). A writing
 * store first checks that the database is empty or a precis store no newer
 * than this version, then runs the missing migrations, both in one IMMEDIATE
 * transaction (two processes opening a new file do not race); a read-only
 * store only checks. `Store.layer(SqliteStore.make())` is the store's layer
 * over such a client.
 *
 * @since 0.1.0
 */
export const make = (options: MakeOptions = {}): Effect.Effect<Store.Service, StoreError.StoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`PRAGMA foreign_keys = ON`
    // Each attempt at the write lock waits this long; the store tries again (saying so) for as
    // long as a lease lives, so the wait is never silent.
    yield* sql`PRAGMA busy_timeout = 1000`
    // With WAL, NORMAL keeps the database consistent on a crash (it may lose the
    // last commits on power loss) and avoids an fsync per transaction.
    yield* sql`PRAGMA synchronous = NORMAL`
    return yield* SqlStore.make(
      { _tag: "sqlite", leaseTtl: options.leaseTtl, leaseRetry: options.leaseRetry },
      { filename: options.filename, readonly: options.readonly, create: options.create }
    )
  }).pipe(Effect.mapError((cause) => StoreError.StoreError.fromCause(cause, "Store.open", options.filename)))

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
// foreign or newer file (or, with `create: false`, an empty one) before
// anything touches it, then page size and WAL (the page size only takes
// effect before the file is initialized, which switching to WAL does, so WAL
// is turned on here rather than by the client; 16 KiB pages hold most turns
// without overflow pages, which makes bulk imports several times cheaper; an
// existing file keeps its own). Reading: the connection is read-only at the
// driver (SQLITE_OPEN_READONLY), or, on a private copy, `query_only`.
const setUp = (options: SqliteOptions, copy: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (options.maxPageCount !== undefined) yield* sql.unsafe(`PRAGMA max_page_count = ${options.maxPageCount}`)
    if (options.readonly === true) {
      if (copy) yield* sql`PRAGMA query_only = ON`
      return
    }
    yield* SqlStore.requireUsable(SqlStore.modeOf(options))
    yield* sql.unsafe(`PRAGMA page_size = ${PAGE_SIZE}`)
    yield* sql`PRAGMA journal_mode = WAL`
  })

// The connection `options` ask for, on `target` (the file, or a reader's copy of it).
const client = (options: SqliteOptions, target: ReadTarget) =>
  SqliteClient.layer({
    filename: target.filename,
    // A reader's own copy is opened read-write, so that SQLite can recover its WAL; `query_only` guards it.
    readonly: options.readonly === true && !target.copy,
    disableWAL: true
  }).pipe(Layer.tap((context) => Effect.provide(setUp(options, target.copy), context)))

/**
 * The SQLite store: opens (or creates) `filename` and migrates its schema,
 * and provides the store with its `SqlClient` (for tables of the caller's own,
 * written in the store's transactions: `TurnStore.withTransaction`). A new
 * file gets 16 KiB pages and WAL mode. It fails with a `StoreError` naming the
 * file when the file is not a precis store (it has tables but no precis
 * migrations) or a newer precis wrote it; with `create: false`, also when the
 * file is missing or empty. With `readonly: true` it opens the file read-only
 * at the driver and never writes (no migration, no WAL switch, no file
 * created), and refuses a missing or empty file and an older schema; a WAL
 * store it cannot read in place (no `-shm` file, and the file or its
 * directory not writable) is read from a private copy.
 *
 * @example
 * ```ts
 * import { SqliteStore } from "@precis/store-sqlite"
 * const StoreLive = SqliteStore.layer({ filename: "precis.db" }) // Layer<Store | SqlClient, StoreError>
 * const Reader = SqliteStore.layer({ filename: "precis.db", readonly: true })
 * ```
 * @since 0.1.0
 */
export const layer = (
  options: SqliteOptions
): Layer.Layer<Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient, StoreError.StoreError> =>
  // The file is looked at when the layer is built, not when it is made: a store made once is found once it exists.
  Layer.suspend(() => open(options))

/** A store is a regular file: not a directory, a device (`/dev/stdout`), a FIFO or a socket. */
const notRegular = (filename: string): string | undefined => {
  // `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`: a stream of this process, whatever file it leads to.
  if (/^\/(dev|proc)\//.test(path.resolve(filename))) {
    return "a device or process file, not a regular file: a store is a regular file (or a PostgreSQL URL)"
  }
  const stat = statSync(filename, { throwIfNoEntry: false })
  if (stat === undefined || stat.isFile()) return undefined
  const what = stat.isDirectory()
    ? "a directory"
    : stat.isCharacterDevice() || stat.isBlockDevice()
    ? "a device"
    : stat.isFIFO()
    ? "a FIFO"
    : "a socket"
  return `${what}, not a regular file: a store is a regular file (or a PostgreSQL URL)`
}

const open = (options: SqliteOptions): Layer.Layer<Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient, StoreError.StoreError> => {
  const error = (cause: unknown) => StoreError.StoreError.fromCause(cause, "Store.open", options.filename)
  if (options.filename.trim().length === 0) {
    return Layer.fail(
      new StoreError.StoreError({
        operation: "Store.open",
        reason: "InvalidInput",
        description: "the database filename is empty (SQLite would use a temporary database and throw it away)"
      })
    )
  }
  const irregular = options.filename === ":memory:" ? undefined : notRegular(options.filename)
  if (irregular !== undefined) {
    return Layer.fail(new StoreError.StoreError({ operation: "Store.open", reason: "NotAStore", description: irregular, filename: options.filename }))
  }
  // A read-write connection creates a missing file: a reader, and a writer that creates nothing, check first.
  const creates = options.readonly !== true && options.create !== false
  if (!creates && options.filename !== ":memory:" && !existsSync(options.filename)) {
    return Layer.fail(
      new StoreError.StoreError({ operation: "Store.open", reason: "NotFound", description: "no such file", filename: options.filename })
    )
  }
  const connection = options.readonly === true
    ? Layer.unwrapScoped(Effect.map(readTarget(options.filename), (target) => client(options, target)))
    : client(options, { filename: options.filename, copy: false, tidy: false })
  return SqlStore.layer(make(options)).pipe(
    Layer.provide(
      connection.pipe(
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
 * The SQLite store with its options read from `Config`: {@link config}
 * (`PRECIS_DB`) unless another is given, as a `Config` of the options or a
 * record of a `Config` per option.
 *
 * @since 0.1.0
 */
export const layerConfig = (
  options: Config.Config.Wrap<SqliteOptions> = config
): Layer.Layer<Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient, StoreError.StoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(options), layer))
