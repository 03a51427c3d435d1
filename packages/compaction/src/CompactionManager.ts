/**
 * The compaction engine: decides what to compress and when, and keeps the
 * summary DAG in the {@link MemoryStore}.
 *
 * - **Active context**: the parentless summaries (in conversation order) and
 *   the turns no leaf covers yet. It is what an agent sends to its model, and
 *   what {@link Service.shouldCompact} measures; compaction shrinks it, so the
 *   trigger stops firing once compaction has done its work.
 * - **Leaf pass**: the uncovered turns except the fresh tail are cut into greedy
 *   chunks of at most `leafChunkTokens` (a larger turn is a chunk of its own)
 *   and summarized one after the other, each with the newest leaf as prior summary.
 *   A chunk never starts with a tool result: the call moves to the chunk of its
 *   results (or the chunk grows past the limit when it holds nothing else), so
 *   a leaf never separates them and neither does an interrupted pass.
 * - **Condensation**: from the lowest depth up, while a depth holds at least
 *   `minFanIn` parentless summaries, they are condensed in conversation order in
 *   groups of `minFanIn..maxFanIn` (sizes as even as possible), the groups of one
 *   depth concurrently; a remainder smaller than `minFanIn` waits for a later run.
 * - **Fresh tail**: the newest `freshTailTurns` uncovered turns are never
 *   summarized. The boundary never separates a tool result from the call before
 *   it: while the first tail turn is a tool result (see {@link isToolResult}),
 *   the boundary moves one turn earlier, so the call joins its result in the tail.
 * - **Safety**: one compaction per session at a time (others wait, then find
 *   nothing to do); each summary is written with its links in one transaction,
 *   so an interrupted run leaves a consistent store that a rerun completes.
 *
 * @since 0.1.0
 */
import {
  type ConversationTurn,
  type Provider,
  Summarizer,
  Summary,
  type SummaryRecord,
  TokenEstimator,
  Transcript
} from "@precis/core"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Plan from "./internal/plan.js"
import { MemoryStore, type StoreError, type StoredTurn } from "./MemoryStore.js"

/**
 * Tells whether a turn is a tool result: role `tool` (or the legacy `function`),
 * or metadata with `toolResult: true`, `type`/`kind`/`messageType` one of `tool_result`,
 * `tool-result`, `function_call_output`, `observation`, or a string
 * `tool_call_id` / `toolCallId` / `tool_use_id` / `toolUseId`. Importers mark
 * tool results this way so that the fresh-tail boundary keeps them with their call.
 *
 * @since 0.1.0
 */
export const isToolResult: (turn: Pick<ConversationTurn.ConversationTurn, "role" | "metadata">) => boolean =
  Plan.isToolResult

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
 * @since 0.1.0
 */
export interface Options {
  /** Newest uncovered turns never summarized. Default 16. */
  readonly freshTailTurns?: number | undefined
  /** Largest chunk of turns per leaf, in estimated tokens. Default 20,000. */
  readonly leafChunkTokens?: number | undefined
  /** Fewest parentless siblings condensed together. Default 4. */
  readonly minFanIn?: number | undefined
  /** Most parentless siblings condensed together. Default 8. */
  readonly maxFanIn?: number | undefined
  /** Fraction of the budget the active context must exceed to compact. Default 0.75. */
  readonly threshold?: number | undefined
  /** Condensation calls of one depth running at once. Default 4. */
  readonly concurrency?: number | undefined
  /** `targetTokens` of leaf summaries. Default 1200. */
  readonly leafTargetTokens?: number | undefined
  /** `targetTokens` of condensed summaries. Default 2000. */
  readonly condenseTargetTokens?: number | undefined
  /** Called after each step of a compaction (a progress bar, say). */
  readonly onProgress?: ((event: ProgressEvent) => Effect.Effect<void>) | undefined
}

/**
 * Options with every default applied, validated.
 *
 * @since 0.1.0
 */
export interface ResolvedOptions {
  readonly freshTailTurns: number
  readonly leafChunkTokens: number
  readonly minFanIn: number
  readonly maxFanIn: number
  readonly threshold: number
  readonly concurrency: number
  readonly leafTargetTokens: number
  readonly condenseTargetTokens: number
  readonly onProgress: ((event: ProgressEvent) => Effect.Effect<void>) | undefined
}

/**
 * The defaults of {@link Options}.
 *
 * @since 0.1.0
 */
export const defaults = {
  freshTailTurns: 16,
  leafChunkTokens: 20_000,
  minFanIn: 4,
  maxFanIn: 8,
  threshold: 0.75,
  concurrency: 4,
  leafTargetTokens: Summarizer.defaults.leafTargetTokens,
  condenseTargetTokens: Summarizer.defaults.condenseTargetTokens
} as const

/**
 * Options (or a budget) that make no sense, such as `minFanIn < 2`.
 *
 * @since 0.1.0
 */
export class InvalidOptionsError extends Data.TaggedError("InvalidOptionsError")<{ readonly reason: string }> {
  /** @since 0.1.0 */
  override get message(): string {
    return `invalid compaction options: ${this.reason}`
  }
}

const isInt = (n: number, min: number) => Number.isSafeInteger(n) && n >= min

/**
 * Applies the defaults to `options` and checks them: `freshTailTurns >= 0`,
 * `leafChunkTokens`, `concurrency` and the targets `>= 1`, `minFanIn >= 2`,
 * `maxFanIn >= minFanIn` (all integers) and `0 < threshold <= 1`.
 *
 * @since 0.1.0
 */
export const resolveOptions = (options: Options = {}): Either.Either<ResolvedOptions, InvalidOptionsError> => {
  const resolved: ResolvedOptions = {
    freshTailTurns: options.freshTailTurns ?? defaults.freshTailTurns,
    leafChunkTokens: options.leafChunkTokens ?? defaults.leafChunkTokens,
    minFanIn: options.minFanIn ?? defaults.minFanIn,
    maxFanIn: options.maxFanIn ?? defaults.maxFanIn,
    threshold: options.threshold ?? defaults.threshold,
    concurrency: options.concurrency ?? defaults.concurrency,
    leafTargetTokens: options.leafTargetTokens ?? defaults.leafTargetTokens,
    condenseTargetTokens: options.condenseTargetTokens ?? defaults.condenseTargetTokens,
    onProgress: options.onProgress
  }
  const problems: Array<string> = []
  if (!isInt(resolved.freshTailTurns, 0)) {
    problems.push(`freshTailTurns must be an integer >= 0 (got ${resolved.freshTailTurns})`)
  }
  for (const key of ["leafChunkTokens", "concurrency", "leafTargetTokens", "condenseTargetTokens"] as const) {
    if (!isInt(resolved[key], 1)) problems.push(`${key} must be an integer >= 1 (got ${resolved[key]})`)
  }
  if (!isInt(resolved.minFanIn, 2)) problems.push(`minFanIn must be an integer >= 2 (got ${resolved.minFanIn})`)
  if (!isInt(resolved.maxFanIn, resolved.minFanIn)) {
    problems.push(`maxFanIn must be an integer >= minFanIn (got ${resolved.maxFanIn} < ${resolved.minFanIn})`)
  }
  if (!(resolved.threshold > 0 && resolved.threshold <= 1)) {
    problems.push(`threshold must be in (0, 1] (got ${resolved.threshold})`)
  }
  return problems.length === 0
    ? Either.right(resolved)
    : Either.left(new InvalidOptionsError({ reason: problems.join("; ") }))
}

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
 * The active context of a session: what an agent sends to its model.
 *
 * @since 0.1.0
 */
export interface ActiveContext {
  readonly sessionId: string
  /** The parentless summaries, in conversation order. */
  readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
  /** The turns no leaf covers (the fresh tail, plus whatever arrived since the last compaction). */
  readonly turns: ReadonlyArray<StoredTurn>
  /** Estimated tokens: the summaries' `tokenEstimate` plus each turn as formatted by `Transcript.formatTurn`. */
  readonly tokens: number
}

/**
 * Where a session stands against a budget.
 *
 * @since 0.1.0
 */
export interface CompactionStatus {
  /** Tokens of the active context (see {@link ActiveContext.tokens}). */
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
    options?: Options
  ) => Effect.Effect<boolean, StoreError | InvalidOptionsError>
  /** The figures behind {@link Service.shouldCompact}. */
  readonly status: (
    sessionId: string,
    budget: number,
    options?: Options
  ) => Effect.Effect<CompactionStatus, StoreError | InvalidOptionsError>
  /** Runs a leaf pass and condensation (see the module notes); per-call options override the layer's. */
  readonly compact: (
    sessionId: string,
    options?: Options
  ) => Effect.Effect<CompactionStats, StoreError | InvalidOptionsError>
  /** The active context: parentless summaries in conversation order, then the uncovered turns. */
  readonly context: (sessionId: string) => Effect.Effect<ActiveContext, StoreError>
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

const mergeOptions = (base: Options, overrides: Options | undefined) =>
  resolveOptions(overrides === undefined ? base : { ...base, ...dropUndefined(overrides) })

const dropUndefined = (options: Options): Options =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Options

/**
 * Builds the manager over the `MemoryStore` and `Summarizer` in context; the
 * `TokenEstimator` defaults to the core approximation. `options` are the
 * defaults of every call.
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const store = yield* MemoryStore
  const summarizer = yield* Summarizer.Summarizer
  const estimator = yield* TokenEstimator.TokenEstimator
  const locks = yield* Ref.make(new Map<string, Effect.Semaphore>())

  const resolve = (overrides: Options | undefined) => Effect.suspend(() => mergeOptions(options, overrides))

  const turnTokens = (turn: ConversationTurn.ConversationTurn) => estimator.estimate(Transcript.formatTurn(turn))

  const lockFor = (sessionId: string) =>
    Ref.modify(locks, (map): [Effect.Semaphore, Map<string, Effect.Semaphore>] => {
      const existing = map.get(sessionId)
      if (existing !== undefined) return [existing, map]
      const created = Effect.unsafeMakeSemaphore(1)
      return [created, new Map(map).set(sessionId, created)]
    })

  const context: Service["context"] = (sessionId) =>
    Effect.gen(function*() {
      const [summaries, turns] = yield* Effect.all([store.parentless(sessionId), store.uncoveredTurns(sessionId)])
      let tokens = 0
      for (const summary of summaries) tokens += summary.tokenEstimate ?? estimator.estimate(summary.content)
      for (const turn of turns) tokens += turnTokens(turn)
      return { sessionId, summaries, turns, tokens }
    }).pipe(Effect.withSpan("CompactionManager.context", { attributes: { "precis.session_id": sessionId } }))

  // The parentless summaries of the lowest depth holding at least `minFanIn`
  // of them (in conversation order), if any depth does.
  const nextToCondense = (parentless: ReadonlyArray<SummaryRecord.SummaryRecord>, minFanIn: number) => {
    const byDepth = new Map<number, Array<SummaryRecord.SummaryRecord>>()
    for (const s of parentless) {
      const siblings = byDepth.get(s.depth)
      if (siblings === undefined) byDepth.set(s.depth, [s])
      else siblings.push(s)
    }
    const depth = Array.from(byDepth.keys()).sort((a, b) => a - b).find((d) => byDepth.get(d)!.length >= minFanIn)
    return depth === undefined ? undefined : { depth, siblings: byDepth.get(depth)! }
  }

  const status: Service["status"] = (sessionId, budget, overrides) =>
    Effect.gen(function*() {
      const opts = yield* resolve(overrides)
      if (!(Number.isFinite(budget) && budget > 0)) {
        return yield* new InvalidOptionsError({ reason: `budget must be a positive number (got ${budget})` })
      }
      const active = yield* context(sessionId)
      const limit = opts.threshold * budget
      const evictableTurns = Plan.tailStart(active.turns, opts.freshTailTurns)
      const canCondense = nextToCondense(active.summaries, opts.minFanIn) !== undefined
      return {
        activeTokens: active.tokens,
        limit,
        evictableTurns,
        condensable: canCondense,
        shouldCompact: active.tokens > limit && (evictableTurns > 0 || canCondense)
      }
    })

  const shouldCompact: Service["shouldCompact"] = (sessionId, budget, overrides) =>
    Effect.map(status(sessionId, budget, overrides), (s) => s.shouldCompact)

  const run = (sessionId: string, opts: ResolvedOptions) =>
    Effect.gen(function*() {
      const tiers = yield* Ref.make(Summary.emptyTierCounts)
      const report = (event: ProgressEvent) => (opts.onProgress === undefined ? Effect.void : opts.onProgress(event))
      const countTier = (tier: Summary.Tier) => Ref.updateAndGet(tiers, (c) => Summary.incrementTier(c, tier))

      // Leaf pass: sequential, each leaf continues from the previous one.
      const uncovered = yield* store.uncoveredTurns(sessionId)
      const evictable = uncovered.slice(0, Plan.tailStart(uncovered, opts.freshTailTurns))
      const chunks = Plan.chunk(evictable, turnTokens, opts.leafChunkTokens, Plan.isToolResult)
      if (chunks.length > 0) {
        yield* report(ProgressEvent.LeafPassStarted({ sessionId, chunks: chunks.length, turns: evictable.length }))
      }
      let prior = Option.getOrUndefined(Option.map(yield* store.latestLeaf(sessionId), (leaf) => leaf.content))
      for (const [index, turns] of chunks.entries()) {
        yield* Effect.gen(function*() {
          const summary = yield* summarizer.summarizeTurns(turns, {
            priorSummary: prior,
            targetTokens: opts.leafTargetTokens
          })
          yield* store.insertLeaf({
            sessionId,
            content: summary.text,
            tier: summary.tier,
            tokenEstimate: summary.outputTokens,
            turnIds: turns.map((turn) => turn.id)
          })
          prior = summary.text
          const counts = yield* countTier(summary.tier)
          yield* report(ProgressEvent.LeafWritten({ sessionId, done: index + 1, total: chunks.length, tiers: counts }))
        }).pipe(
          Effect.withSpan("CompactionManager.leaf", {
            attributes: { "precis.session_id": sessionId, "precis.turns": turns.length, "precis.chunk": index }
          })
        )
      }

      // Condensation: the lowest depth with enough parentless siblings first, until none has.
      let condensed = 0
      while (true) {
        const next = nextToCondense(yield* store.parentless(sessionId), opts.minFanIn)
        if (next === undefined) break
        const { depth, siblings } = next
        const groups = Plan.splitSizes(siblings, Plan.groupSizes(siblings.length, opts.minFanIn, opts.maxFanIn))
        yield* report(ProgressEvent.CondenseStarted({ sessionId, depth, groups: groups.length }))
        const done = yield* Ref.make(0)
        yield* Effect.forEach(
          groups,
          (children) =>
            Effect.gen(function*() {
              const summary = yield* summarizer.summarizeSummaries(children, {
                targetTokens: opts.condenseTargetTokens
              })
              yield* store.insertCondensed({
                sessionId,
                content: summary.text,
                tier: summary.tier,
                tokenEstimate: summary.outputTokens,
                childIds: children.map((child) => child.id)
              })
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

      const stats: CompactionStats = {
        leafSummariesCreated: chunks.length,
        condensedSummariesCreated: condensed,
        turnsCompacted: evictable.length,
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
      return yield* lock.withPermits(1)(run(sessionId, opts))
    }).pipe(Effect.withSpan("CompactionManager.compact", { attributes: { "precis.session_id": sessionId } }))

  return CompactionManager.of({ shouldCompact, status, compact, context })
})

/**
 * The manager layer; `options` are the defaults of every call (checked with
 * {@link resolveOptions} on each call, which fails with an
 * {@link InvalidOptionsError} when they make no sense).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Summarizer } from "@precis/core"
 * import { CompactionManager, MemoryStore } from "@precis/compaction"
 * const Live = CompactionManager.layer({ freshTailTurns: 8 }).pipe(
 *   Layer.provide(MemoryStore.layerSqlite({ filename: "precis.db" })),
 *   Layer.provide(Summarizer.layer())
 * ) // Layer<CompactionManager, StoreError, Provider>
 * ```
 * @since 0.1.0
 */
export const layer = (
  options?: Options
): Layer.Layer<CompactionManager, never, MemoryStore | Summarizer.Summarizer> =>
  Layer.effect(CompactionManager, make(options))

const intConfig = (name: string, fallback: number) =>
  Config.integer(name).pipe(Config.withDefault(fallback))

/**
 * {@link Options} read from `Config` and validated with {@link resolveOptions}:
 * `PRECIS_COMPACTION_FRESH_TAIL_TURNS`, `..._LEAF_CHUNK_TOKENS`, `..._MIN_FAN_IN`,
 * `..._MAX_FAN_IN`, `..._THRESHOLD`, `..._CONCURRENCY`, `..._LEAF_TARGET_TOKENS`,
 * `..._CONDENSE_TARGET_TOKENS`, each with its default.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all({
  freshTailTurns: intConfig("PRECIS_COMPACTION_FRESH_TAIL_TURNS", defaults.freshTailTurns),
  leafChunkTokens: intConfig("PRECIS_COMPACTION_LEAF_CHUNK_TOKENS", defaults.leafChunkTokens),
  minFanIn: intConfig("PRECIS_COMPACTION_MIN_FAN_IN", defaults.minFanIn),
  maxFanIn: intConfig("PRECIS_COMPACTION_MAX_FAN_IN", defaults.maxFanIn),
  threshold: Config.number("PRECIS_COMPACTION_THRESHOLD").pipe(Config.withDefault(defaults.threshold)),
  concurrency: intConfig("PRECIS_COMPACTION_CONCURRENCY", defaults.concurrency),
  leafTargetTokens: intConfig("PRECIS_COMPACTION_LEAF_TARGET_TOKENS", defaults.leafTargetTokens),
  condenseTargetTokens: intConfig("PRECIS_COMPACTION_CONDENSE_TARGET_TOKENS", defaults.condenseTargetTokens)
}).pipe(
  Config.mapOrFail((options) =>
    Either.mapLeft(resolveOptions(options), (error) => ConfigError.InvalidData(["PRECIS_COMPACTION"], error.reason))
  )
)

/**
 * The manager layer with its options read from {@link config} (or the given `Config`).
 *
 * @since 0.1.0
 */
export const layerConfig = (
  options: Config.Config<Options> = config
): Layer.Layer<CompactionManager, ConfigError.ConfigError, MemoryStore | Summarizer.Summarizer> =>
  Layer.effect(CompactionManager, Effect.flatMap(options, make))

/**
 * The active context as chat messages: one system message with the summaries
 * (when there are any), then one message per turn. Roles other than `user`,
 * `assistant` and `system` (tool results, say) become `user` messages prefixed
 * with `[role]`.
 *
 * @since 0.1.0
 */
export const toMessages = (context: ActiveContext): Array<Provider.ChatMessage> => {
  const messages: Array<Provider.ChatMessage> = []
  if (context.summaries.length > 0) {
    messages.push({
      role: "system",
      content: `Summary of the earlier conversation, oldest first:\n\n${Transcript.renderSummaries(context.summaries)}`
    })
  }
  for (const turn of context.turns) {
    messages.push(
      turn.role === "user" || turn.role === "assistant" || turn.role === "system"
        ? { role: turn.role, content: turn.content }
        : { role: "user", content: `[${turn.role}] ${turn.content}` }
    )
  }
  return messages
}

/**
 * The active context as one text: the rendered summaries, a blank line, then
 * the turns formatted one per line.
 *
 * @since 0.1.0
 */
export const render = (context: ActiveContext): string =>
  [Transcript.renderSummaries(context.summaries), Transcript.formatTurns(context.turns)]
    .filter((part) => part.length > 0)
    .join("\n\n")
