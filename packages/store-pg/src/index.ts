/**
 * @precis/store-pg: the PostgreSQL driver of the precis store
 * (`@effect/sql-pg`): one database shared by many processes and machines.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as PgStore from "./PgStore.js"
