/**
 * Write transactions that take SQLite's write lock when they begin.
 *
 * `SqlClient.withTransaction` of `@effect/sql-sqlite-node` issues a plain
 * `BEGIN` (DEFERRED): the transaction reads first and asks for the write lock
 * at its first write. When another process has committed in between, SQLite
 * answers SQLITE_BUSY at once, without calling the busy handler (waiting
 * could not help: the snapshot is stale), so two writers from two processes
 * fail with "database is locked" whatever the busy timeout. `BEGIN IMMEDIATE`
 * takes the write lock first, waiting for it under the busy timeout, so
 * writers queue up instead. The client has no option for the BEGIN statement,
 * so this builds the same transaction combinator (`SqlClient.makeWithTransaction`,
 * the client's own `TransactionConnection`, so nested calls and
 * `sql.withTransaction` inside become savepoints) over its reserved connection.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"

const exec = (conn: Connection, statement: string) => Effect.asVoid(conn.executeUnprepared(statement, [], undefined))

/**
 * `sql.withTransaction` starting with `BEGIN IMMEDIATE`. A failed `COMMIT`
 * (a full disk, say) is a failure of the transaction, not a defect, and the
 * transaction is rolled back; a `ROLLBACK` after SQLite already rolled back on
 * its own (as it does on SQLITE_FULL) is not an error.
 *
 * @internal
 */
export const immediate = (sql: SqlClient.SqlClient) => {
  const transaction = SqlClient.makeWithTransaction({
    transactionTag: SqlClient.TransactionConnection,
    spanAttributes: [["db.system.name", "sqlite"]],
    acquireConnection: Effect.flatMap(
      Scope.make(),
      (scope) => Effect.map(Scope.extend(sql.reserve, scope), (conn) => [scope, conn] as const)
    ),
    begin: (conn) => exec(conn, "BEGIN IMMEDIATE"),
    savepoint: (conn, id) => exec(conn, `SAVEPOINT effect_sql_${id}`),
    // makeWithTransaction turns a failed COMMIT into a defect: undo, and
    // `immediate` turns the SqlError back into a failure below.
    commit: (conn) => Effect.tapError(exec(conn, "COMMIT"), () => Effect.ignore(exec(conn, "ROLLBACK"))),
    rollback: (conn) => Effect.ignore(exec(conn, "ROLLBACK")),
    rollbackSavepoint: (conn, id) => exec(conn, `ROLLBACK TO SAVEPOINT effect_sql_${id}`)
  })
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.catchAllDefect(
      transaction(effect),
      (defect) => defect instanceof SqlError ? Effect.fail(defect) : Effect.die(defect)
    )
}
