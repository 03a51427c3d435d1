/**
 * The worker loop (`CompactionManager.compactAll`): takes sessions from the
 * store's work queue, compacts each one that has work under its lock if that
 * is free now (skipping those another holder has, coming back to them), and
 * takes a session off the queue once it has no work left.
 *
 * @internal
 */
import { type Summarizer, TokenEstimator } from "@precis/core"
import { DagStore, type StoreError, TurnStore, WorkQueue } from "@precis/store"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as CompactionOptions from "../CompactionOptions.js"
import { compactSession } from "./engine.js"
import { addStats, type CompactAllStats, type CompactionStats, noStats } from "./outcome.js"
import type { ProviderUnavailableError } from "../CompactionError.js"
import type { SessionLock } from "./sessionLock.js"
import { hasWork } from "./trigger.js"

// Whether a compaction of the session would write anything. Reads the store only (no token estimate of the
// whole context, unless the tail is bounded in tokens).
const sessionHasWork = (sessionId: string, options: CompactionOptions.ResolvedOptions) =>
  Effect.gen(function*() {
    const [uncovered, parentless] = yield* Effect.all([
      Effect.flatMap(TurnStore.TurnStore, (store) => store.uncoveredTurns(sessionId)),
      Effect.flatMap(DagStore.DagStore, (dag) => dag.parentless(sessionId))
    ])
    return hasWork(yield* TokenEstimator.TokenEstimator, uncovered, parentless, options)
  })

// Runs the claimed session's compaction when its lock is free now and it still has work (another worker
// may have finished it since it was queued); `taken` tells whether the lock was free. Holding the lock, it
// takes the session off the queue once it has no work left (the store keeps it queued when turns came in
// since the claim).
const tryCompact = (lock: SessionLock, claim: WorkQueue.WorkClaim, options: CompactionOptions.ResolvedOptions) =>
  Effect.gen(function*() {
    const queue = yield* WorkQueue.WorkQueue
    const { sessionId } = claim
    const settle = Effect.flatMap(sessionHasWork(sessionId, options), (work) => work ? Effect.void : queue.settleWork(claim))
    const outcome = yield* lock.tryWithSession(
      sessionId,
      Effect.flatMap(sessionHasWork(sessionId, options), (work) =>
        work
          ? Effect.asSome(Effect.zipLeft(compactSession(sessionId, options), settle))
          : Effect.as(queue.settleWork(claim), Option.none()))
    )
    return { taken: Option.isSome(outcome), stats: Option.flatten(outcome) }
  }).pipe(Effect.withSpan("CompactionManager.compact", { attributes: { "precis.session_id": claim.sessionId } }))

/**
 * Compacts every session of the work queue that has work, until the queue is
 * empty; waits `retryDelay` before claiming again a session found held.
 */
export const compactAll = (
  lock: SessionLock,
  options: CompactionOptions.ResolvedOptions,
  retryDelay: Duration.DurationInput = Duration.millis(100)
): Effect.Effect<
  CompactAllStats,
  StoreError.StoreError | ProviderUnavailableError,
  TurnStore.TurnStore | DagStore.DagStore | WorkQueue.WorkQueue | Summarizer.Summarizer
> =>
  Effect.gen(function*() {
    const queue = yield* WorkQueue.WorkQueue
    const done = new Map<string, CompactionStats>()
    let skippedLocked = 0
    // Sessions found held by another holder since this worker last took one. Claims go round the
    // queue, so claiming one of them again means every session left in it is held: wait, rather than spin.
    const held = new Set<string>()
    while (true) {
      const next = yield* queue.claimWork
      if (Option.isNone(next)) break
      const claim = next.value
      if (held.has(claim.sessionId)) {
        yield* Effect.sleep(retryDelay)
        held.clear()
      }
      const { stats, taken } = yield* tryCompact(lock, claim, options)
      if (!taken) {
        skippedLocked++
        held.add(claim.sessionId)
        continue
      }
      held.clear()
      if (Option.isSome(stats)) {
        const before = done.get(claim.sessionId)
        done.set(claim.sessionId, before === undefined ? stats.value : addStats(before, stats.value))
      }
    }
    const sessions = Array.from(done, ([sessionId, stats]) => ({ sessionId, ...stats }))
    const totals = sessions.reduce<CompactionStats>(addStats, noStats)
    yield* Effect.annotateCurrentSpan({ "precis.sessions": sessions.length, "precis.skipped_locked": skippedLocked })
    return { sessions, totals, skippedLocked }
  })
