/**
 * Sleep Mode: compaction in idle time. A scoped background fiber wakes every
 * `checkInterval`; once the agent has been idle for `idleThreshold`, it runs a
 * *cycle*: it brings the store's search index up to date
 * (`SearchIndex.indexSearch`), then compacts, one after the other, the sessions with at least
 * `minUnprocessedTurns` evictable turns (uncovered turns outside the fresh
 * tail) and, with a `budget`, those whose active context passed
 * `softMark * budget`, `parallelSessions` at a time, each in batches of at
 * most `batchSize` turns (the compaction's `maxTurns`: activity interrupts a
 * cycle between short writes) until no turn outside the fresh tail is left
 * (and it is under the soft mark), so one cycle clears the backlog. So the hard trigger (`CompactionManager.shouldCompact`) rarely
 * fires inside the agent's turn.
 *
 * - **Activity** ({@link Service.recordActivity}, or {@link Service.busy}
 *   around the agent's work) resets the idle clock and interrupts a running
 *   cycle at once, waiting only for its interruption: compaction is
 *   interrupt-safe (each summary is written with its links in one
 *   transaction), so the agent's own `compact` then waits at most for the
 *   store write in progress. No cycle starts while a `busy` effect runs.
 * - **Errors** are counted, logged and published; the worker never dies of
 *   them: a failed cycle ends, and the next check waits
 *   `checkInterval * 2^failures`, at most `maxBackoff`, until a cycle succeeds.
 * - **Lifetime**: the fiber lives in the layer's scope; closing the scope
 *   interrupts it, and a running cycle with it.
 * - **Options** come from {@link layer}'s argument or from `Config`
 *   ({@link config}: `PRECIS_SLEEP_ENABLED`, `PRECIS_SLEEP_IDLE_THRESHOLD`,
 *   `PRECIS_SLEEP_CHECK_INTERVAL`, `PRECIS_SLEEP_MIN_UNPROCESSED_TURNS`,
 *   `PRECIS_SLEEP_BATCH_SIZE`, `PRECIS_SLEEP_PARALLEL_SESSIONS`, `PRECIS_SLEEP_SOFT_MARK`,
 *   `PRECIS_SLEEP_MAX_BACKOFF`), checked when the layer is built. Every
 *   timing runs on the Effect `Clock`, so `TestClock` drives it.
 *
 * @since 0.1.0
 */
import { OptionConfig, OptionError, OptionSchema } from "@precis/core"
import { SearchIndex, type StoreError, TurnStore } from "@precis/store"
import * as Clock from "effect/Clock"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { CompactionManager } from "./CompactionManager.js"
import * as CompactionOptions from "./CompactionOptions.js"
import * as Cycle from "./internal/sleepCycle.js"

/**
 * The defaults of {@link Options}.
 *
 * @since 0.1.0
 */
export const defaults = {
  enabled: true,
  idleThreshold: Duration.minutes(5),
  checkInterval: Duration.minutes(1),
  minUnprocessedTurns: 5,
  batchSize: 20,
  parallelSessions: 1,
  softMark: 0.5,
  maxBackoff: Duration.minutes(30)
} as const

// The options read from `Config` (all but the budget, which is the compaction's).
const Configurable = Schema.Struct({
  /** Whether the worker runs at all; when false the service only keeps its (zero) stats. */
  enabled: Schema.optionalWith(OptionSchema.boolean, { default: () => defaults.enabled }),
  /** How long without activity before a cycle may start. */
  idleThreshold: Schema.optionalWith(OptionSchema.duration(), { default: () => defaults.idleThreshold }),
  /** How often the worker wakes to check. */
  checkInterval: Schema.optionalWith(OptionSchema.duration({ positive: true }), {
    default: () => defaults.checkInterval
  }),
  /** Fewest evictable turns that make a session due. */
  minUnprocessedTurns: Schema.optionalWith(OptionSchema.int({ min: 1 }), {
    default: () => defaults.minUnprocessedTurns
  }),
  /** Most turns summarized per batch (the compaction's `maxTurns`); a cycle runs batches until the session is done. */
  batchSize: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => defaults.batchSize }),
  /** Sessions a cycle compacts at once. */
  parallelSessions: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => defaults.parallelSessions }),
  /** Fraction of `budget` past which a session is due. */
  softMark: Schema.optionalWith(OptionSchema.number({ min: 0, max: 1, exclusiveMin: true }), {
    default: () => defaults.softMark
  }),
  /** Longest wait between checks after failed cycles. */
  maxBackoff: Schema.optionalWith(OptionSchema.duration({ positive: true }), { default: () => defaults.maxBackoff })
})

/**
 * Sleep Mode's options, their bounds and defaults:
 *
 * | option | bounds | default |
 * |---|---|---|
 * | `enabled` | boolean | true |
 * | `idleThreshold` | finite duration | 5 minutes |
 * | `checkInterval` | positive finite duration | 1 minute |
 * | `minUnprocessedTurns` | integer >= 1 | 5 |
 * | `batchSize` | integer >= 1 | 20 |
 * | `parallelSessions` | integer >= 1 | 1 |
 * | `budget` | integer >= 1 | none |
 * | `softMark` | (0, 1] | 0.5 |
 * | `maxBackoff` | positive finite duration | 30 minutes |
 *
 * With a `budget` (tokens), a session whose active context is over
 * `softMark * budget` is due too. (Compactions get it only through
 * `compaction`, as their `budget` option.)
 *
 * @since 0.1.0
 */
export const Options = Schema.Struct({ ...Configurable.fields, budget: Schema.optional(CompactionOptions.Budget) })

/**
 * The options as given: any of {@link Options}'s fields, the sessions to look
 * at and the compaction options of idle-time compactions.
 *
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Encoded<typeof Options> {
  /** The sessions to look at. Default every session of the store. */
  readonly sessions?: Effect.Effect<ReadonlyArray<string>, StoreError.StoreError> | undefined
  /** Overrides of the manager's options for idle-time compactions (`maxTurns` is `batchSize`). */
  readonly compaction?: CompactionOptions.Options | undefined
}

/**
 * Options that make no sense (a zero check interval, a batch size of 0, ...):
 * one problem per option.
 *
 * @since 0.1.0
 */
export class InvalidSleepOptionsError extends OptionError.InvalidOptions("InvalidSleepOptionsError", "sleep mode") {}

/**
 * Applies the defaults to `options` and checks them against {@link Options}.
 *
 * @since 0.1.0
 */
export const decodeOptions: (
  options: Options
) => Either.Either<Schema.Schema.Type<typeof Options>, InvalidSleepOptionsError> = OptionSchema.decode(
  Options,
  (problems) => new InvalidSleepOptionsError({ problems })
)

/**
 * What the worker has done since the layer was built: `cyclesCompleted`
 * (with or without an error), `cyclesInterrupted` (by activity),
 * `turnsProcessed` and `summariesCreated` (by the compactions of the cycles
 * that completed them), `errors` (failed cycles), `lastCycleAt` (when the last
 * cycle ended, epoch milliseconds on the Effect clock) and `processingTime`
 * (time spent in cycles, interrupted ones included).
 *
 * @since 0.1.0
 */
export interface Stats extends Cycle.Stats {}

/**
 * What a cycle would compact now: the `sessions` due and their `turns`
 * outside the fresh tail.
 *
 * @since 0.1.0
 */
export interface Backlog extends Cycle.Backlog {}

/**
 * What the worker reports, on {@link Service.events}: `CycleStarted` (the
 * `sessions` due, in the order it will compact them), `SessionCompacted`
 * (a session and its `stats`), `CycleCompleted` (`turnsProcessed`,
 * `summariesCreated`, `duration`), `CycleInterrupted` (by activity, after
 * `duration`), `CycleFailed` (the `sessionId` it failed on if any, the
 * `error`, and when the next check is: `retryIn`).
 *
 * @since 0.1.0
 */
export type Event = Cycle.Event

/**
 * Constructors and matchers of {@link Event}.
 *
 * @since 0.1.0
 */
export const Event = Cycle.Event

/**
 * @since 0.1.0
 */
export interface Service {
  /** Resets the idle clock and interrupts a running cycle, returning once it has stopped. */
  readonly recordActivity: Effect.Effect<void>
  /**
   * Runs `effect` as activity: records activity when it starts (interrupting
   * a cycle) and when it ends, and no cycle starts while it runs.
   */
  readonly busy: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** What the worker has done so far. */
  readonly stats: Effect.Effect<Stats>
  /**
   * When the next cycle may start (epoch milliseconds on the Effect clock): the
   * first check at or after the idle threshold past the last activity, if no
   * more comes; `undefined` when the worker does not run (disabled).
   */
  readonly nextCycleAt: Effect.Effect<number | undefined>
  /** The sessions due now and their turns outside the fresh tail: what the next cycle would compact. */
  readonly backlog: Effect.Effect<Backlog, StoreError.StoreError | CompactionOptions.InvalidOptionsError>
  /** The worker's events from when the stream is run on (see {@link Service.subscribe} to not miss any). */
  readonly events: Stream.Stream<Event>
  /** A subscription to the events, taken at once, for the scope's lifetime. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<Event>, never, Scope.Scope>
}

/**
 * The SleepMode service tag.
 *
 * @since 0.1.0
 */
export class SleepMode extends Context.Tag("@precis/compaction/SleepMode")<SleepMode, Service>() {}

/**
 * Builds the service and forks its worker into the current scope.
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const opts = yield* decodeOptions(options)
  const manager = yield* CompactionManager
  const turnStore = yield* TurnStore.TurnStore
  const index = yield* SearchIndex.SearchIndex
  const pubsub = yield* Effect.acquireRelease(PubSub.unbounded<Event>(), PubSub.shutdown)
  const stats = yield* Ref.make(Cycle.emptyStats)
  // The idle clock: the last activity (epoch ms) and how many `busy` effects run.
  const activity = yield* Ref.make({ last: yield* Clock.currentTimeMillis, busy: 0 })
  const running = yield* Ref.make(Option.none<Fiber.RuntimeFiber<boolean>>())
  // When the worker wakes next (epoch ms), and how far apart its checks are then.
  const wake = yield* Ref.make({ at: yield* Clock.currentTimeMillis, every: Duration.toMillis(opts.checkInterval) })
  // Orders starting a cycle against activity, so a cycle never starts after activity it did not see.
  const gate = yield* Effect.makeSemaphore(1)

  const consecutiveFailures = yield* Ref.make(0)
  // The wait before the next check: `checkInterval * 2^failures`, at most `maxBackoff`.
  const delay = (failures: number): Duration.Duration =>
    failures === 0
      ? opts.checkInterval
      : Duration.min(Duration.times(opts.checkInterval, 2 ** Math.min(failures, 30)), opts.maxBackoff)

  const deps: Cycle.Deps<StoreError.StoreError | CompactionOptions.InvalidOptionsError> = {
    manager,
    index,
    sessions: options.sessions ?? Effect.map(turnStore.sessions, (all) => all.map((s) => s.id)),
    options: opts,
    overrides: { ...options.compaction, maxTurns: opts.batchSize },
    stats,
    failures: consecutiveFailures,
    publish: (event) => PubSub.publish(pubsub, event),
    delay
  }
  const cycle = Cycle.cycle(deps)

  const startIfIdle = gate.withPermits(1)(
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const state = yield* Ref.get(activity)
      if (state.busy > 0 || now - state.last < Duration.toMillis(opts.idleThreshold)) {
        return Option.none<Fiber.RuntimeFiber<boolean>>()
      }
      const fiber = yield* Effect.fork(cycle)
      yield* Ref.set(running, Option.some(fiber))
      return Option.some(fiber)
    })
  )

  const worker = Effect.gen(function*() {
    while (true) {
      const wait = delay(yield* Ref.get(consecutiveFailures))
      const now = yield* Clock.currentTimeMillis
      yield* Ref.set(wake, { at: now + Duration.toMillis(wait), every: Duration.toMillis(opts.checkInterval) })
      yield* Effect.sleep(wait)
      const started = yield* startIfIdle
      if (Option.isNone(started)) continue
      const exit = yield* Fiber.await(started.value)
      yield* Ref.set(running, Option.none())
      if (Exit.isSuccess(exit) && !exit.value) yield* Ref.set(consecutiveFailures, 0)
    }
  })

  const touch = (busy: number) =>
    gate.withPermits(1)(
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* Ref.update(activity, (state) => ({ last: now, busy: state.busy + busy }))
        const fiber = yield* Ref.getAndSet(running, Option.none())
        if (Option.isSome(fiber)) yield* Fiber.interrupt(fiber.value)
      })
    )

  const recordActivity = touch(0)

  const nextCycleAt = Effect.gen(function*() {
    if (!opts.enabled) return undefined
    const { at, every } = yield* Ref.get(wake)
    const idleAt = (yield* Ref.get(activity)).last + Duration.toMillis(opts.idleThreshold)
    // A wake that is due but has not run yet (a busy event loop) is now.
    const now = yield* Clock.currentTimeMillis
    return Math.max(now, idleAt <= at ? at : at + Math.ceil((idleAt - at) / every) * every)
  })
  const busy: Service["busy"] = (effect) =>
    Effect.acquireUseRelease(touch(1), () => effect, () => touch(-1))

  if (opts.enabled) yield* Effect.forkScoped(worker)

  return SleepMode.of({
    recordActivity,
    busy,
    stats: Ref.get(stats),
    nextCycleAt,
    backlog: Cycle.backlog(deps),
    events: Stream.fromPubSub(pubsub),
    subscribe: PubSub.subscribe(pubsub)
  })
})

/**
 * The Sleep Mode layer: the service, and its worker living and dying with the
 * layer's scope. Fails with an {@link InvalidSleepOptionsError} on options that
 * make no sense.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { CompactionManager, SleepMode } from "@precis/compaction"
 * const Sleep = SleepMode.layer({ idleThreshold: "2 minutes", budget: 32_000 })
 * // Layer<SleepMode, InvalidSleepOptionsError, CompactionManager | TurnStore.TurnStore | SearchIndex.SearchIndex>
 * ```
 * @since 0.1.0
 */
export const layer = (
  options?: Options
): Layer.Layer<SleepMode, InvalidSleepOptionsError, CompactionManager | TurnStore.TurnStore | SearchIndex.SearchIndex> =>
  Layer.scoped(SleepMode, make(options))

/**
 * {@link Options} read from `Config`, each from its variable (`PRECIS_SLEEP_`
 * and the option's name in capitals), unset by default:
 * `PRECIS_SLEEP_ENABLED` (a boolean), `PRECIS_SLEEP_IDLE_THRESHOLD`,
 * `PRECIS_SLEEP_CHECK_INTERVAL` and `PRECIS_SLEEP_MAX_BACKOFF` (seconds, or
 * durations such as `5 minutes`), `PRECIS_SLEEP_MIN_UNPROCESSED_TURNS`,
 * `PRECIS_SLEEP_BATCH_SIZE`, `PRECIS_SLEEP_PARALLEL_SESSIONS` (integers), `PRECIS_SLEEP_SOFT_MARK` (a number).
 * Each is checked against {@link Options}, a bad one an `InvalidData` error at
 * its variable. The budget is not read here: it is the compaction's
 * (`PRECIS_COMPACTION_BUDGET`), given in the overrides of {@link layerConfig}.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = OptionConfig.config("PRECIS_SLEEP_", Configurable)

/**
 * The Sleep Mode layer with its options read from {@link config} (or the given
 * `Config`); `overrides` (sessions, budget, compaction options, flags) go on top,
 * except those that are `undefined`.
 *
 * @since 0.1.0
 */
export const layerConfig = (
  overrides: Options = {},
  options: Config.Config<Options> = config
): Layer.Layer<
  SleepMode,
  InvalidSleepOptionsError | ConfigError.ConfigError,
  CompactionManager | TurnStore.TurnStore | SearchIndex.SearchIndex
> =>
  Layer.scoped(
    SleepMode,
    Effect.flatMap(options, (read) =>
      make({
        ...read,
        // An `undefined` override keeps the value read.
        ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined))
      }))
  )
