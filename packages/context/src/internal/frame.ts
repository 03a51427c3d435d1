/**
 * A frame: what the last rebuild of a session's context decided, kept by the
 * `Assembler` between assemblies so that each one is the previous one with the
 * new turns appended. The pinned turns, the summaries (expanded then, frozen),
 * the header placed in the frame and the turns' forms never change until the
 * next rebuild; a turn's form (verbatim, or cut in its middle past the
 * per-turn cap) is decided once, when it enters.
 *
 * @internal
 */
import { ActiveContext } from "@precis/compaction"
import { type ConversationTurn, SessionState, type SummaryRecord, TokenEstimator, ToolUse } from "@precis/core"
import { type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import type { Assembled } from "./assembled.js"
import * as Layout from "../Layout.js"
import type { Report } from "./stage.js"
import { cutTurn, turnLabel } from "./turns.js"

/** What a frame is built for. */
export interface Settings {
  readonly budget: number
  /** The share of the budget a rebuild brings the context down to. */
  readonly lowWater: number
  /** The share of the budget past which the context is rebuilt (1: the budget itself). */
  readonly highWater: number
  /** The share of the budget one turn may take when it enters (cut in its middle past it). */
  readonly turnShare: number
  /** Whether a session whose turns all fit the budget is given whole, verbatim. */
  readonly whole: boolean
  readonly stateShare: number
  readonly statePlacement: Layout.StatePlacement
  readonly sessionState: boolean
  readonly system: string
  readonly recallNote: boolean
}

/** The most tokens a turn takes when it enters a context of these settings. */
export const turnCap = (settings: Settings): number => Math.max(1, Math.floor(settings.turnShare * settings.budget))

// What the pinned first request may take at least, as long as it is within a quarter of the budget.
const PINNED_FLOOR = 200

/**
 * The most tokens the pinned first request takes: a turn's cap, but never
 * under {@link PINNED_FLOOR} tokens or a quarter of the budget, whichever is
 * smaller (the task stays readable in a small budget).
 */
export const pinnedCap = (settings: Settings): number =>
  Math.max(turnCap(settings), Math.min(PINNED_FLOOR, Math.floor(settings.budget / 4)))

/** The session-state header of these settings (`""` when off). */
export const header = (estimator: TokenEstimator.Service, state: SessionState.State, settings: Settings): string =>
  // A frame shows the first request verbatim (pinned, or among the turns of a session given whole).
  settings.sessionState
    ? Layout.header(estimator, state, settings.budget, settings.stateShare, { firstRequestShown: true })
    : ""

/** A session's frame. */
export interface Frame extends Layout.Renderable {
  /** The budget it was built for: another budget rebuilds (the rest of its settings are the assembler's). */
  readonly budget: number
  readonly system: string
  readonly pinned: ReadonlyArray<ConversationTurn.ConversationTurn>
  /** The header as of the frame's rebuild (refreshed at every assembly only when placed at the end). */
  readonly header: string
  readonly statePlacement: Layout.StatePlacement
  readonly recallNote: boolean
  readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
  /** The ids of the parentless summaries it was built from: another set means a compaction happened since. */
  readonly dag: string
  /** The last turn (`seq`) the frame holds, as a turn or within its summaries. */
  readonly lastSeq: number
  /** The session state folded up to `lastSeq`. */
  readonly state: SessionState.State
  /** What the rebuild's stages did. */
  readonly report: Report
}

/**
 * A turn in its entry form: as it is when it holds at most `maxTokens`
 * (counted as `ActiveContext.turnTokens` counts it), else cut in its middle to
 * that with a marker naming the turn to read in full.
 */
export const enter = (
  estimator: TokenEstimator.Service,
  turn: ConversationTurn.ConversationTurn,
  index: number,
  maxTokens: number
): ConversationTurn.ConversationTurn =>
  ActiveContext.turnTokens(estimator, turn) <= maxTokens
    ? turn
    : cutTurn(estimator, turn, turnLabel(turn, index), maxTokens) ?? turn

// Whether a turn from `from` on answers a call no turn before it shows (a rebuild dropped the call for
// room): a frame that would show a result without its call gives way to a rebuild, whose window keeps a
// call and its results together or drops them together.
const orphanResult = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>, from: number): boolean => {
  const called = new Set<string>()
  return turns.some((turn, i) => {
    if (i >= from && ToolUse.answeredIds(turn).some((id) => !called.has(id))) return true
    for (const id of ToolUse.callIds(turn)) called.add(id)
    return false
  })
}

/**
 * The frame with the turns appended to the session since it was built (each
 * in its entry form, the state folded over them and, with `save`, saved), or
 * `undefined` when its rendering would then pass the high mark, or when it
 * would show a tool result without its call.
 */
export const append = (
  sessionId: string,
  frame: Frame,
  settings: Settings,
  save: ((loaded: ActiveContext.LoadedState) => Effect.Effect<void, StoreError.StoreError, TurnStore.TurnStore>) | undefined
) =>
  Effect.gen(function*() {
    const estimator = yield* TokenEstimator.TokenEstimator
    const fresh = yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.turns(sessionId, { from: frame.lastSeq + 1 }))
    if (fresh.length === 0) return frame
    const state = yield* SessionState.foldEffect(fresh, frame.state)
    const lastSeq = fresh[fresh.length - 1]!.seq
    if (save !== undefined) {
      yield* save({ sessionId, state, lastSeq, advanced: true }).pipe(
        Effect.catchAll((error) => Effect.logWarning("Assembler: saving the session state failed", error.message))
      )
    }
    const cap = turnCap(settings)
    const pinned = new Set(frame.pinned.flatMap((turn) => turn.id === undefined ? [] : [turn.id]))
    const next: Frame = {
      ...frame,
      turns: [...frame.turns, ...fresh.filter((t) => !pinned.has(t.id)).map((t, i) => enter(estimator, t, i, cap))],
      lastSeq,
      state,
      header: settings.statePlacement === "end" ? header(estimator, state, settings) : frame.header
    }
    if (orphanResult(next.turns, frame.turns.length)) return undefined
    return estimator.estimate(Layout.render(next)) <= Math.floor(settings.highWater * settings.budget) ? next : undefined
  })

/** A session's frame and the text of its last assembly. */
export interface Entry {
  readonly frame: Frame
  readonly text: string
}

/** The entries with `sessionId`'s last, the least recently assembled dropped past `max`. */
export const remember = (
  entries: ReadonlyMap<string, Entry>,
  sessionId: string,
  entry: Entry,
  max: number
): Map<string, Entry> => {
  const next = new Map(entries)
  next.delete(sessionId)
  next.set(sessionId, entry)
  for (const oldest of next.keys()) {
    if (next.size <= max) break
    next.delete(oldest)
  }
  return next
}

/** What an assembly gives for a frame (or a whole context): `previous` is the text of the session's last assembly. */
export const toAssembled = (
  estimator: TokenEstimator.Service,
  sessionId: string,
  context: Layout.Renderable & Pick<Frame, "report" | "statePlacement" | "recallNote">,
  previous: string | undefined,
  rebuilt: boolean
): Assembled => {
  const text = Layout.render(context)
  const header = context.header ?? ""
  return {
    sessionId,
    system: context.system ?? "",
    pinned: context.pinned ?? [],
    header,
    headerTokens: header.length === 0 ? 0 : estimator.estimate(header),
    statePlacement: context.statePlacement,
    recallNote: context.recallNote,
    summaries: context.summaries,
    turns: context.turns,
    tokens: estimator.estimate(text),
    report: context.report,
    sharedTokens: Layout.sharedTokens(estimator, previous, text),
    breakpoint: Layout.lastStable(Layout.blocks(context)),
    rebuilt
  }
}
