/**
 * @precis/store-sqlite: the SQLite driver of the precis store
 * (`@effect/sql-sqlite-node`): one file, WAL mode, IMMEDIATE write
 * transactions, leases in a table.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as SqliteStore from "./SqliteStore.js"
