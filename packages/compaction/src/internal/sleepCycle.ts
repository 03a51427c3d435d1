/**
 * One cycle of Sleep Mode's worker: brings the search index up to date, then
 * compacts the sessions due, `parallelSessions` at a time, each in batches of
 * at most `batchSize` turns (the compaction's `maxTurns`) until no turn
 * outside the fresh tail is left (and it is under the soft mark), so one
 * cycle clears the backlog; and what the worker counts and
 * reports while it does. `SleepMode` exports the stats and the events.
 *
 * @internal
 */
import type { SearchIndex, StoreError } from "@precis/store"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import type * as CompactionOptions from "../CompactionOptions.js"
import { addStats, type CompactionStats, noStats } from "./outcome.js"

/** What the worker has done since the layer was built. */
export interface Stats {
  /** Cycles that ran to their end (with or without an error). */
  readonly cyclesCompleted: number
  /** Cycles interrupted by activity. */
  readonly cyclesInterrupted: number
  /** Turns summarized by the compactions of the cycles that completed them. */
  readonly turnsProcessed: number
  /** Summaries (leaves and condensed) those compactions created. */
  readonly summariesCreated: number
  /** Failed cycles. */
  readonly errors: number
  /** When the last cycle ended (epoch milliseconds on the Effect clock), if one did. */
  readonly lastCycleAt: number | undefined
  /** Time spent in cycles, interrupted ones included. */
  readonly processingTime: Duration.Duration
}

/** Nothing done yet. */
export const emptyStats: Stats = {
  cyclesCompleted: 0,
  cyclesInterrupted: 0,
  turnsProcessed: 0,
  summariesCreated: 0,
  errors: 0,
  lastCycleAt: undefined,
  processingTime: Duration.zero
}

/** What the worker reports. */
export type Event = Data.TaggedEnum<{
  /** A cycle started; `sessions` are the sessions due (never none), in the order it will compact them. */
  CycleStarted: { readonly sessions: ReadonlyArray<string> }
  /** A session was compacted by the cycle (the sum of its batches): nothing is left to compact. */
  SessionCompacted: { readonly sessionId: string; readonly stats: CompactionStats }
  /** A cycle with sessions due ran to its end. */
  CycleCompleted: {
    readonly turnsProcessed: number
    readonly summariesCreated: number
    readonly duration: Duration.Duration
  }
  /** Activity (or a `busy` effect) interrupted a cycle. */
  CycleInterrupted: { readonly duration: Duration.Duration }
  /** A cycle failed; the next check is in `retryIn`. `sessionId` is the session it failed on, if any. */
  CycleFailed: {
    readonly sessionId: string | undefined
    readonly error: string
    readonly retryIn: Duration.Duration
  }
}>

/** Constructors and matchers of {@link Event}. */
export const Event = Data.taggedEnum<Event>()

// Why a cycle stopped early: the session it was on and the error.
class CycleError extends Data.TaggedError("CycleError")<{
  readonly sessionId: string | undefined
  readonly error: string
}> {}

/** What a cycle uses of the `CompactionManager`: `status` and `compact` (their errors' messages only). */
export interface Manager<E extends { readonly message: string } = { readonly message: string }> {
  readonly status: (
    sessionId: string,
    budget: number,
    options: CompactionOptions.Options
  ) => Effect.Effect<{ readonly evictableTurns: number; readonly shouldCompact: boolean }, E>
  readonly compact: (
    sessionId: string,
    options: CompactionOptions.Options
  ) => Effect.Effect<CompactionStats, { readonly message: string }>
}

/** What a cycle works with: the worker's services, options and state. */
export interface Deps<E extends { readonly message: string } = { readonly message: string }> {
  readonly manager: Manager<E>
  readonly index: SearchIndex.Service
  /** The sessions to look at. */
  readonly sessions: Effect.Effect<ReadonlyArray<string>, StoreError.StoreError>
  readonly options: {
    readonly minUnprocessedTurns: number
    readonly budget?: number | undefined
    readonly softMark: number
    /** Sessions compacted at once. */
    readonly parallelSessions: number
  }
  /** The options of its compactions. */
  readonly overrides: CompactionOptions.Options
  readonly stats: Ref.Ref<Stats>
  /** Failed cycles in a row. */
  readonly failures: Ref.Ref<number>
  readonly publish: (event: Event) => Effect.Effect<boolean>
  /** The wait before the next check after `failures` failed cycles in a row. */
  readonly delay: (failures: number) => Duration.Duration
}

/** The sessions due now and their evictable turns: what the next cycle would compact. */
export interface Backlog {
  readonly sessions: number
  readonly turns: number
}

// A session is due with enough evictable turns, or past the soft mark of its budget; `evictable` is its
// turns outside the fresh tail; `left` whether a due session still has work (any evictable turn, or past the mark).
const dueStatus = <E extends { readonly message: string }>(deps: Deps<E>, sessionId: string) =>
  // Without a budget only `evictableTurns` is read, which does not depend on it.
  Effect.map(
    deps.manager.status(sessionId, deps.options.budget ?? 1, { ...deps.overrides, threshold: deps.options.softMark }),
    (status) => {
      const pastMark = deps.options.budget !== undefined && status.shouldCompact
      return {
        due: status.evictableTurns >= deps.options.minUnprocessedTurns || pastMark,
        left: status.evictableTurns > 0 || pastMark,
        evictable: status.evictableTurns
      }
    }
  )

/** The sessions of `deps.sessions` due now, and their evictable turns (by the rule a cycle follows). */
export const backlog = <E extends { readonly message: string }>(
  deps: Deps<E>
): Effect.Effect<Backlog, E | StoreError.StoreError> =>
  Effect.gen(function*() {
    const ids = yield* deps.sessions
    const statuses = yield* Effect.forEach(ids, (id) => dueStatus(deps, id))
    const due = statuses.filter((status) => status.due)
    return { sessions: due.length, turns: due.reduce((n, status) => n + status.evictable, 0) }
  })

/** One cycle: compacts each due session until it has nothing left to compact; succeeds with true when it failed (errors are counted, never fatal). */
export const cycle = (deps: Deps): Effect.Effect<boolean> => {
  const { options } = deps
  const isDue = (sessionId: string) => Effect.map(dueStatus(deps, sessionId), (status) => status.due)
  const hasWorkLeft = (sessionId: string) => Effect.map(dueStatus(deps, sessionId), (status) => status.left)

  const failWith = (sessionId: string | undefined) => (error: { readonly message: string }) =>
    new CycleError({ sessionId, error: error.message })

  // One batch (a compaction of at most `batchSize` turns), counted in the stats as soon as it is written.
  const batch = (sessionId: string) =>
    Effect.gen(function*() {
      const result = yield* Effect.mapError(deps.manager.compact(sessionId, deps.overrides), failWith(sessionId))
      yield* Ref.update(deps.stats, (s) => ({
        ...s,
        turnsProcessed: s.turnsProcessed + result.turnsCompacted,
        summariesCreated: s.summariesCreated + result.leafSummariesCreated + result.condensedSummariesCreated
      }))
      return result
    })

  // Batches until the session has no evictable turn left and is under the soft mark (or a batch did nothing:
  // nothing more can be done now).
  const compactSession = (sessionId: string) =>
    Effect.gen(function*() {
      let total = noStats
      while (true) {
        const result = yield* batch(sessionId)
        total = addStats(total, result)
        const progressed = result.turnsCompacted + result.leafSummariesCreated + result.condensedSummariesCreated > 0
        if (!progressed || !(yield* Effect.mapError(hasWorkLeft(sessionId), failWith(sessionId)))) break
      }
      yield* deps.publish(Event.SessionCompacted({ sessionId, stats: total }))
      return total
    })

  return Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const elapsed = Effect.map(Clock.currentTimeMillis, (now) => Duration.millis(now - started))
    return yield* Effect.gen(function*() {
      // The turns appended since the last search or cycle go into the search index now, not in the agent's next search.
      yield* Effect.mapError(deps.index.indexSearch, failWith(undefined))
      const ids = yield* Effect.mapError(deps.sessions, failWith(undefined))
      const due = yield* Effect.filter(ids, (id) => Effect.mapError(isDue(id), failWith(id)))
      // A cycle with nothing to do is counted, but publishes nothing.
      if (due.length === 0) return false
      yield* deps.publish(Event.CycleStarted({ sessions: due }))
      const done = yield* Effect.forEach(due, compactSession, { concurrency: options.parallelSessions })
      const total = done.reduce(addStats, noStats)
      const duration = yield* elapsed
      const summariesCreated = total.leafSummariesCreated + total.condensedSummariesCreated
      yield* deps.publish(Event.CycleCompleted({ turnsProcessed: total.turnsCompacted, summariesCreated, duration }))
      return false
    }).pipe(
      Effect.catchAll((error) =>
        Effect.gen(function*() {
          yield* Ref.update(deps.stats, (s) => ({ ...s, errors: s.errors + 1 }))
          const failures = yield* Ref.updateAndGet(deps.failures, (n) => n + 1)
          yield* Effect.logWarning("SleepMode: cycle failed", error.error)
          yield* deps.publish(Event.CycleFailed({ sessionId: error.sessionId, error: error.error, retryIn: deps.delay(failures) }))
          return true
        })
      ),
      Effect.onExit((exit) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const duration = Duration.millis(now - started)
          const interrupted = Exit.isInterrupted(exit)
          yield* Ref.update(deps.stats, (s) => ({
            ...s,
            cyclesCompleted: s.cyclesCompleted + (interrupted ? 0 : 1),
            cyclesInterrupted: s.cyclesInterrupted + (interrupted ? 1 : 0),
            lastCycleAt: now,
            processingTime: Duration.sum(s.processingTime, duration)
          }))
          if (interrupted) yield* deps.publish(Event.CycleInterrupted({ duration }))
        })
      )
    )
  })
}
