/**
 * The active context of a session: the parentless summaries (in conversation
 * order) and the turns no leaf covers yet. It is what an agent sends to its
 * model, and what `CompactionManager.shouldCompact` measures; compaction
 * shrinks it. Loading it needs only the store's `TurnStore` and `DagStore`
 * (and the `TokenEstimator`, which defaults to the core approximation).
 *
 * @since 0.1.0
 */
import {
  type ConversationTurn,
  Escape,
  type Provider,
  SessionState,
  type SummaryRecord,
  TokenEstimator,
  Transcript
} from "@precis/core"
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
 * const text = ActiveContext.load("session-1").pipe(
 *   Effect.map(ActiveContext.render),
 *   Effect.provide(SqliteStore.layer({ filename: "precis.db" }))
 * )
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
    return { sessionId, summaries, turns, tokens: count(estimator, { summaries, turns }) }
  }).pipe(Effect.withSpan("ActiveContext.load", { attributes: { "precis.session_id": sessionId } }))

/**
 * A session's state, folded up to a turn: the state, the `seq` of the last
 * turn folded (-1 for none), and whether this load folded turns the stored
 * state did not hold (so saving it would advance the store's copy).
 *
 * @since 0.3.0
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
 * @since 0.3.0
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
      state: SessionState.fold(newer, from.state),
      lastSeq: newer.length === 0 ? from.lastSeq : newer[newer.length - 1]!.seq,
      advanced: newer.length > 0
    }
  }).pipe(Effect.withSpan("ActiveContext.loadState", { attributes: { "precis.session_id": sessionId } }))

/**
 * Saves a loaded state in the store when it advanced (nothing otherwise), so
 * the next {@link loadState} folds only the turns after it.
 *
 * @since 0.3.0
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
 * The share of a budget the session-state header may take by default (15%).
 *
 * @since 0.3.0
 */
export const defaultStateShare = 0.15

/**
 * The session-state header for a context of `budget` tokens: the state
 * rendered within `share * budget` tokens (`SessionState.render`), or within
 * `SessionState.defaultMaxTokens` without a budget.
 *
 * @since 0.3.0
 */
export const header = (
  estimator: TokenEstimator.Service,
  state: SessionState.State,
  budget?: number | undefined,
  share: number = defaultStateShare
): string =>
  SessionState.render(
    state,
    budget === undefined ? SessionState.defaultMaxTokens : Math.floor(budget * share),
    estimator
  )

/**
 * What {@link render} and {@link toMessages} read: summaries and turns, such
 * as an {@link ActiveContext} or a context the `Condenser` fitted to a budget,
 * and the session-state header to put first (since 0.3.0; see {@link header}).
 *
 * @since 0.1.0
 */
export interface Renderable {
  readonly header?: string | undefined
  readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
}

/**
 * Options of {@link render} and {@link toMessages}.
 *
 * @since 0.3.0
 */
export interface RenderOptions {
  /**
   * End with {@link recallNote}: tells the model that the recall tools
   * (`search`, `expand`, `describe` of `@precis/recall`) exist and names the
   * summary ids to expand. Off by default; nothing is added without summaries.
   */
  readonly recallNote?: boolean | undefined
}

/**
 * A short note telling a model it can recall what the summaries compress, with
 * the tools of `@precis/recall`'s toolkit and the ids of `summaries`.
 *
 * @example
 * ```ts
 * import { ActiveContext } from "@precis/compaction"
 * ActiveContext.recallNote([]) // "" (no summaries, no note)
 * ```
 * @since 0.3.0
 */
export const recallNote = (summaries: ReadonlyArray<SummaryRecord.SummaryRecord>): string =>
  summaries.length === 0 ? "" : [
    "Earlier turns are compacted into the summaries above. To recall details, call the tools:",
    "search (full-text search of turns and summaries), expand (a summary's children or source turns)",
    `and describe (the summary DAG at a glance). Summary ids: ${summaries.map((s) => Escape.line(s.id)).join(", ")}.`
  ].join(" ")

const noteOf = (context: Renderable, options: RenderOptions): string =>
  options.recallNote === true ? recallNote(context.summaries) : ""

/**
 * The active context as chat messages: the session-state header as a system
 * message first (when there is one), then one system message with the
 * summaries (when there are any; with `recallNote`, the {@link recallNote}
 * ends it), then one message per turn. Roles other than `user`, `assistant`
 * and `system` (tool results, say) become `user` messages prefixed with `[role]`.
 *
 * @since 0.1.0
 */
export const toMessages = (context: Renderable, options: RenderOptions = {}): Array<Provider.ChatMessage> => {
  const messages: Array<Provider.ChatMessage> = []
  if (context.header !== undefined && context.header.length > 0) messages.push({ role: "system", content: context.header })
  if (context.summaries.length > 0) {
    const note = noteOf(context, options)
    messages.push({
      role: "system",
      content: `Summary of the earlier conversation, oldest first:\n\n${Transcript.renderSummaries(context.summaries)}` +
        (note.length > 0 ? `\n\n${note}` : "")
    })
  }
  for (const turn of context.turns) {
    messages.push(
      turn.role === "user" || turn.role === "assistant" || turn.role === "system"
        ? { role: turn.role, content: turn.content }
        : { role: "user", content: `[${Escape.line(turn.role)}] ${turn.content}` }
    )
  }
  return messages
}

/**
 * The active context as one text: the session-state header (when there is
 * one), the rendered summaries, then the turns formatted one per line, apart
 * by blank lines; with `recallNote`, a blank line and the {@link recallNote}
 * end it.
 *
 * @since 0.1.0
 */
export const render = (context: Renderable, options: RenderOptions = {}): string =>
  [
    context.header ?? "",
    Transcript.renderSummaries(context.summaries),
    Transcript.formatTurns(context.turns),
    noteOf(context, options)
  ]
    .filter((part) => part.length > 0)
    .join("\n\n")
