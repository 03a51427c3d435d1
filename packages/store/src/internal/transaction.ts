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
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"

const exec = (conn: Connection, statement: string) => Effect.asVoid(conn.executeUnprepared(statement, [], undefined))

// SQLite answered that another connection holds the write lock (after its busy timeout).
const isBusy = (error: SqlError): boolean =>
  typeof error.cause === "object" && error.cause !== null && "code" in error.cause &&
  typeof error.cause.code === "string" && error.cause.code.startsWith("SQLITE_BUSY")

/**
 * How long a writer waits for the write lock in all, and the database's name
 * for the message that says it waits.
 *
 * @internal
 */
export interface WaitOptions {
  readonly wait: Duration.Duration
  readonly name?: string | undefined
}

// `BEGIN IMMEDIATE`, tried again while another process holds the write lock, until `wait` has
// passed; the first wait is logged (a warning), so that a writer held up is never silent.
const begin = (conn: Connection, options: WaitOptions) =>
  Effect.gen(function*() {
    const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(options.wait)
    let told = false
    for (;;) {
      const attempt = yield* Effect.either(exec(conn, "BEGIN IMMEDIATE"))
      if (attempt._tag === "Right") return
      if (!isBusy(attempt.left) || (yield* Clock.currentTimeMillis) >= deadline) return yield* Effect.fail(attempt.left)
      if (!told) {
        told = true
        yield* Effect.logWarning(
          `${options.name ?? "the store"}: another process is writing; waiting for it (up to ${Duration.format(options.wait)})`
        )
      }
      yield* Effect.sleep(Duration.millis(50))
    }
  })

/**
 * `sql.withTransaction` starting with `BEGIN IMMEDIATE`, waiting for the
 * write lock as `options` say (each attempt within the busy timeout). A failed `COMMIT`
 * (a full disk, say) is a failure of the transaction, not a defect, and the
 * transaction is rolled back; a `ROLLBACK` after SQLite already rolled back on
 * its own (as it does on SQLITE_FULL) is not an error.
 *
 * @internal
 */
export const immediate = (sql: SqlClient.SqlClient, options: WaitOptions) => {
  const transaction = SqlClient.makeWithTransaction({
    transactionTag: SqlClient.TransactionConnection,
    spanAttributes: [["db.system.name", "sqlite"]],
    acquireConnection: Effect.flatMap(
      Scope.make(),
      (scope) => Effect.map(Scope.extend(sql.reserve, scope), (conn) => [scope, conn] as const)
    ),
    begin: (conn) => begin(conn, options),
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
