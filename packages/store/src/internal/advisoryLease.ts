/**
 * Per-session leases for PostgreSQL, with the database's own locks.
 *
 * The choice: a session-level advisory lock (`pg_advisory_lock` on a 64-bit
 * hash of the session id), held on a connection reserved for the lease's
 * duration. A transaction-scoped lock (`pg_advisory_xact_lock`, or `SELECT …
 * FOR UPDATE` on the session row) would have to keep one transaction open for
 * the whole compaction, model calls included, and every write of the run would
 * have to go through that transaction's connection; a session-level lock keeps
 * each write its own short transaction on any pooled connection. The server
 * queues waiters itself (no polling), and drops the lock when the holder's
 * connection ends, so a killed process loses its leases at once, with no
 * expiry to wait for. While it works the holder checks its connection every
 * `check`; a connection that is gone means the lock is gone, and the work is
 * interrupted with a `StoreError`. Released with `pg_advisory_unlock_all()`
 * before the connection goes back to the pool, which also covers a lock
 * granted just as its waiter was interrupted.
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { StoreError } from "../StoreError.js"
import { waiting } from "./lease.js"

// The lock key: a 64-bit hash of the session id in a namespace of ours.
const KEY = "hashtextextended('precis.session:' || $1, 0)"

/**
 * `withSessionLease` and `tryWithSessionLease` over `sql`; the holder checks
 * its connection every `check`; `toStoreError` maps the lease's own failures.
 *
 * @internal
 */
export const make = (
  sql: SqlClient.SqlClient,
  check: Duration.DurationInput,
  toStoreError: (error: unknown) => StoreError
) => {
  // Fails once the connection holding the lock no longer answers.
  const watch = (conn: Connection, sessionId: string) =>
    Effect.gen(function*() {
      yield* Effect.sleep(Duration.decode(check))
      yield* Effect.mapError(conn.executeUnprepared("SELECT 1", [], undefined), (cause) =>
        new StoreError({
          operation: "WorkQueue.withSessionLease",
          reason: "LeaseLost",
          description: `the connection holding the lease on session ${sessionId} was lost`,
          cause
        }))
    }).pipe(Effect.forever)

  const holding = <A, E, R>(
    sessionId: string,
    wait: boolean,
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<Option.Option<A>, E | StoreError, R> =>
    Effect.scoped(Effect.gen(function*() {
      const conn = yield* Effect.mapError(sql.reserve, toStoreError)
      yield* Effect.addFinalizer(() => Effect.ignore(conn.executeUnprepared("SELECT pg_advisory_unlock_all()", [], undefined)))
      const lock = (statement: string) =>
        Effect.map(
          Effect.mapError(conn.executeUnprepared(statement, [sessionId], undefined), toStoreError),
          (rows) => rows[0]?.taken === true
        )
      // A waiter tries first, so that it can say it waits before it blocks.
      let taken = yield* lock(`SELECT pg_try_advisory_lock(${KEY}) AS taken`)
      if (!taken && wait) {
        yield* Effect.logWarning(waiting(sessionId, "at once, with its connection"))
        taken = yield* lock(`SELECT pg_advisory_lock(${KEY}) IS NOT NULL AS taken`)
      }
      if (!taken) return Option.none()
      return yield* Effect.asSome(Effect.raceFirst(effect, watch(conn, sessionId)))
    }))

  const withSessionLease = <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | StoreError, R> =>
    Effect.flatMap(
      holding(sessionId, true, effect),
      Option.match({
        onNone: () => Effect.fail(new StoreError({ operation: "WorkQueue.withSessionLease", reason: "LeaseLost", description: `no lock on session ${sessionId}` })),
        onSome: Effect.succeed
      })
    )

  const tryWithSessionLease = <A, E, R>(sessionId: string, effect: Effect.Effect<A, E, R>) =>
    holding(sessionId, false, effect)

  return { withSessionLease, tryWithSessionLease }
}
