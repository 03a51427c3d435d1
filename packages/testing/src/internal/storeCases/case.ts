/**
 * The types the store suite's cases are written against: a driver's
 * {@link Dialect} and a {@link Case}. `StoreSuite` exports them.
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { FollowedFiles, Store } from "@precis/store"
import type * as Effect from "effect/Effect"

/**
 * What the suite needs to say differently per SQL dialect.
 *
 * @internal
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
 * One case of the suite: a test over the port, on the store of the suite
 * (shared with the other cases, which use sessions of their own) or, when
 * `fresh`, on a store of its own.
 *
 * @internal
 */
export interface Case {
  readonly name: string
  readonly fresh?: boolean
  readonly run: (dialect: Dialect) => Effect.Effect<void, unknown, Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient>
}
