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
import { describe, layer } from "@effect/vitest"
import type { FollowedFiles, Store } from "@precis/store"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type { Case, Dialect } from "./internal/storeCases/case.js"
import * as Dag from "./internal/storeCases/dag.js"
import * as Followed from "./internal/storeCases/followedFiles.js"
import * as Pages from "./internal/storeCases/pages.js"
import * as Projects from "./internal/storeCases/projects.js"
import * as Search from "./internal/storeCases/search.js"
import * as Turns from "./internal/storeCases/turns.js"
import * as Work from "./internal/storeCases/workQueue.js"

export type {
  /**
   * One case of the suite (see `internal/storeCases/case.ts`).
   *
   * @since 0.1.0
   */
  Case,
  /**
   * What a driver does its own way (see `internal/storeCases/case.ts`).
   *
   * @since 0.1.0
   */
  Dialect
} from "./internal/storeCases/case.js"

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
 * Every case of the suite, by part of the port.
 *
 * @since 0.1.0
 */
export const cases: ReadonlyArray<Case> = [
  ...Turns.cases,
  ...Projects.cases,
  ...Dag.cases,
  ...Pages.cases,
  ...Search.cases,
  ...Work.cases,
  ...Followed.cases
]

/**
 * The port's behaviour over `store` (a fresh, empty database, its `SqlClient`
 * exposed), as a `describe` block named `name`: the {@link cases} on one store,
 * those marked `fresh` each on a store of its own.
 *
 * @since 0.1.0
 */
export const storeSuite = (
  name: string,
  store: Layer.Layer<Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient>,
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
