/**
 * A rebuild of a session's frame, when the context would pass its budget
 * (or on the first assembly). With `whole` (a context assembled once), a
 * session whose turns all fit the budget is given whole, verbatim, no
 * summary. Otherwise: the active context (parentless summaries and
 * uncovered turns, each turn in its entry form), the first request pinned,
 * the session-state header as of now, then the Condenser's stages down to
 * the low-water mark: old tool output masked, a compaction of the DAG when
 * that is still over it (unless a compaction prepared in idle time already
 * brought it there: that one is adopted as it is), forget and window as the
 * safety net, then the expansion from the DAG up to the low-water mark. The
 * result, rendered with everything, is within the low-water mark.
 *
 * @internal
 */
import { ActiveContext } from "@precis/compaction"
import { ConversationTurn, SessionState, TokenEstimator } from "@precis/core"
import { DagStore, type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Condenser from "../Condenser.js"
import * as Expansion from "../Expansion.js"
import * as Layout from "../Layout.js"
import { enter, type Frame, header, pinnedCap, type Settings, turnCap } from "./frame.js"
import { noCounts, type Stage } from "./stage.js"
import { window } from "./window.js"

/** A rebuild: the session, its settings and the stages' options. */
export interface Plan {
  readonly sessionId: string
  /**
   * The frame that passed its high mark (none on a first assembly). Unless a
   * compaction was prepared since it was built (in idle time, by Sleep Mode:
   * its summaries differ), the session is then compacted whatever the masked
   * context holds, so the start of the context changes with compactions
   * only; a prepared compaction is adopted as it is.
   */
  readonly overflow: Frame | undefined
  readonly settings: Settings
  readonly condenser: Omit<Condenser.Options, "budget">
  readonly expand: false | Omit<Expansion.Options, "budget">
  /** The summarize stage over the DAG, compacting over `trigger` tokens down to `lowWater`; none when read-only. */
  readonly compaction:
    | ((trigger: number, lowWater: number) => Stage<TurnStore.TurnStore | DagStore.DagStore>)
    | undefined
  /** Loads the session state over the turns read (and saves it, for a writer). */
  readonly loadState: (
    sessionId: string,
    read: ReadonlyArray<TurnStore.StoredTurn>
  ) => Effect.Effect<ActiveContext.LoadedState, StoreError.StoreError, TurnStore.TurnStore>
}

// The first request is looked for among this many first turns (else the state's copy of it is pinned).
const PINNED_SCAN = 64

// The session's first request (the state's), as stored: among the uncovered turns when it is one, else read.
const pinnedTurns = (
  sessionId: string,
  state: SessionState.State,
  uncovered: ReadonlyArray<TurnStore.StoredTurn>,
  cap: number
) =>
  Effect.gen(function*() {
    const request = state.firstRequest
    if (request === undefined) return []
    const estimator = yield* TokenEstimator.TokenEstimator
    const isRequest = (turn: ConversationTurn.ConversationTurn) =>
      request.turnId === undefined ? SessionState.requestOf(turn) !== undefined : turn.id === request.turnId
    const found = uncovered.find(isRequest) ??
      (yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.turns(sessionId, { from: 0, to: PINNED_SCAN - 1 })))
        .find(isRequest)
    const turn = found ?? ConversationTurn.make({
      role: "user",
      content: request.text,
      ...(request.turnId === undefined ? {} : { id: request.turnId })
    })
    return [enter(estimator, turn, 0, cap)]
  })

// The turns read at a time to learn whether a session fits its budget whole.
const WHOLE_PAGE = 256

const ids = (summaries: ReadonlyArray<{ readonly id: string }>) => summaries.map((summary) => summary.id).join(" ")

/**
 * The session whole, every turn verbatim and no summary, with the header when
 * that fits too: `undefined` unless it all fits the budget as rendered.
 */
const wholeFrame = (plan: Plan, loaded: ActiveContext.LoadedState, lastSeq: number, dag: string) =>
  Effect.gen(function*() {
    const estimator = yield* TokenEstimator.TokenEstimator
    const store = yield* TurnStore.TurnStore
    const { settings } = plan
    // Read a page at a time, no further than twice the budget as counted (a turn's line as rendered is shorter,
    // its date left out): a long session is not read whole to learn it does not fit.
    const turns: Array<TurnStore.StoredTurn> = []
    let tokens = 0
    for (let from = 0; from <= lastSeq && tokens <= 2 * settings.budget; from += WHOLE_PAGE) {
      const page = yield* store.turns(plan.sessionId, { from, to: Math.min(lastSeq, from + WHOLE_PAGE - 1) })
      turns.push(...page)
      tokens += ActiveContext.count(estimator, { summaries: [], turns: page })
    }
    if (turns.length === 0 || tokens > 2 * settings.budget) return undefined
    const line = { ...noCounts, stage: "whole", acted: true, tokensBefore: tokens, tokensAfter: tokens }
    const frame: Frame = {
      budget: plan.settings.budget,
      system: settings.system,
      pinned: [],
      header: header(estimator, loaded.state, settings),
      statePlacement: settings.statePlacement,
      recallNote: false,
      summaries: [],
      turns,
      dag,
      lastSeq,
      state: loaded.state,
      report: { tokensBefore: tokens, tokensAfter: tokens, stages: [line] }
    }
    const fits = (f: Frame) => estimator.estimate(Layout.render(f)) <= settings.budget
    return fits(frame) ? frame : fits({ ...frame, header: "" }) ? { ...frame, header: "" } : undefined
  })

/** Builds a session's frame anew (see the module notes). */
export const rebuild = (plan: Plan) =>
  Effect.gen(function*() {
    const estimator = yield* TokenEstimator.TokenEstimator
    const { settings } = plan
    const active = yield* ActiveContext.load(plan.sessionId)
    const loaded = yield* plan.loadState(plan.sessionId, active.turns)
    const lastSeq = active.turns.length > 0 ? active.turns[active.turns.length - 1]!.seq : loaded.lastSeq
    const whole = settings.whole ? yield* wholeFrame(plan, loaded, lastSeq, ids(active.summaries)) : undefined
    if (whole !== undefined) return whole
    const cap = turnCap(settings)
    const pinned = yield* pinnedTurns(plan.sessionId, loaded.state, active.turns, pinnedCap(settings))
    const dag = ids(active.summaries)
    const shell = {
      system: settings.system,
      pinned,
      header: header(estimator, loaded.state, settings),
      statePlacement: settings.statePlacement,
      recallNote: settings.recallNote,
      summaries: [],
      turns: []
    }
    // What the summaries and turns may take of the low-water mark: the rest (and the blank lines around them) is fixed.
    const target = Math.floor(settings.lowWater * settings.budget)
    const room = Math.max(1, target - estimator.estimate(Layout.render(shell)) - 2)
    const isPinned = (turn: ConversationTurn.ConversationTurn) => pinned.some((p) => p.id !== undefined && p.id === turn.id)
    const entered = {
      summaries: active.summaries,
      turns: active.turns.flatMap((turn, i) => isPinned(turn) ? [] : [enter(estimator, turn, i, cap)])
    }
    const options = { ...plan.condenser, budget: room }
    const eager = plan.overflow !== undefined && plan.overflow.dag === dag
    const summarize = plan.compaction?.(eager ? 0 : room, Math.min(1, room / settings.budget))
    const fitting = summarize === undefined
      ? Condenser.fitStages(options)
      : Condenser.stages(options, summarize, "stateless")
    const expanding = plan.expand === false ? [] : [Expansion.stage({ reserve: 0, ...plan.expand, budget: room })]
    const condensed = yield* Condenser.pipeline([...fitting, ...expanding])(entered)
    const compacted = condensed.report.stages.some((line) => line.stage === "summarize" && line.acted)
    const dagAfter = compacted ? ids(yield* Effect.flatMap(DagStore.DagStore, (store) => store.parentless(plan.sessionId))) : dag
    const frame: Frame = {
      ...shell,
      budget: plan.settings.budget,
      dag: dagAfter,
      summaries: condensed.summaries,
      turns: condensed.turns.filter((turn) => !isPinned(turn)),
      lastSeq,
      state: loaded.state,
      report: condensed.report
    }
    return fitRendered(estimator, frame, target, settings.budget)
  })

/**
 * The frame cut until its rendering is within `target` tokens: the window
 * over its summaries and turns by what rendering adds; should the fixed parts
 * alone pass the `budget`, the header goes, then the pinned turns. What it
 * cut is the report's last line, `render` (none when nothing was cut).
 */
export const fitRendered = (estimator: TokenEstimator.Service, frame: Frame, target: number, budget: number): Frame => {
  const size = (f: Frame) => estimator.estimate(Layout.render(f))
  let current = frame
  let dropped = 0
  let trimmed = 0
  for (let attempt = 1; attempt <= 8; attempt++) {
    const over = size(current) - target
    const tokens = ActiveContext.count(estimator, current)
    if (over <= 0 || tokens === 0) break
    const out = window(estimator, current, Math.max(0, tokens - over - 4 * attempt))
    current = { ...current, summaries: out.summaries, turns: out.turns }
    dropped += out.dropped
    trimmed += out.trimmed
  }
  if (size(current) > budget) current = { ...current, header: "" }
  if (size(current) > budget) {
    dropped += current.pinned.length
    current = { ...current, pinned: [] }
  }
  if (current === frame) return frame
  const before = ActiveContext.count(estimator, frame)
  const after = ActiveContext.count(estimator, current)
  const line = { ...noCounts, stage: "render", acted: true, tokensBefore: before, tokensAfter: after, dropped, trimmed }
  return { ...current, report: { ...frame.report, tokensAfter: after, stages: [...frame.report.stages, line] } }
}
