/**
 * The compaction engine: decides what to compress and when, and keeps the
 * summary DAG in the store (`TurnStore`, `DagStore`, `WorkQueue` of `@precis/store`).
 *
 * - **Active context** (see the `ActiveContext` module): the parentless
 *   summaries (in conversation order) and the turns no leaf covers yet. It is
 *   what an agent sends to its model, and what {@link Service.shouldCompact}
 *   measures; compaction shrinks it, so the trigger stops firing once
 *   compaction has done its work.
 * - **Options**: see the `CompactionOptions` module (defaults, validation, `Config`).
 * - **Leaf pass**: the uncovered turns except the fresh tail are cut into greedy
 *   chunks of at most `leafChunkTokens` (a larger turn is a chunk of its own)
 *   and summarized one after the other, each with the newest leaf as prior summary.
 *   A chunk never starts with a tool result: the call moves to the chunk of its
 *   results (or the chunk grows past the limit when it holds nothing else), so
 *   a leaf never separates them and neither does an interrupted pass; results
 *   are paired with their calls by call id, so parallel calls and their
 *   results stay in one leaf. A chunk whose material (`Material.renderEach`:
 *   what the summarizer reads of it) is under 400 tokens (half a smaller
 *   `leafChunkTokens`) merges with its smaller neighbour, so no leaf
 *   is made of one short turn or of one large file read.
 * - **Condensation**: from the lowest depth up, while a depth holds at least
 *   `minFanIn` parentless summaries, they are condensed in conversation order in
 *   groups of `minFanIn..maxFanIn` (sizes as even as possible), the groups of one
 *   depth concurrently; a remainder smaller than `minFanIn` waits for a later run.
 * - **Fresh tail**: the newest `freshTailTurns` uncovered turns are never
 *   summarized. The boundary never separates a tool result from the call before
 *   it: while the first tail turn is a tool result (`ConversationTurn.isToolResult` in `@precis/core`),
 *   the boundary moves one turn earlier, so the call joins its result in the tail.
 *   With `maxTurns`, a run summarizes at most that many of the oldest evictable
 *   turns (cut before a tool result's call; past the results when that would
 *   leave nothing), so a run in idle time (`SleepMode`) stays short.
 *   With `freshTailTokens` (by default a quarter of `budget`, when that option
 *   is given) the tail is also at most that many tokens (moved later past tool
 *   results); with a `budget` option, a compaction left over `lowWater * budget`
 *   runs a second leaf pass with the tail cut to what the summaries leave.
 * - **Also line** (`alsoLine`, on by default): a summary that dropped
 *   must-survive keys of its material (`Summary.dropped`, the Summarizer's fact
 *   check) is stored with the most important of those that belong there
 *   (`AlsoLine.isKey`: paths, identifiers, error names, issue ids,
 *   commands run) appended as one `Also: a; b; c` line, as many as fit within
 *   its target tokens (never past it; none when the summary alone reaches
 *   it); Also lines the summary already holds (its children's) merge into it.
 * - **Assembling** the context an agent sends within a budget, with this DAG
 *   as the Condenser's summarize stage, is `@precis/context`'s `Assembler`.
 * - **Safety**: one compaction per session at a time, across fibers and
 *   processes (a semaphore per session, inside the store's session lease:
 *   `WorkQueue.withSessionLease`); others wait, then find nothing to do.
 *   Each summary is written with its links in one transaction, so an
 *   interrupted run leaves a consistent store that a rerun completes.
 * - **Workers**: {@link Service.compactAll} takes sessions from the store's
 *   work queue (`WorkQueue.claimWork`: one indexed statement, the sessions
 *   turns were appended to; idle sessions cost nothing), compacts each under
 *   `WorkQueue.tryWithSessionLease`, skipping those another worker holds
 *   (coming back to them until the queue is empty), and takes a session off
 *   the queue once it has no work left (`WorkQueue.settleWork`). So any
 *   number of processes over one store share the sessions out.
 *
 * The engine's parts are internal modules, one job each: the leaf pass, the
 * condensation and the redo of fallbacks each write their summaries through
 * one step (summarize, stop on a provider that will not heal, Also line,
 * write, count); the chunking, the trigger, the workers and the per-session
 * lock apart. `make` wires them to the layer's store and Summarizer.
 *
 * @since 0.1.0
 */
import { Summarizer, TokenEstimator } from "@precis/core"
import type { DagStore, StoreError, TurnStore, WorkQueue } from "@precis/store"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ActiveContext from "./ActiveContext.js"
import type { ProviderUnavailableError } from "./CompactionError.js"
import * as CompactionOptions from "./CompactionOptions.js"
import * as Engine from "./internal/engine.js"
import type { CompactAllStats, CompactionStats, RedoStats, SessionCompactionStats } from "./internal/outcome.js"
import * as Redo from "./internal/redo.js"
import * as SessionLock from "./internal/sessionLock.js"
import * as Trigger from "./internal/trigger.js"
import * as Workers from "./internal/workers.js"

export type {
  /**
   * What a compaction, a session's runs and a worker loop did, and what a redo
   * of fallback summaries did: declared once, in the engine's outcome module.
   *
   * @since 0.1.0
   */
  CompactAllStats,
  /** @since 0.1.0 */
  CompactionStats,
  /** @since 0.1.0 */
  RedoStats,
  /** @since 0.1.0 */
  SessionCompactionStats
}

/**
 * The options of {@link Service.compactAll}: the compaction's, and how long to
 * wait before looking again when every session left with work is held by
 * another worker (default 100 milliseconds).
 *
 * @since 0.1.0
 */
export interface CompactAllOptions extends CompactionOptions.Options {
  readonly retryDelay?: Duration.DurationInput | undefined
}

export {
  /**
   * The provider failed in a way that will not heal, so compaction stopped
   * (see the `CompactionError` module).
   *
   * @since 0.1.0
   * @category Errors
   */
  ProviderUnavailableError
} from "./CompactionError.js"

/**
 * Where a session stands against a budget.
 *
 * @since 0.1.0
 */
export interface CompactionStatus {
  /** Tokens of the active context (see `ActiveContext.tokens`). */
  readonly activeTokens: number
  /** `threshold * budget`. */
  readonly limit: number
  /** Uncovered turns outside the fresh tail (what a leaf pass would summarize). */
  readonly evictableTurns: number
  /** Whether some depth holds at least `minFanIn` parentless summaries. */
  readonly condensable: boolean
  /** `activeTokens > limit` and there is something to compact. */
  readonly shouldCompact: boolean
}

/**
 * @since 0.1.0
 */
export interface Service {
  /**
   * True when the active context's tokens strictly exceed `threshold * budget`
   * (`>`: exactly at the limit is not over) and compaction has something to do
   * (evictable turns or a condensable depth), so it stops firing once
   * compaction has done all it can.
   */
  readonly shouldCompact: (
    sessionId: string,
    budget: number,
    options?: CompactionOptions.Options
  ) => Effect.Effect<boolean, StoreError.StoreError | CompactionOptions.InvalidOptionsError>
  /** The figures behind {@link Service.shouldCompact}. */
  readonly status: (
    sessionId: string,
    budget: number,
    options?: CompactionOptions.Options
  ) => Effect.Effect<CompactionStatus, StoreError.StoreError | CompactionOptions.InvalidOptionsError>
  /**
   * Runs a leaf pass and condensation (see the module notes); per-call options
   * override the layer's. Stops with a {@link ProviderUnavailableError} (storing
   * nothing for that chunk) when a summary fell back because the provider fails
   * permanently.
   */
  readonly compact: (
    sessionId: string,
    options?: CompactionOptions.Options
  ) => Effect.Effect<CompactionStats, StoreError.StoreError | CompactionOptions.InvalidOptionsError | ProviderUnavailableError>
  /**
   * Compacts every session of the store's work queue that has work (evictable
   * turns or a condensable depth), each as {@link Service.compact} does, and
   * returns when the queue is empty. The queue holds the sessions turns were
   * appended to since a worker last found them without work (and, after the
   * upgrade to it, every session once): a session compacted with
   * {@link Service.compact} alone stays queued until a worker finds it done.
   * A session whose lease another holder has (another worker, in this process
   * or another) is skipped, not waited for, and claimed again once the others
   * are done; so N workers over one store each take different sessions and
   * none idles while a free session has work.
   */
  readonly compactAll: (
    options?: CompactAllOptions
  ) => Effect.Effect<
    CompactAllStats,
    StoreError.StoreError | CompactionOptions.InvalidOptionsError | ProviderUnavailableError
  >
  /**
   * Summarizes again every fallback summary of a session, lowest depth first
   * (a leaf from its source turns, after the leaf before it; a condensed node
   * from its children), and rewrites it in place when a model tier wrote the
   * new one (`DagStore.rewriteSummary`: one statement, links unchanged).
   * One run per session at a time, like {@link Service.compact}.
   */
  readonly redoFallbacks: (
    sessionId: string,
    options?: CompactionOptions.Options
  ) => Effect.Effect<RedoStats, StoreError.StoreError | CompactionOptions.InvalidOptionsError | ProviderUnavailableError>
  /**
   * The active context: parentless summaries in conversation order, then the
   * uncovered turns (`ActiveContext.load` with this manager's store and estimator).
   */
  readonly context: (sessionId: string) => Effect.Effect<ActiveContext.ActiveContext, StoreError.StoreError>
}

/**
 * The CompactionManager service tag.
 *
 * @since 0.1.0
 */
export class CompactionManager extends Context.Tag("@precis/compaction/CompactionManager")<
  CompactionManager,
  Service
>() {}

// The layer's options with a call's overrides on top (an `undefined` override keeps the layer's value).
const mergeOptions = (base: CompactionOptions.Options, overrides: CompactionOptions.Options | undefined) =>
  overrides === undefined ? base : { ...base, ...dropUndefined(overrides) }

const dropUndefined = (options: CompactionOptions.Options): CompactionOptions.Options =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as CompactionOptions.Options


/**
 * The parts of the store port the engine works with.
 *
 * @since 0.1.0
 */
export type Stores = TurnStore.TurnStore | DagStore.DagStore | WorkQueue.WorkQueue

/**
 * Builds the manager over the store (`TurnStore`, `DagStore`, `WorkQueue`) and
 * the `Summarizer` in context; the
 * `TokenEstimator` defaults to the core approximation. `options` are the
 * defaults of every call.
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: CompactionOptions.Options = {}) {
  // Options that make no sense fail the build; each call's overrides are checked again with them.
  yield* CompactionOptions.resolveOptions(options)
  const lock = yield* SessionLock.make
  const layerContext = yield* Effect.context<Stores | Summarizer.Summarizer>()
  const estimator = yield* TokenEstimator.TokenEstimator
  // Every call runs over the layer's store, Summarizer and estimator.
  const inLayer = <A, E>(effect: Effect.Effect<A, E, Stores | Summarizer.Summarizer>) =>
    effect.pipe(Effect.provide(layerContext), Effect.provideService(TokenEstimator.TokenEstimator, estimator))
  const traced = (name: string, sessionId: string) =>
    Effect.withSpan(`CompactionManager.${name}`, { attributes: { "precis.session_id": sessionId } })
  // The options a call runs with: the layer's, the call's overrides on top (an `undefined` one keeps the
  // layer's value), the defaults applied, checked; `budget`, when given, checked as `status`'s budget.
  const resolveOptions = (
    overrides?: CompactionOptions.Options,
    budget?: number
  ): Effect.Effect<CompactionOptions.ResolvedOptions, CompactionOptions.InvalidOptionsError> =>
    Effect.suspend(() => CompactionOptions.resolveOptions(mergeOptions(options, overrides), budget))

  const context: Service["context"] = (sessionId) =>
    ActiveContext.load(sessionId).pipe(inLayer, traced("context", sessionId))
  const status: Service["status"] = (sessionId, budget, overrides) =>
    Effect.flatMap(resolveOptions(overrides, budget), (opts) =>
      Effect.map(
        context(sessionId),
        (active) => Trigger.status(active, budget, opts, Trigger.tailBound(estimator, opts.freshTailTokens))
      ))
  const compact: Service["compact"] = (sessionId, overrides) =>
    Effect.flatMap(resolveOptions(overrides), (opts) => lock.withSession(sessionId, Engine.compactSession(sessionId, opts)))
      .pipe(inLayer, traced("compact", sessionId))

  return CompactionManager.of({
    shouldCompact: (sessionId, budget, overrides) => Effect.map(status(sessionId, budget, overrides), (s) => s.shouldCompact),
    status,
    compact,
    compactAll: ({ retryDelay, ...overrides } = {}) =>
      Effect.flatMap(resolveOptions(overrides), (opts) => Workers.compactAll(lock, opts, retryDelay))
        .pipe(inLayer, Effect.withSpan("CompactionManager.compactAll")),
    redoFallbacks: (sessionId, overrides) =>
      Effect.flatMap(resolveOptions(overrides), (opts) => lock.withSession(sessionId, Redo.redoFallbacks(sessionId, opts)))
        .pipe(inLayer, traced("redoFallbacks", sessionId)),
    context
  })
})

/**
 * The manager layer; `options` are the defaults of every call, checked when
 * the layer is built (an `InvalidOptionsError` when they make no sense; each
 * call's overrides are checked with them, on the call). Without options it
 * cannot fail.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Summarizer } from "@precis/core"
 * import { CompactionManager } from "@precis/compaction"
 * import { SqliteStore } from "@precis/store-sqlite"
 * const Live = CompactionManager.layer({ freshTailTurns: 8 }).pipe(
 *   Layer.provide(SqliteStore.layer({ filename: "precis.db" })),
 *   Layer.provide(Summarizer.layer())
 * ) // Layer<CompactionManager, InvalidOptionsError | StoreError, Provider>
 * ```
 * @since 0.1.0
 */
export function layer(): Layer.Layer<CompactionManager, never, Stores | Summarizer.Summarizer>
export function layer(
  options?: CompactionOptions.Options
): Layer.Layer<CompactionManager, CompactionOptions.InvalidOptionsError, Stores | Summarizer.Summarizer>
export function layer(
  options?: CompactionOptions.Options
): Layer.Layer<CompactionManager, CompactionOptions.InvalidOptionsError, Stores | Summarizer.Summarizer> {
  return Layer.effect(CompactionManager, make(options))
}

/**
 * The manager layer with its options read from `CompactionOptions.config` (or the given `Config`).
 *
 * @since 0.1.0
 */
export const layerConfig = (
  options: Config.Config<CompactionOptions.Options> = CompactionOptions.config
): Layer.Layer<
  CompactionManager,
  ConfigError.ConfigError | CompactionOptions.InvalidOptionsError,
  Stores | Summarizer.Summarizer
> => Layer.effect(CompactionManager, Effect.flatMap(options, make))
