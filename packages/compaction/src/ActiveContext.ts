/**
 * The active context of a session: the parentless summaries (in conversation
 * order) and the turns no leaf covers yet. It is what an agent sends to its
 * model (`@precis/context` fits it to a budget and renders it), and what
 * `CompactionManager.shouldCompact` measures; compaction shrinks it. Loading
 * it needs only the store's `TurnStore` and `DagStore` (and the
 * `TokenEstimator`, which defaults to the core approximation). The session
 * state is kept here too: loaded and carried forward over newer turns, saved.
 *
 * @since 0.1.0
 */
import { Chunked, type ConversationTurn, SessionState, type SummaryRecord, TokenEstimator, Transcript } from "@precis/core"
import { DagStore, type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

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
  readonly turns: ReadonlyArray<TurnStore.StoredTurn>
  /** Estimated tokens: the summaries' `tokenEstimate` plus each turn as counted by {@link turnTokens}. */
  readonly tokens: number
}

/**
 * A turn's tokens as the active context counts them (and as leaf chunks are
 * measured): the estimate of the turn formatted by `Transcript.formatTurn`.
 *
 * @since 0.1.0
 */
export const turnTokens = (estimator: TokenEstimator.Service, turn: ConversationTurn.ConversationTurn): number =>
  estimator.estimate(Transcript.formatTurn(turn))

/**
 * A summary's tokens as the active context counts them: its `tokenEstimate`,
 * or the estimate of its content when it has none.
 *
 * @since 0.1.0
 */
export const summaryTokens = (estimator: TokenEstimator.Service, summary: SummaryRecord.SummaryRecord): number =>
  summary.tokenEstimate ?? estimator.estimate(summary.content)

/**
 * The tokens of summaries and turns, counted as {@link ActiveContext.tokens} counts them.
 *
 * @since 0.1.0
 */
export const count = (
  estimator: TokenEstimator.Service,
  context: {
    readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
    readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
  }
): number => {
  let tokens = 0
  for (const summary of context.summaries) tokens += summaryTokens(estimator, summary)
  for (const turn of context.turns) tokens += turnTokens(estimator, turn)
  return tokens
}

/**
 * Loads the active context of a session from the store: parentless summaries
 * in conversation order, then the uncovered turns, with their token count.
 *
 * @example
 * ```ts
 * import { ActiveContext } from "@precis/compaction"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Effect } from "effect"
 * const active = ActiveContext.load("session-1").pipe(
 *   Effect.provide(SqliteStore.layer({ filename: "precis.db" }))
 * ) // Effect<ActiveContext, StoreError>
 * ```
 * @since 0.1.0
 */
export const load = (
  sessionId: string
): Effect.Effect<ActiveContext, StoreError.StoreError, TurnStore.TurnStore | DagStore.DagStore> =>
  Effect.gen(function*() {
    const turnStore = yield* TurnStore.TurnStore
    const dag = yield* DagStore.DagStore
    const estimator = yield* TokenEstimator.TokenEstimator
    const [summaries, turns] = yield* Effect.all([dag.parentless(sessionId), turnStore.uncoveredTurns(sessionId)])
    // As `count`, yielding between chunks of turns: a long session's count is CPU-bound.
    const tokens = yield* Chunked.reduce(
      turns,
      count(estimator, { summaries, turns: [] }),
      (sum, turn) => sum + turnTokens(estimator, turn)
    )
    return { sessionId, summaries, turns, tokens }
  }).pipe(Effect.withSpan("ActiveContext.load", { attributes: { "precis.session_id": sessionId } }))

/**
 * A session's state, folded up to a turn: the state, the `seq` of the last
 * turn folded (-1 for none), and whether this load folded turns the stored
 * state did not hold (so saving it would advance the store's copy).
 *
 * @since 0.1.0
 */
export interface LoadedState {
  readonly sessionId: string
  readonly state: SessionState.State
  readonly lastSeq: number
  readonly advanced: boolean
}

const decodeState = Schema.decodeUnknownEither(SessionState.StateFromJson)

/**
 * The session state of a session: the stored state (`TurnStore.sessionState`)
 * carried forward over the turns after it, so only newer turns are read. The
 * stored state is a cache: when it cannot be read (a store of an older schema
 * opened read-only, a state written by another version of the fold), the
 * state is folded from the first turn. Writes nothing (see {@link saveState}).
 *
 * `read`, when given, is every turn of the session from some `seq` on, in
 * order, as the caller read them (a compaction's uncovered turns): when it
 * starts at or before the first turn to fold, those turns are folded without
 * reading them again (turns appended since the caller read them are left to
 * the next load).
 *
 * @since 0.1.0
 */
export const loadState = (
  sessionId: string,
  read?: ReadonlyArray<TurnStore.StoredTurn>
): Effect.Effect<LoadedState, StoreError.StoreError, TurnStore.TurnStore> =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const stored = yield* store.sessionState(sessionId).pipe(
      Effect.catchAll((error) =>
        Effect.as(Effect.logDebug("ActiveContext.loadState: no stored state", error.message), Option.none())
      )
    )
    const base = Option.flatMap(stored, (saved) =>
      Either.match(decodeState(saved.state), {
        onLeft: () => Option.none(),
        onRight: (state) => Option.some({ state, lastSeq: saved.lastSeq })
      }))
    const from = Option.getOrElse(base, () => ({ state: SessionState.empty, lastSeq: -1 }))
    const first = from.lastSeq + 1
    const newer = read !== undefined && read.length > 0 && read[0]!.seq <= first
      ? read.filter((turn) => turn.seq >= first)
      : yield* store.turns(sessionId, { from: first })
    return {
      sessionId,
      state: yield* SessionState.foldEffect(newer, from.state),
      lastSeq: newer.length === 0 ? from.lastSeq : newer[newer.length - 1]!.seq,
      advanced: newer.length > 0
    }
  }).pipe(Effect.withSpan("ActiveContext.loadState", { attributes: { "precis.session_id": sessionId } }))

/**
 * Saves a loaded state in the store when it advanced (nothing otherwise), so
 * the next {@link loadState} folds only the turns after it.
 *
 * @since 0.1.0
 */
export const saveState = (loaded: LoadedState): Effect.Effect<void, StoreError.StoreError, TurnStore.TurnStore> =>
  loaded.advanced
    ? Effect.flatMap(TurnStore.TurnStore, (store) =>
      store.saveSessionState({
        sessionId: loaded.sessionId,
        state: Schema.encodeSync(SessionState.StateFromJson)(loaded.state),
        lastSeq: loaded.lastSeq
      }))
    : Effect.void

/**
 * The session state carried forward ({@link loadState}) and saved
 * ({@link saveState}): what a writer does after reading new turns. A failed
 * save is logged, not failed: it costs the next load a longer fold, nothing
 * more.
 *
 * @since 0.1.0
 */
export const refreshState = (
  sessionId: string,
  read?: ReadonlyArray<TurnStore.StoredTurn>
): Effect.Effect<LoadedState, StoreError.StoreError, TurnStore.TurnStore> =>
  Effect.tap(
    loadState(sessionId, read),
    (loaded) =>
      saveState(loaded).pipe(
        Effect.catchAll((error) => Effect.logWarning("ActiveContext: saving the session state failed", error.message))
      )
  )
