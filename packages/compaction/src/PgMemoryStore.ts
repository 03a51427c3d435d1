/**
 * The PostgreSQL driver of the {@link MemoryStore} port, over `@effect/sql-pg`:
 * one database shared by many processes and machines. The tables and columns
 * are those of the SQLite store (created by the same migrations; `metadata` is
 * JSON text), and so are the semantics: the queries are written once
 * (`internal/store.ts`). Session leases are PostgreSQL advisory locks (see
 * `internal/advisoryLease.ts` for the choice), so a fleet of workers shares out
 * sessions with the database's own locks (`tryWithSessionLease`).
 *
 * @since 0.3.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as AdvisoryLease from "./internal/advisoryLease.js"
import { migrate, MIGRATIONS_TABLE, requireUsable } from "./internal/schema.js"
import * as Search from "./internal/search.js"
import * as Store from "./internal/store.js"
import { storeError } from "./internal/storeError.js"
import { MemoryStore, type Service, type StoreError } from "./MemoryStore.js"

/**
 * Options of {@link makeWith}.
 *
 * @since 0.3.0
 */
export interface MakeOptions {
  /**
   * Read only: check that the database is a precis store this version can
   * read and never migrate (the connection itself is not made read-only).
   */
  readonly readonly?: boolean | undefined
  /** How often a lease holder checks that its connection (and so its lock) is alive (default 10 seconds). */
  readonly leaseCheck?: Duration.DurationInput | undefined
}

// A constant advisory-lock key that serializes migrations across processes
// (in its own transaction, so it is released at commit).
const MIGRATION_LOCK = 0x70726563

/**
 * Builds the store over the `SqlClient` in context (PostgreSQL dialect). A
 * writing store checks that the database (its current schema) is empty or a
 * precis store no newer than this version, then runs the missing migrations,
 * in one transaction under an advisory lock (processes starting together do
 * not race); a read-only store only checks.
 *
 * @since 0.3.0
 */
export const makeWith = (options: MakeOptions = {}): Effect.Effect<Service, StoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const error = (operation: string) => storeError(operation)
    if (options.readonly === true) {
      yield* requireUsable("read")
    } else {
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
        yield* requireUsable("write")
        // The migrator probes its table with a query that fails when the table is
        // missing, which would abort this transaction: create it first, as it would.
        yield* sql`CREATE TABLE IF NOT EXISTS ${sql(MIGRATIONS_TABLE)} (
          migration_id integer primary key,
          created_at timestamp with time zone not null default now(),
          name text not null
        )`
        // The migrator turns a failed migration into a defect: report it as a StoreError.
        yield* Effect.catchAllDefect(migrate, (defect) => Effect.fail(error("migrate")(defect)))
      }))
    }
    const lease = AdvisoryLease.make(sql, options.leaseCheck ?? "10 seconds", error("withSessionLease"))
    return MemoryStore.of({
      ...Store.make(sql, Store.postgres(sql.withTransaction), error),
      search: Search.makePg(sql, error("search")),
      // PostgreSQL keeps its GIN indexes in step with every write.
      indexSearch: Effect.succeed(0),
      ...lease
    })
  }).pipe(Effect.mapError(storeError("open")))

/**
 * Builds a writing store over the `SqlClient` in context with the default
 * {@link MakeOptions}.
 *
 * @since 0.3.0
 */
export const make: Effect.Effect<Service, StoreError, SqlClient.SqlClient> = makeWith()

/**
 * The store over a PostgreSQL `SqlClient` the caller provides.
 *
 * @since 0.3.0
 */
export const layerClient: Layer.Layer<MemoryStore, StoreError, SqlClient.SqlClient> = Layer.effect(MemoryStore, make)

/**
 * Options of {@link layer}: where the server is, as a URL
 * (`postgres://USER:PASSWORD@HOST:PORT/DB`) or in parts. What neither gives
 * comes from the standard `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD` and
 * `PGDATABASE` variables (read by the `pg` driver), then its defaults.
 *
 * @since 0.3.0
 */
export interface PgOptions extends MakeOptions {
  readonly url?: Redacted.Redacted | undefined
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly database?: string | undefined
  readonly username?: string | undefined
  readonly password?: Redacted.Redacted | undefined
  /** The most connections of the pool (default 10); each held lease keeps one. */
  readonly maxConnections?: number | undefined
}

/**
 * The PostgreSQL store: connects and migrates the schema. Fails with a
 * `StoreError` when the server cannot be reached, or the database is not a
 * precis store (it has tables but no precis migrations) or a newer precis
 * wrote it.
 *
 * @example
 * ```ts
 * import { PgMemoryStore } from "@precis/compaction"
 * import type * as Redacted from "effect/Redacted"
 * const StoreLive = PgMemoryStore.layer({ url: Redacted.make("postgres://precis@localhost:5432/precis") })
 * ```
 * @since 0.3.0
 */
export const layer = (options: PgOptions): Layer.Layer<MemoryStore, StoreError> =>
  Layer.effect(MemoryStore, makeWith(options)).pipe(
    Layer.provide(
      PgClient.layer({
        url: options.url,
        host: options.host,
        port: options.port,
        database: options.database,
        username: options.username,
        password: options.password,
        maxConnections: options.maxConnections,
        applicationName: "precis"
      }).pipe(Layer.mapError(storeError("open")))
    )
  )

/**
 * {@link PgOptions} from `Config`: `PRECIS_PG_URL` when set; the parts not
 * set fall to the driver's `PG*` variables.
 *
 * @since 0.3.0
 */
export const config: Config.Config<PgOptions> = Config.all({
  url: Config.option(Config.redacted("PRECIS_PG_URL"))
}).pipe(Config.map(({ url }) => ({ url: Option.getOrUndefined(url) })))

/**
 * The PostgreSQL store with its options read from {@link config} (or the given `Config`).
 *
 * @since 0.3.0
 */
export const layerConfig = (
  options: Config.Config<PgOptions> = config
): Layer.Layer<MemoryStore, StoreError | ConfigError.ConfigError> => Layer.unwrapEffect(Effect.map(options, layer))

/**
 * True when `db` (a `--db` value) is a PostgreSQL URL (`postgres://` or
 * `postgresql://`) rather than a SQLite file name.
 *
 * @since 0.3.0
 */
export const isUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

