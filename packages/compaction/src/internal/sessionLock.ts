/**
 * One compaction (or redo) per session at a time: across the fibers of this
 * process a semaphore per session orders them, across processes and machines
 * the store's session lease (`WorkQueue`); the semaphore is taken first, so a
 * process holds at most one lease per session.
 *
 * @internal
 */
import type { StoreError } from "@precis/store"
import { WorkQueue } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"

/** The lock of every session, for one manager. */
export interface SessionLock {
  /** Runs `effect` holding the session, waiting while another holder has it. */
  readonly withSession: <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreError.StoreError, R>
  /** Runs `effect` holding the session when it is free now; `None` (and `effect` not run) when it is not. */
  readonly tryWithSession: <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<Option.Option<A>, E | StoreError.StoreError, R>
}

/** A lock over the store's `WorkQueue` in context, its semaphores made on first use. */
export const make: Effect.Effect<SessionLock, never, WorkQueue.WorkQueue> = Effect.gen(function*() {
  const queue = yield* WorkQueue.WorkQueue
  const semaphores = yield* Ref.make(new Map<string, Effect.Semaphore>())
  const semaphoreOf = (sessionId: string) =>
    Ref.modify(semaphores, (map): [Effect.Semaphore, Map<string, Effect.Semaphore>] => {
      const existing = map.get(sessionId)
      if (existing !== undefined) return [existing, map]
      const created = Effect.unsafeMakeSemaphore(1)
      return [created, new Map(map).set(sessionId, created)]
    })
  return {
    withSession: (sessionId, effect) =>
      Effect.flatMap(semaphoreOf(sessionId), (lock) => lock.withPermits(1)(queue.withSessionLease(sessionId, effect))),
    tryWithSession: (sessionId, effect) =>
      Effect.flatMap(
        semaphoreOf(sessionId),
        (lock) => Effect.map(lock.withPermitsIfAvailable(1)(queue.tryWithSessionLease(sessionId, effect)), Option.flatten)
      )
  }
})
