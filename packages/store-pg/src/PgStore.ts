/**
 * The PostgreSQL driver of the precis store, over `@effect/sql-pg`: one
 * database shared by many processes and machines. It connects and builds the
 * store (`SqlStore.make`, PostgreSQL dialect): the tables and columns are
 * those of the SQLite store (created by the same migrations; `metadata` is JSON
 * text), and so are the semantics. Session leases are PostgreSQL advisory
 * locks, so a fleet of workers shares out sessions with the database's own
 * locks (`WorkQueue.tryWithSessionLease`).
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { SqlStore, type Store, StoreError } from "@precis/store"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
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

/**
 * Builds the store over the `SqlClient` in context (a PostgreSQL one). A
 * writing store checks that the database (its current schema) is empty or a
 * precis store no newer than this version, then runs the missing migrations,
 * in one transaction under an advisory lock (processes starting together do
 * not race); a read-only store only checks. `Store.layer(PgStore.make())` is
 * the store's layer over such a client.
 *
 * @since 0.1.0
 */
export const make = (
  options: MakeOptions = {}
): Effect.Effect<Store.Service, StoreError.StoreError, SqlClient.SqlClient> =>
  SqlStore.make({ _tag: "pg", leaseCheck: options.leaseCheck }, { readonly: options.readonly })

/**
 * Options of {@link layer}: where the server is, as a URL
 * (`postgres://USER:PASSWORD@HOST:PORT/DB`) or in parts. What neither gives
 * comes from the standard `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD` and
 * `PGDATABASE` variables (read by the `pg` driver), then its defaults.
 *
 * @since 0.1.0
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
 * The PostgreSQL store: connects and migrates the schema, and provides the
 * store with its `SqlClient` (for tables of the caller's own, written in the
 * store's transactions: `TurnStore.withTransaction`). Fails with a
 * `StoreError` when the server cannot be reached, or the database is not a
 * precis store (it has tables but no precis migrations) or a newer precis
 * wrote it.
 *
 * @example
 * ```ts
 * import { PgStore } from "@precis/store-pg"
 * import { Redacted } from "effect"
 * const StoreLive = PgStore.layer({ url: Redacted.make("postgres://precis@localhost:5432/precis") })
 * ```
 * @since 0.1.0
 */
export const layer = (options: PgOptions): Layer.Layer<Store.Store | SqlClient.SqlClient, StoreError.StoreError> =>
  SqlStore.layer(make(options)).pipe(
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
      }).pipe(Layer.mapError((cause) => StoreError.StoreError.fromCause(cause, "Store.open")))
    )
  )

/**
 * {@link PgOptions} from `Config`: `PRECIS_PG_URL` when set; the parts not
 * set fall to the driver's `PG*` variables.
 *
 * @since 0.1.0
 */
export const config: Config.Config<PgOptions> = Config.all({
  url: Config.option(Config.redacted("PRECIS_PG_URL"))
}).pipe(Config.map(({ url }) => ({ url: Option.getOrUndefined(url) })))

/**
 * The PostgreSQL store with its options read from `Config`: {@link config}
 * (`PRECIS_PG_URL`) unless another is given, as a `Config` of the options or
 * a record of a `Config` per option.
 *
 * @since 0.1.0
 */
export const layerConfig = (
  options: Config.Config.Wrap<PgOptions> = config
): Layer.Layer<Store.Store | SqlClient.SqlClient, StoreError.StoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(options), layer))

/**
 * True when `db` (a `--db` value) is a PostgreSQL URL (`postgres://` or
 * `postgresql://`) rather than a SQLite file name.
 *
 * @since 0.1.0
 */
export const isUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)
