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
 *   (`FactCheck.isAlsoKey`: paths, identifiers, error names, issue ids,
 *   commands run) appended as one `Also: a; b; c` line, as many as fit within
 *   its target tokens (never past it; none when the summary alone reaches
 *   it); Also lines the summary already holds (its children's) merge into it.
 * - **Assembling**: {@link Service.assemble} runs the `Condenser` pipeline, with
 *   this DAG as its summarize stage, then fills what the budget leaves from
 *   the DAG (`Expansion`); the result is never over the budget.
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
 * @since 0.1.0
 */
import { ConversationTurn, FactCheck, Material, Summarizer, Summary, TokenEstimator, ToolUse } from "@precis/core"
import { DagStore, type StoreError, TurnStore, WorkQueue } from "@precis/store"
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as ActiveContext from "./ActiveContext.js"
import * as CompactionOptions from "./CompactionOptions.js"
import * as Condenser from "./Condenser.js"
import * as Expansion from "./Expansion.js"
import * as Plan from "./internal/plan.js"

/**
 * What a compaction reports while it works, for a progress bar.
 *
 * @since 0.1.0
 */
export type ProgressEvent = Data.TaggedEnum<{
  /** The leaf pass is about to summarize `turns` turns in `chunks` chunks. */
  LeafPassStarted: { readonly sessionId: string; readonly chunks: number; readonly turns: number }
  /** A leaf was written; `tiers` counts the summaries of this run so far. */
  LeafWritten: {
    readonly sessionId: string
    readonly done: number
    readonly total: number
    readonly tiers: Summary.TierCounts
  }
  /** `groups` groups of depth `depth` are about to be condensed. */
  CondenseStarted: { readonly sessionId: string; readonly depth: number; readonly groups: number }
  /** A condensed summary of depth `depth + 1` was written. */
  CondensedWritten: {
    readonly sessionId: string
    readonly depth: number
    readonly done: number
    readonly total: number
    readonly tiers: Summary.TierCounts
  }
}>

/**
 * Constructors and matchers of {@link ProgressEvent}.
 *
 * @since 0.1.0
 */
export const ProgressEvent = Data.taggedEnum<ProgressEvent>()

/**
 * What one compaction did.
 *
 * @since 0.1.0
 */
export interface CompactionStats {
  readonly leafSummariesCreated: number
  readonly condensedSummariesCreated: number
  /** Turns newly covered by leaves. */
  readonly turnsCompacted: number
  /** The tiers of the summaries this run created. */
  readonly tiersUsed: Summary.TierCounts
}

/**
 * What {@link Service.compactAll} did to one session (the sum of its runs,
 * when new turns gave it work again).
 *
 * @since 0.3.0
 */
export interface SessionCompactionStats extends CompactionStats {
  readonly sessionId: string
}

/**
 * What one {@link Service.compactAll} did: the sessions it compacted (in the
 * order it first finished each), the totals, and how often it found a session
 * with work held by another worker and went on to the next.
 *
 * @since 0.3.0
 */
export interface CompactAllStats {
  readonly sessions: ReadonlyArray<SessionCompactionStats>
  readonly totals: CompactionStats
  /** Times a session with work was skipped because another holder had its lease. */
  readonly skippedLocked: number
}

/**
 * The options of {@link Service.compactAll}: the compaction's, and how long to
 * wait before looking again when every session left with work is held by
 * another worker (default 100 milliseconds).
 *
 * @since 0.3.0
 */
export interface CompactAllOptions extends CompactionOptions.Options {
  readonly retryDelay?: Duration.DurationInput | undefined
}

/**
 * What a redo of fallback summaries did (see {@link Service.redoFallbacks}).
 *
 * @since 0.2.0
 */
export interface RedoStats {
  /** Fallback summaries rewritten by a model tier. */
  readonly redone: number
  /** Fallback summaries whose redo fell back again (kept as they were). */
  readonly stillFallback: number
  /** The tiers of the new summaries, the ones kept and the ones not. */
  readonly tiersUsed: Summary.TierCounts
}

/**
 * The provider failed in a way that will not heal (refused credentials, an
 * unknown model, a server that refuses connections: see
 * `ProviderError.isPermanent`), so compaction stopped instead of storing a
 * fallback truncation for every chunk. What was written before stays; a rerun
 * once the configuration is fixed goes on from there. `reason` is the last
 * error's tag and `detail` its message.
 *
 * @since 0.2.0
 */
export class ProviderUnavailableError extends Data.TaggedError("ProviderUnavailableError")<{
  readonly sessionId: string
  readonly reason: string
  readonly detail: string
  /** Summaries written by this run before it stopped. */
  readonly written: number
}> {
  override get message(): string {
    return `compaction of session ${this.sessionId} stopped: the provider fails in a way that will not heal ` +
      `(${this.reason}: ${this.detail}); ${this.written} summaries were written before it stopped`
  }
}

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
 * The options of {@link Service.assemble}: the condenser's (a `budget` and the
 * stages' settings), whether it may compact, and the compaction's options.
 *
 * @since 0.1.0
 */
export interface AssembleOptions extends Condenser.Options {
  /** Whether the summarize stage may compact the session (write summaries). Default true. */
  readonly compact?: boolean | undefined
  /**
   * Whether (and how) a context under the budget is filled from the summary
   * DAG (see the `Expansion` module): `false` turns it off, an object sets its
   * `reserve` and `turns`. Default on, with `Expansion.defaults`. Nothing
   * stored changes.
   *
   * @since 0.3.0
   */
  readonly expand?: boolean | Omit<Expansion.Options, "budget"> | undefined
  /** Overrides of the layer's compaction options (the `budget` is this call's). */
  readonly compaction?: CompactionOptions.Options | undefined
  /**
   * Whether the session-state header (`SessionState`) goes first. Default true.
   *
   * @since 0.3.0
   */
  readonly sessionState?: boolean | undefined
  /**
   * The share of the budget the header may take, `0 <= stateShare < 1`
   * (default `ActiveContext.defaultStateShare`, 0.15); the rest is the summaries' and turns'.
   *
   * @since 0.3.0
   */
  readonly stateShare?: number | undefined
}

/**
 * An assembled context: the session, its session-state header, its condensed
 * summaries and turns, their tokens (the header's included; never over the
 * budget) and the per-stage report (of the summaries and turns).
 *
 * @since 0.1.0
 */
export interface Assembled extends Condenser.Condensed {
  readonly sessionId: string
  /**
   * The session-state header, first in the context (`""` when off or empty).
   *
   * @since 0.3.0
   */
  readonly header: string
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
  /**
   * What an agent sends to its model, within `budget`: the active context
   * through the Condenser Pipeline (mask, forget, summarize, window). The
   * summarize stage is the summary DAG: when the context is still over
   * `threshold * budget` after masking and forgetting (and `compact` is not
   * false), it compacts the session with `budget` as an option (a fresh tail
   * bounded in tokens, down to the low-water mark) and goes on with what is
   * left uncovered. Then, unless `expand` is false, a context under the
   * budget is filled from the DAG (`Expansion`: summaries shown as their
   * children, the newest leaves as their turns) up to `(1 - reserve) * budget`.
   * The result is never over the budget; its report says which stages acted.
   */
  readonly assemble: (
    sessionId: string,
    options: AssembleOptions
  ) => Effect.Effect<Assembled, StoreError.StoreError | CompactionOptions.InvalidOptionsError>
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

const noStats: CompactionStats = {
  leafSummariesCreated: 0,
  condensedSummariesCreated: 0,
  turnsCompacted: 0,
  tiersUsed: Summary.emptyTierCounts
}

const addStats = (a: CompactionStats, b: CompactionStats): CompactionStats => ({
  leafSummariesCreated: a.leafSummariesCreated + b.leafSummariesCreated,
  condensedSummariesCreated: a.condensedSummariesCreated + b.condensedSummariesCreated,
  turnsCompacted: a.turnsCompacted + b.turnsCompacted,
  tiersUsed: {
    normal: a.tiersUsed.normal + b.tiersUsed.normal,
    aggressive: a.tiersUsed.aggressive + b.tiersUsed.aggressive,
    fallback: a.tiersUsed.fallback + b.tiersUsed.fallback
  }
})

// The layer's options with a call's overrides on top (an `undefined` override keeps the layer's value).
const mergeOptions = (base: CompactionOptions.Options, overrides: CompactionOptions.Options | undefined) =>
  overrides === undefined ? base : { ...base, ...dropUndefined(overrides) }

const dropUndefined = (options: CompactionOptions.Options): CompactionOptions.Options =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as CompactionOptions.Options

/**
 * The parts of the store port the engine works with.
 *
 * @since 0.3.0
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
  const turnStore = yield* TurnStore.TurnStore
  const dag = yield* DagStore.DagStore
  const queue = yield* WorkQueue.WorkQueue
  const stores = yield* Effect.context<Stores>()
  const summarizer = yield* Summarizer.Summarizer
  const estimator = yield* TokenEstimator.TokenEstimator
  const locks = yield* Ref.make(new Map<string, Effect.Semaphore>())

  const resolve = (overrides: CompactionOptions.Options | undefined, budget?: number) =>
    Effect.suspend(() => CompactionOptions.resolveOptions(mergeOptions(options, overrides), budget))

  const turnTokens = (turn: ConversationTurn.ConversationTurn) => ActiveContext.turnTokens(estimator, turn)

  const lockFor = (sessionId: string) =>
    Ref.modify(locks, (map): [Effect.Semaphore, Map<string, Effect.Semaphore>] => {
      const existing = map.get(sessionId)
      if (existing !== undefined) return [existing, map]
      const created = Effect.unsafeMakeSemaphore(1)
      return [created, new Map(map).set(sessionId, created)]
    })

  const withStore = <A, E>(effect: Effect.Effect<A, E, Stores>) => Effect.provide(effect, stores)

  const context: Service["context"] = (sessionId) =>
    ActiveContext.load(sessionId).pipe(
      Effect.provide(stores),
      Effect.provideService(TokenEstimator.TokenEstimator, estimator),
      Effect.withSpan("CompactionManager.context", { attributes: { "precis.session_id": sessionId } })
    )

  const status: Service["status"] = (sessionId, budget, overrides) =>
    Effect.gen(function*() {
      const opts = yield* resolve(overrides, budget)
      return Plan.status(yield* context(sessionId), budget, opts, tailBound(opts.freshTailTokens))
    })

  const shouldCompact: Service["shouldCompact"] = (sessionId, budget, overrides) =>
    Effect.map(status(sessionId, budget, overrides), (s) => s.shouldCompact)

  // A fallback caused by a provider that will not heal is not stored: the run stops.
  const usable = (sessionId: string, written: Ref.Ref<number>) => (summary: Summary.Summary) =>
    summary.failedPermanently
      ? Effect.flatMap(Ref.get(written), (n) => {
        const last = summary.escalations[summary.escalations.length - 1]!
        return Effect.fail(
          new ProviderUnavailableError({ sessionId, reason: last.reason, detail: last.message, written: n })
        )
      })
      : Effect.succeed(summary)

  // The Also line (see the module notes); the keys it lists are no longer dropped.
  const withAlso = (opts: CompactionOptions.ResolvedOptions, targetTokens: number) => (summary: Summary.Summary) => {
    if (!opts.alsoLine) return summary
    const text = FactCheck.appendAlso(summary.text, summary.dropped, estimator, { maxTokens: targetTokens })
    return text === summary.text ? summary : new Summary.Summary({
      ...summary,
      text,
      outputTokens: estimator.estimate(text),
      dropped: FactCheck.checkKeys(summary.dropped, text).dropped
    }, true)
  }

  const tailBound = (maxTokens: number | undefined): Plan.TailTokens<ConversationTurn.ConversationTurn> | undefined =>
    maxTokens === undefined ? undefined : { max: maxTokens, tokens: turnTokens }

  const run = (sessionId: string, opts: CompactionOptions.ResolvedOptions) =>
    Effect.gen(function*() {
      const tiers = yield* Ref.make(Summary.emptyTierCounts)
      const written = yield* Ref.make(0)
      const check = usable(sessionId, written)
      const report = (event: ProgressEvent) => (opts.onProgress === undefined ? Effect.void : opts.onProgress(event))
      const countTier = (tier: Summary.Tier) => Ref.updateAndGet(tiers, (c) => Summary.incrementTier(c, tier))

      // The uncovered turns the first leaf pass read: the session state is folded from them.
      let read: ReadonlyArray<TurnStore.StoredTurn> | undefined

      // Leaf pass: sequential, each leaf continues from the previous one. Returns the leaves and turns.
      const leafPass = (tailTokens: number | undefined, maxTurns: number | undefined) =>
        Effect.gen(function*() {
          const uncovered = yield* turnStore.uncoveredTurns(sessionId)
          read ??= uncovered
          const evictable = Plan.bounded(Plan.evictable(uncovered, opts.freshTailTurns, tailBound(tailTokens)), maxTurns)
          // A chunk too small to say anything is measured by what a summarizer reads of it.
          const material = new Map(Material.renderEach(evictable).map((text, i) => [evictable[i]!, estimator.estimate(text)]))
          const chunks = Plan.chunk(
            evictable,
            turnTokens,
            opts.leafChunkTokens,
            ConversationTurn.isToolResult,
            Plan.minLeafMaterial(opts.leafChunkTokens),
            { pairs: { calls: ToolUse.callIds, answers: ToolUse.answeredIds }, weight: (turn) => material.get(turn) ?? 0 }
          )
          if (chunks.length > 0) {
            yield* report(ProgressEvent.LeafPassStarted({ sessionId, chunks: chunks.length, turns: evictable.length }))
          }
          let prior = Option.getOrUndefined(Option.map(yield* dag.latestLeaf(sessionId), (leaf) => leaf.content))
          for (const [index, turns] of chunks.entries()) {
            yield* Effect.gen(function*() {
              const summary = yield* Effect.flatMap(
                summarizer.summarizeTurns(turns, { priorSummary: prior, targetTokens: opts.leafTargetTokens }),
                check
              ).pipe(Effect.map(withAlso(opts, opts.leafTargetTokens)))
              yield* dag.insertLeaf({
                sessionId,
                content: summary.text,
                tier: summary.tier,
                tokenEstimate: summary.outputTokens,
                turnIds: turns.map((turn) => turn.id)
              })
              yield* Ref.update(written, (n) => n + 1)
              prior = summary.text
              const counts = yield* countTier(summary.tier)
              yield* report(
                ProgressEvent.LeafWritten({ sessionId, done: index + 1, total: chunks.length, tiers: counts })
              )
            }).pipe(
              Effect.withSpan("CompactionManager.leaf", {
                attributes: { "precis.session_id": sessionId, "precis.turns": turns.length, "precis.chunk": index }
              })
            )
          }
          return { leaves: chunks.length, turns: evictable.length }
        })

      // Condensation: the lowest depth with enough parentless siblings first, until none has.
      const condensation = Effect.gen(function*() {
        let condensed = 0
        while (true) {
          const next = Plan.nextToCondense(yield* dag.parentless(sessionId), opts.minFanIn)
          if (next === undefined) break
          const { depth, siblings } = next
          const groups = Plan.condenseGroups(siblings, opts.minFanIn, opts.maxFanIn)
          yield* report(ProgressEvent.CondenseStarted({ sessionId, depth, groups: groups.length }))
          const done = yield* Ref.make(0)
          yield* Effect.forEach(
            groups,
            (children) =>
              Effect.gen(function*() {
                const summary = yield* Effect.flatMap(
                  summarizer.summarizeSummaries(children, { targetTokens: opts.condenseTargetTokens }),
                  check
                ).pipe(Effect.map(withAlso(opts, opts.condenseTargetTokens)))
                yield* dag.insertCondensed({
                  sessionId,
                  content: summary.text,
                  tier: summary.tier,
                  tokenEstimate: summary.outputTokens,
                  childIds: children.map((child) => child.id)
                })
                yield* Ref.update(written, (x) => x + 1)
                const counts = yield* countTier(summary.tier)
                const n = yield* Ref.updateAndGet(done, (x) => x + 1)
                yield* report(
                  ProgressEvent.CondensedWritten({ sessionId, depth, done: n, total: groups.length, tiers: counts })
                )
              }).pipe(
                Effect.withSpan("CompactionManager.condense", {
                  attributes: {
                    "precis.session_id": sessionId,
                    "precis.depth": depth,
                    "precis.children": children.length
                  }
                })
              ),
            { concurrency: opts.concurrency, discard: true }
          )
          condensed += groups.length
        }
        return condensed
      })

      const first = yield* leafPass(opts.freshTailTokens, opts.maxTurns)
      let condensed = yield* condensation
      let leaves = first.leaves
      let turnsCompacted = first.turns
      // The low-water mark: with a budget, a second pass shrinks the tail to what the summaries leave of it.
      const turnsLeft = opts.maxTurns === undefined ? undefined : opts.maxTurns - first.turns
      if (opts.budget !== undefined && turnsLeft !== 0) {
        const goal = opts.lowWater * opts.budget
        const active = yield* context(sessionId)
        if (active.tokens > goal) {
          const summaryTokens = active.summaries.reduce((n, s) => n + ActiveContext.summaryTokens(estimator, s), 0)
          const tailTokens = Math.max(0, Math.floor(goal - summaryTokens))
          const second = yield* leafPass(Math.min(tailTokens, opts.freshTailTokens ?? tailTokens), turnsLeft)
          if (second.leaves > 0) condensed += yield* condensation
          leaves += second.leaves
          turnsCompacted += second.turns
        }
      }

      // A run that summarized turns brings the stored session state up to date (to the last turn its first
      // leaf pass read, without reading the turns again), for readers that cannot write.
      if (turnsCompacted > 0) yield* sessionState(sessionId, read)

      const stats: CompactionStats = {
        leafSummariesCreated: leaves,
        condensedSummariesCreated: condensed,
        turnsCompacted,
        tiersUsed: yield* Ref.get(tiers)
      }
      yield* Effect.annotateCurrentSpan({
        "precis.leaves": stats.leafSummariesCreated,
        "precis.condensed": stats.condensedSummariesCreated,
        "precis.turns_compacted": stats.turnsCompacted
      })
      return stats
    })

  const compact: Service["compact"] = (sessionId, overrides) =>
    Effect.gen(function*() {
      const opts = yield* resolve(overrides)
      const lock = yield* lockFor(sessionId)
      // The semaphore orders this process's fibers; the store's lease, other processes.
      return yield* lock.withPermits(1)(queue.withSessionLease(sessionId, run(sessionId, opts)))
    }).pipe(Effect.withSpan("CompactionManager.compact", { attributes: { "precis.session_id": sessionId } }))

  // Whether a compaction of the session would write anything (as `status` counts it, without a budget).
  // Reads the store only (no token estimate of the whole context, unless the tail is bounded in tokens).
  const hasWork = (sessionId: string, opts: CompactionOptions.ResolvedOptions) =>
    Effect.map(
      Effect.all([turnStore.uncoveredTurns(sessionId), dag.parentless(sessionId)]),
      ([uncovered, parentless]) =>
        Plan.tailStart(uncovered, opts.freshTailTurns, tailBound(opts.freshTailTokens)) > 0 ||
        Plan.nextToCondense(parentless, opts.minFanIn) !== undefined
    )

  // Runs the claimed session's compaction when its semaphore and lease are free now and it still has
  // work (another worker may have finished it since it was queued); `taken` tells whether both were free.
  // Holding the lease, it takes the session off the queue once it has no work left (the store keeps it
  // queued when turns came in since the claim).
  const tryCompact = (claim: WorkQueue.WorkClaim, opts: CompactionOptions.ResolvedOptions) =>
    Effect.gen(function*() {
      const lock = yield* lockFor(claim.sessionId)
      const settle = Effect.flatMap(hasWork(claim.sessionId, opts), (work) => work ? Effect.void : queue.settleWork(claim))
      const attempt = yield* lock.withPermitsIfAvailable(1)(
        queue.tryWithSessionLease(
          claim.sessionId,
          Effect.flatMap(hasWork(claim.sessionId, opts), (work) =>
            work
              ? Effect.asSome(Effect.zipLeft(run(claim.sessionId, opts), settle))
              : Effect.as(queue.settleWork(claim), Option.none()))
        )
      )
      const outcome = Option.flatten(attempt)
      return { taken: Option.isSome(outcome), stats: Option.flatten(outcome) }
    }).pipe(Effect.withSpan("CompactionManager.compact", { attributes: { "precis.session_id": claim.sessionId } }))

  const compactAll: Service["compactAll"] = (overrides) =>
    Effect.gen(function*() {
      const { retryDelay, ...compaction } = overrides ?? {}
      const opts = yield* resolve(compaction)
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
          yield* Effect.sleep(retryDelay ?? Duration.millis(100))
          held.clear()
        }
        const { stats, taken } = yield* tryCompact(claim, opts)
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
      return { sessions, totals, skippedLocked } satisfies CompactAllStats
    }).pipe(Effect.withSpan("CompactionManager.compactAll"))

  const redo = (sessionId: string, opts: CompactionOptions.ResolvedOptions) =>
    Effect.gen(function*() {
      const written = yield* Ref.make(0)
      const check = usable(sessionId, written)
      let tiers = Summary.emptyTierCounts
      let redone = 0
      let stillFallback = 0
      // Lowest depth first, so a condensed node is redone from children already redone.
      const all = yield* dag.summaries(sessionId)
      const leaves = all.filter((s) => s.depth === 0)
      // The text of each leaf as it is now: a redone leaf is the prior summary of the next.
      const leafText = new Map(leaves.map((leaf) => [leaf.id, leaf.content]))
      const fallbacks = all.filter((s) => s.tier === "fallback").sort((a, b) => a.depth - b.depth)
      for (const old of fallbacks) {
        const summary = yield* Effect.flatMap(
          old.depth === 0
            ? Effect.flatMap(dag.sourceTurns(old.id), (turns) => {
              const before = leaves[leaves.findIndex((leaf) => leaf.id === old.id) - 1]
              return summarizer.summarizeTurns(turns, {
                priorSummary: before === undefined ? undefined : leafText.get(before.id),
                targetTokens: opts.leafTargetTokens
              })
            })
            : Effect.flatMap(
              dag.children(old.id),
              (children) => summarizer.summarizeSummaries(children, { targetTokens: opts.condenseTargetTokens })
            ),
          check
        ).pipe(Effect.map(withAlso(opts, old.depth === 0 ? opts.leafTargetTokens : opts.condenseTargetTokens)))
        tiers = Summary.incrementTier(tiers, summary.tier)
        if (summary.tier === "fallback") {
          stillFallback++
          continue
        }
        yield* dag.rewriteSummary(old.id, {
          content: summary.text,
          tier: summary.tier,
          tokenEstimate: summary.outputTokens
        })
        if (old.depth === 0) leafText.set(old.id, summary.text)
        yield* Ref.update(written, (n) => n + 1)
        redone++
      }
      return { redone, stillFallback, tiersUsed: tiers } satisfies RedoStats
    })

  const redoFallbacks: Service["redoFallbacks"] = (sessionId, overrides) =>
    Effect.gen(function*() {
      const opts = yield* resolve(overrides)
      const lock = yield* lockFor(sessionId)
      return yield* lock.withPermits(1)(queue.withSessionLease(sessionId, redo(sessionId, opts)))
    }).pipe(Effect.withSpan("CompactionManager.redoFallbacks", { attributes: { "precis.session_id": sessionId } }))


  // The summarize stage over the DAG: compacts, then keeps the (already condensed) turns left uncovered.
  const dagStage = (sessionId: string, budget: number, options: CompactionOptions.Options): Condenser.Stage => ({
    name: "summarize",
    run: (current, tokens) =>
      Effect.gen(function*() {
        const opts = yield* resolve(options, budget)
        if (tokens <= opts.threshold * budget) return { context: current, counts: {} }
        const stats = yield* compact(sessionId, options)
        if (stats.turnsCompacted === 0 && stats.condensedSummariesCreated === 0) return { context: current, counts: {} }
        const [summaries, uncovered] = yield* Effect.all([dag.parentless(sessionId), turnStore.uncoveredTurns(sessionId)])
        const ids = new Set(uncovered.map((turn) => turn.id))
        return {
          context: { summaries, turns: current.turns.filter((turn) => turn.id !== undefined && ids.has(turn.id)) },
          counts: { summarized: stats.turnsCompacted }
        }
      }).pipe(
        // A stage never fails: a failed compaction leaves the context to the window.
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning("CompactionManager.assemble: compaction failed", error.message), {
            context: current,
            counts: {}
          })
        )
      )
  })

  // The session state carried forward and saved; a failed save costs the next load a longer fold, nothing more.
  const sessionState = (sessionId: string, read?: ReadonlyArray<TurnStore.StoredTurn>) =>
    Effect.tap(
      withStore(ActiveContext.loadState(sessionId, read)),
      (loaded) =>
        withStore(ActiveContext.saveState(loaded)).pipe(
          Effect.catchAll((error) => Effect.logWarning("CompactionManager: saving the session state failed", error.message))
        )
    )

  const assemble: Service["assemble"] = (sessionId, options) =>
    Effect.gen(function*() {
      const { compact: mayCompact, compaction, expand, sessionState: withState, stateShare, ...given } = options
      const share = stateShare ?? ActiveContext.defaultStateShare
      if (!(Number.isFinite(share) && share >= 0 && share < 1)) {
        return yield* new CompactionOptions.InvalidOptionsError({
          problems: [{ option: "stateShare", message: `must be a number >= 0 and < 1 (got ${share})` }]
        })
      }
      yield* Condenser.decodeOptions(given)
      yield* resolve({ ...compaction, budget: given.budget }, given.budget)
      const active = yield* context(sessionId)
      // The state folds the uncovered turns just read, not a second read of them.
      const header = withState === false
        ? ""
        : ActiveContext.header(estimator, (yield* sessionState(sessionId, active.turns)).state, given.budget, share)
      // The header counts against the budget: the summaries and turns get the rest, less a token
      // for the separator after it (and the rounding of two estimates of one text).
      const headerTokens = header.length === 0 ? 0 : estimator.estimate(header)
      const condenser = { ...given, budget: Math.max(1, given.budget - headerTokens - (header.length === 0 ? 0 : 1)) }
      const overrides: CompactionOptions.Options = { ...compaction, budget: condenser.budget }
      const fitting = mayCompact === false
        ? Condenser.fitStages(condenser)
        : Condenser.stages(condenser, dagStage(sessionId, condenser.budget, overrides))
      const expanding = expand === false
        ? []
        : [Expansion.stage({ ...(expand === true ? {} : expand), budget: condenser.budget })]
      const condensed = yield* Condenser.pipeline<DagStore.DagStore>([...fitting, ...expanding])(active)
      return { sessionId, header, ...condensed, tokens: condensed.tokens + headerTokens }
    }).pipe(
      Effect.provideService(TokenEstimator.TokenEstimator, estimator),
      Effect.provide(stores),
      Effect.withSpan("CompactionManager.assemble", { attributes: { "precis.session_id": sessionId } })
    )

  return CompactionManager.of({ shouldCompact, status, compact, compactAll, redoFallbacks, context, assemble })
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
