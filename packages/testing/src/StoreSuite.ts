/**
 * The behavioural suite of the store port over SQL, for the drivers' tests
 * (`@precis/store-sqlite`, `@precis/store-pg`, or a driver of your own): the
 * same assertions over every driver, with what the dialects spell
 * differently in a {@link Dialect}. A module of its own, apart from the
 * package's entry point, because it needs `@effect/vitest`.
 *
 * @example
 * ```ts
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { sqlite, storeSuite } from "@precis/testing/StoreSuite"
 * import { Layer } from "effect"
 * storeSuite("SqliteStore", SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie), sqlite)
 * ```
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { describe, layer } from "@effect/vitest"
import type { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Dag from "./internal/storeCases/dag.js"
import * as Pages from "./internal/storeCases/pages.js"
import * as Search from "./internal/storeCases/search.js"
import * as Turns from "./internal/storeCases/turns.js"
import * as Work from "./internal/storeCases/workQueue.js"

/**
 * What the suite needs to say differently per SQL dialect.
 *
 * @since 0.1.0
 */
export interface Dialect {
  /** Creates a trigger `name` (`timing`, e.g. `BEFORE INSERT ON turns`) failing with `message` when `condition` holds. */
  readonly refuse: (
    name: string,
    timing: string,
    condition: string,
    message: string
  ) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
  /** Drops the trigger `name` of `table`. */
  readonly dropTrigger: (name: string, table: string) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
  /**
   * Fails unless the search index of the turns is consistent: with `complete`,
   * also that it holds exactly the stored turns (SQLite: FTS5's `integrity-check`).
   */
  readonly checkSearchIndex: (complete: boolean) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
  /** Whether the engine cancels a search past its timeout (PostgreSQL; SQLite runs a statement to its end). */
  readonly cancelsSearches: boolean
}

/**
 * SQLite's triggers.
 *
 * @since 0.1.0
 */
export const sqlite: Dialect = {
  refuse: (name, timing, condition, message) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.unsafe(`CREATE TRIGGER ${name} ${timing} WHEN ${condition} BEGIN SELECT RAISE(ABORT, '${message}'); END`)),
  dropTrigger: (name) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP TRIGGER ${name}`)),
  checkSearchIndex: (complete) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.unsafe(`INSERT INTO turns_fts (turns_fts, rank) VALUES ('integrity-check', ${complete ? 1 : 0})`)),
  cancelsSearches: false
}

/**
 * PostgreSQL's triggers (a trigger function each).
 *
 * @since 0.1.0
 */
export const postgres: Dialect = {
  refuse: (name, timing, condition, message) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(
        sql.unsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION '${message}'; END $$`),
        sql.unsafe(`CREATE TRIGGER ${name} ${timing} FOR EACH ROW WHEN (${condition}) EXECUTE FUNCTION ${name}()`)
      )),
  dropTrigger: (name, table) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(sql.unsafe(`DROP TRIGGER ${name} ON ${table}`), sql.unsafe(`DROP FUNCTION ${name}()`))),
  // PostgreSQL's GIN indexes are its own to keep consistent.
  checkSearchIndex: () => Effect.void,
  cancelsSearches: true
}

/**
 * One case of the suite: a test over the port, on the store of the suite
 * (shared with the other cases, which use sessions of their own) or, when
 * `fresh`, on a store of its own.
 *
 * @since 0.1.0
 */
export interface Case {
  readonly name: string
  readonly fresh?: boolean
  readonly run: (dialect: Dialect) => Effect.Effect<void, unknown, Store.Store | SqlClient.SqlClient>
}

/**
 * Every case of the suite, by part of the port.
 *
 * @since 0.1.0
 */
export const cases: ReadonlyArray<Case> = [...Turns.cases, ...Dag.cases, ...Pages.cases, ...Search.cases, ...Work.cases]

/**
 * The port's behaviour over `store` (a fresh, empty database, its `SqlClient`
 * exposed), as a `describe` block named `name`: the {@link cases} on one store,
 * those marked `fresh` each on a store of its own.
 *
 * @since 0.1.0
 */
export const storeSuite = (
  name: string,
  store: Layer.Layer<Store.Store | SqlClient.SqlClient>,
  dialect: Dialect
) =>
  describe(name, () => {
    layer(store)((it) => {
      for (const one of cases.filter((c) => c.fresh !== true)) it.effect(one.name, () => one.run(dialect))
    })
    for (const one of cases.filter((c) => c.fresh === true)) {
      layer(store)((it) => {
        it.effect(one.name, () => one.run(dialect))
      })
    }
  })
