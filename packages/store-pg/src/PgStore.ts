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
import { type FollowedFiles, SqlStore, type Store, StoreError } from "@precis/store"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
 */
export interface MakeOptions {
  /**
   * Read only: check that the database is a precis store of this version's
   * schema and never migrate. {@link layer} also makes the connection itself
   * read-only when it is given a `url` (`default_transaction_read_only`).
   */
  readonly readonly?: boolean | undefined
  /**
   * Whether a writing store may create the schema in an empty database
   * (default true); `false` refuses it (an older schema is still migrated).
   */
  readonly create?: boolean | undefined
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
  SqlStore.make({ _tag: "pg", leaseCheck: options.leaseCheck }, { readonly: options.readonly, create: options.create })

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
export const layer = (options: PgOptions): Layer.Layer<Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient, StoreError.StoreError> =>
  SqlStore.layer(make(options)).pipe(
    Layer.provide(
      PgClient.layer({
        url: options.readonly === true && options.url !== undefined ? readOnlyUrl(options.url) : options.url,
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

const READ_ONLY = "-c default_transaction_read_only=on"

// `url` with the server told, at connection, that every transaction is read-only
// (libpq's `options` parameter, added to any already given).
const readOnlyUrl = (url: Redacted.Redacted): Redacted.Redacted => {
  const text = Redacted.value(url)
  const question = text.indexOf("?")
  const params = new URLSearchParams(question === -1 ? "" : text.slice(question + 1))
  const given = params.get("options")
  params.set("options", given === null ? READ_ONLY : `${given} ${READ_ONLY}`)
  return Redacted.make(`${question === -1 ? text : text.slice(0, question)}?${params.toString()}`)
}

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
): Layer.Layer<Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient, StoreError.StoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(options), layer))

/**
 * True when `db` (a `--db` value) is a PostgreSQL URL (`postgres://` or
 * `postgresql://`) rather than a SQLite file name.
 *
 * @since 0.1.0
 */
export const isUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)
