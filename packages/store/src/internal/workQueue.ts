/**
 * The queries of the work queue (`WorkQueue.claimWork`, `settleWork`) over
 * the `session_work` table, which `TurnStore.appendTurns` fills. The session
 * leases are the dialects' own (`lease.ts`, `advisoryLease.ts`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Service } from "../WorkQueue.js"
import type { Env } from "./dialect.js"
import { decodeAll } from "./query.js"

const claimRows = decodeAll(Schema.Struct({ session_id: Schema.String, stamp: Schema.Int }))

/**
 * `claimWork` and `settleWork` over `env`.
 *
 * @internal
 */
export const make = ({ dialect, error, sql }: Env): Pick<Service, "claimWork" | "settleWork"> => {
  // The first subquery picks a row of the least claimed (skipping those a
  // concurrent claim has locked); its `claims <= min` is checked again on a row
  // a concurrent claim updated meanwhile (PostgreSQL re-reads a row it locks
  // after waiting), so two claims at the same moment never take the same row
  // while an unclaimed one is left. Only when every least-claimed row is taken
  // does the second subquery take the next in order. The update moves the row back.
  const skipLocked = sql.literal(dialect.skipLocked)
  const claimWork: Service["claimWork"] = Effect.map(
    claimRows(sql`UPDATE session_work SET claims = claims + 1
      WHERE session_id = COALESCE(
        (SELECT session_id FROM session_work WHERE claims <= (SELECT min(claims) FROM session_work)
          ORDER BY session_id LIMIT 1 ${skipLocked}),
        (SELECT session_id FROM session_work ORDER BY claims, session_id LIMIT 1 ${skipLocked}))
      RETURNING session_id, stamp`),
    (rows) => Option.map(Option.fromNullable(rows[0]), (row) => ({ sessionId: row.session_id, stamp: row.stamp }))
  ).pipe(Effect.mapError(error("WorkQueue.claimWork")))

  const settleWork: Service["settleWork"] = (claim) =>
    Effect.map(
      sql`DELETE FROM session_work WHERE session_id = ${claim.sessionId} AND stamp = ${claim.stamp}
        RETURNING session_id`,
      (rows) => rows.length > 0
    ).pipe(Effect.mapError(error("WorkQueue.settleWork")))

  return { claimWork, settleWork }
}
