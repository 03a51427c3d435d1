/**
 * Per-session leases in the `leases` table: mutual exclusion across processes
 * sharing one SQLite file.
 *
 * A lease row names its holder (a random id per acquisition) and when it
 * expires. Taking it is one IMMEDIATE transaction (insert, or take over an
 * expired row, then read who holds it), so two processes cannot both win. The
 * holder renews it every third of its time to live while it works; a killed
 * holder stops renewing, and its lease is free once expired. Times come from
 * the Effect `Clock` (epoch milliseconds), so tests drive them with `TestClock`.
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { StoreError } from "../StoreError.js"

/**
 * How long a lease lives without renewal, and how often a waiter retries.
 *
 * @internal
 */
export interface LeaseOptions {
  readonly ttl: Duration.Duration
  readonly retry: Duration.Duration
}

/**
 * The message of a writer waiting for a session's lease: `release` says when a
 * holder that was killed gives it up.
 *
 * @internal
 */
export const waiting = (sessionId: string, release: string): string =>
  `session ${sessionId} is held by another process (compacting it): waiting until it is done ` +
  `(a holder that was killed gives it up ${release})`

const holderRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ holder: Schema.String })))

/**
 * `withSessionLease` and `tryWithSessionLease` over `sql`, its writes in
 * `transaction` (an IMMEDIATE one); `toStoreError` maps the lease's own failures.
 *
 * @internal
 */
export const make = (
  sql: SqlClient.SqlClient,
  transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>,
  options: LeaseOptions,
  toStoreError: (error: unknown) => StoreError
) => {
  const ttl = Duration.toMillis(options.ttl)
  const renewEvery = Duration.millis(Math.max(1, Math.floor(ttl / 3)))

  // Takes the lease when it is free or expired; true when `holder` has it.
  const tryTake = (sessionId: string, holder: string) =>
    transaction(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO leases (session_id, holder, expires_at) VALUES (${sessionId}, ${holder}, ${now + ttl})
        ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE leases.expires_at <= ${now}`
      const rows = yield* holderRows(yield* sql`SELECT holder FROM leases WHERE session_id = ${sessionId}`)
      return rows[0]?.holder === holder
    }))

  // Waits for the lease, saying so once (a warning): a holder that was killed keeps it until it expires.
  const take = (sessionId: string, holder: string, told = false): Effect.Effect<void, SqlError | ParseError> =>
    Effect.flatMap(
      tryTake(sessionId, holder),
      (taken) =>
        taken ? Effect.void : Effect.zipRight(
          told ? Effect.void : Effect.logWarning(waiting(sessionId, `within ${Duration.format(options.ttl)}`)),
          Effect.zipRight(Effect.sleep(options.retry), take(sessionId, holder, true))
        )
    )

  // Extends the lease while `holder` works; fails once it is no longer theirs.
  const renew = (sessionId: string, holder: string) =>
    Effect.gen(function*() {
      yield* Effect.sleep(renewEvery)
      const now = yield* Clock.currentTimeMillis
      const rows = yield* transaction(
        sql`UPDATE leases SET expires_at = ${now + ttl} WHERE session_id = ${sessionId} AND holder = ${holder}
          RETURNING holder`
      )
      if (rows.length === 0) {
        return yield* new StoreError({
          operation: "WorkQueue.withSessionLease",
          reason: "LeaseLost",
          description: `the lease on session ${sessionId} expired while held and another holder took it over`
        })
      }
    }).pipe(Effect.forever)

  // A release that fails leaves the row to expire.
  const release = (sessionId: string, holder: string) =>
    Effect.ignore(transaction(sql`DELETE FROM leases WHERE session_id = ${sessionId} AND holder = ${holder}`))

  // Runs `effect` while renewing the lease `holder` has taken.
  const holding = <A, E, R>(sessionId: string, holder: string, effect: Effect.Effect<A, E, R>) =>
    Effect.raceFirst(effect, Effect.mapError(renew(sessionId, holder), toStoreError))

  const withSessionLease = <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | StoreError, R> =>
    Effect.suspend(() => {
      const holder = randomUUID()
      // Released however it ends, interruption while waiting included (a
      // DELETE of a lease never taken deletes nothing).
      return Effect.zipRight(Effect.mapError(take(sessionId, holder), toStoreError), holding(sessionId, holder, effect))
        .pipe(Effect.ensuring(release(sessionId, holder)))
    })

  const tryWithSessionLease = <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<Option.Option<A>, E | StoreError, R> =>
    Effect.suspend(() => {
      const holder = randomUUID()
      return Effect.flatMap(
        Effect.mapError(tryTake(sessionId, holder), toStoreError),
        (taken) => taken ? Effect.asSome(holding(sessionId, holder, effect)) : Effect.succeedNone
      ).pipe(Effect.ensuring(release(sessionId, holder)))
    })

  return { withSessionLease, tryWithSessionLease }
}
