/**
 * What the two SQL dialects spell differently (the write transaction, JSON
 * aggregation, a JSON array as rows, bound parameters, row locks), and what
 * every query module works with ({@link Env}).
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Effect from "effect/Effect"
import type { StoreError } from "../StoreError.js"

/**
 * What the two SQL dialects spell differently.
 *
 * @internal
 */
export interface Dialect {
  /** Runs `effect` in one write transaction (nested calls become savepoints). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
  /** The aggregate of `column` into a JSON array, as text, in `order` (`[]` over no rows). */
  readonly jsonArray: (column: string, order: string) => string
  /** A table of the elements of the JSON array bound at `param`, as columns `key` (0-based) and `value`. */
  readonly jsonElements: (param: string) => string
  /** The placeholder of the `n`-th (1-based) bound parameter of an unsafe statement. */
  readonly param: (n: number) => string
  /** What a `SELECT` ends with to lock the rows it returns, skipping those another transaction has locked. */
  readonly skipLocked: string
}

/**
 * The SQLite spelling, with `transaction` (an IMMEDIATE one).
 *
 * @internal
 */
export const sqlite = (transaction: Dialect["transaction"]): Dialect => ({
  transaction,
  jsonArray: (column, order) => `json_group_array(${column} ORDER BY ${order})`,
  jsonElements: (param) => `json_each(${param})`,
  param: () => "?",
  // One writer at a time: a statement has nothing to skip.
  skipLocked: ""
})

/**
 * The PostgreSQL spelling, with `transaction`.
 *
 * @internal
 */
export const postgres = (transaction: Dialect["transaction"]): Dialect => ({
  transaction,
  jsonArray: (column, order) => `coalesce(json_agg(${column} ORDER BY ${order}), '[]'::json)::text`,
  jsonElements: (param) =>
    `(SELECT (e.ord - 1)::int AS key, e.value FROM jsonb_array_elements_text(${param}::jsonb) WITH ORDINALITY AS e(value, ord))`,
  param: (n) => `$${n}`,
  skipLocked: "FOR UPDATE SKIP LOCKED"
})

/**
 * What the queries of each part of the port are written over: the client, its
 * dialect, and how a failure of an operation becomes a `StoreError` (naming
 * the store's file, when it has one).
 *
 * @internal
 */
export interface Env {
  readonly sql: SqlClient.SqlClient
  readonly dialect: Dialect
  readonly error: (operation: string) => (cause: unknown) => StoreError
}
