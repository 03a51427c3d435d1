/**
 * Who works on which session: the work queue of the sessions turns came in to
 * (`claimWork`, `settleWork`) and the per-session lease that makes one worker,
 * of any process or machine, compact a session at a time.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StoreError } from "./StoreError.js"

/**
 * A session taken from the work queue by {@link Service.claimWork}: its id,
 * and its `stamp` at the claim (it moves with every append to the session),
 * which {@link Service.settleWork} compares to tell whether turns came in since.
 *
 * @since 0.1.0
 */
export interface WorkClaim {
  readonly sessionId: string
  readonly stamp: number
}

/**
 * @since 0.1.0
 */
export interface Service {
  /**
   * Takes the next session of the work queue, if any: the sessions turns were
   * appended to since a worker last found them without work
   * (`TurnStore.appendTurns` queues its session in its own transaction). One
   * indexed statement, however many sessions the store holds: the least
   * claimed session first, and the claim moves it behind the others; claimers
   * at the same moment get different sessions (PostgreSQL: `FOR UPDATE SKIP
   * LOCKED`; SQLite has a single writer). A claim is no lease: take the
   * session's lease (`tryWithSessionLease`) before compacting it.
   */
  readonly claimWork: Effect.Effect<Option.Option<WorkClaim>, StoreError>
  /**
   * Takes the claimed session off the work queue, unless turns were appended
   * to it since the claim (it then stays, for a later claim). Call it holding
   * the session's lease, once the session has no work left. True when it was
   * taken off.
   */
  readonly settleWork: (claim: WorkClaim) => Effect.Effect<boolean, StoreError>
  /**
   * Runs `effect` while holding the session's lease: mutual exclusion per
   * session across fibers, processes and (for a shared database) machines.
   * Waits while another holder has it; a holder that dies without releasing it
   * loses it when it expires, while a live holder keeps it renewed. Released
   * when `effect` ends, however it ends. Fails with a `StoreError` when the
   * lease cannot be taken or is lost (the effect is then interrupted).
   */
  readonly withSessionLease: <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreError, R>
  /**
   * Runs `effect` holding the session's lease when it is free now, without
   * waiting: `Option.none()` (and `effect` never run) when another holder has
   * it. The lease is kept and released as by `withSessionLease`. Lets many
   * workers share out sessions, each skipping those another is working on.
   */
  readonly tryWithSessionLease: <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<Option.Option<A>, E | StoreError, R>
}

/**
 * The work queue and session leases of the store, provided by a driver layer
 * with the other parts of the port (`Store.Store`).
 *
 * @since 0.1.0
 */
export class WorkQueue extends Context.Tag("@precis/store/WorkQueue")<WorkQueue, Service>() {}
