/**
 * The forget stage: the reference design's decaying relevance score, applied to whole
 * tool pairs.
 *
 * @internal
 */
import { ActiveContext } from "@precis/compaction"
import { ConversationTurn, TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"
import { type Stage, unchanged } from "./stage.js"
import { firstRequest, units } from "./turns.js"

/** The forget stage's settings. */
export interface ForgetOptions {
  /** Tokens the turns may hold: nothing is dropped once they fit. */
  readonly maxTokens: number
  /** Units scoring below this may be dropped. */
  readonly minScore: number
  /** Score lost per position from the end. */
  readonly decay: number
  /** Added for a tool result. */
  readonly toolBonus: number
  /** Added when the turn mentions an outcome ({@link OUTCOME}). */
  readonly outcomeBonus: number
  /** The newest turns never dropped. */
  readonly keepRecentTurns: number
}

/** The reference design's values of the settings but the budget. */
export const defaults = { minScore: 0.3, decay: 0.05, toolBonus: 0.2, outcomeBonus: 0.1, keepRecentTurns: 4 } as const

/** The words that mark an outcome worth remembering. */
export const OUTCOME = /\b(?:error|success|result|failed|created|updated|deleted|confirmed|found|output)\b/i

/**
 * The reference design's score of the turn at `index` of `count`: `1 - decay x position
 * from the end`, plus `toolBonus` for a tool result and `outcomeBonus` when it
 * mentions an outcome.
 */
export const score = (
  turn: ConversationTurn.ConversationTurn,
  index: number,
  count: number,
  options: Pick<ForgetOptions, "decay" | "toolBonus" | "outcomeBonus">
): number =>
  1 - options.decay * (count - 1 - index) +
  (ConversationTurn.isToolResult(turn) ? options.toolBonus : 0) +
  (OUTCOME.test(turn.content) ? options.outcomeBonus : 0)

/**
 * Drops units (a turn with its tool results) scoring below `minScore` (a
 * unit scores as its best turn), lowest first and the oldest first among
 * equals, while the turns hold more than `maxTokens`. The unit of the first
 * user request and those reaching into the newest `keepRecentTurns` are kept.
 */
export const forget = (
  estimator: TokenEstimator.Service,
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  options: ForgetOptions
): { readonly turns: Array<ConversationTurn.ConversationTurn>; readonly dropped: number } => {
  const sizes = turns.map((turn) => ActiveContext.turnTokens(estimator, turn))
  let total = sizes.reduce((a, b) => a + b, 0)
  if (total <= options.maxTokens) return { turns: turns.slice(), dropped: 0 }
  const first = firstRequest(turns)
  const recent = turns.length - options.keepRecentTurns
  const candidates = units(turns)
    .filter((unit) => unit.end <= recent && !(first >= unit.start && first < unit.end))
    .map((unit) => {
      let best = -Infinity
      for (let i = unit.start; i < unit.end; i++) best = Math.max(best, score(turns[i]!, i, turns.length, options))
      return { unit, score: best }
    })
    .filter((candidate) => candidate.score < options.minScore)
    .sort((a, b) => a.score - b.score || a.unit.start - b.unit.start)
  const drop = new Set<number>()
  for (const { unit } of candidates) {
    if (total <= options.maxTokens) break
    for (let i = unit.start; i < unit.end; i++) {
      drop.add(i)
      total -= sizes[i]!
    }
  }
  return { turns: turns.filter((_, i) => !drop.has(i)), dropped: drop.size }
}

/** The forget stage's settings; each but the budget defaults to the reference design's value ({@link defaults}). */
export interface StageOptions {
  /** The budget: nothing is dropped once the context fits. */
  readonly maxTokens: number
  /** Default 0.3. */
  readonly minScore?: number | undefined
  /** Default 0.05 per position from the end. */
  readonly decay?: number | undefined
  /** Default 0.2. */
  readonly toolBonus?: number | undefined
  /** Default 0.1. */
  readonly outcomeBonus?: number | undefined
  /** Default 4. */
  readonly keepRecentTurns?: number | undefined
}

/**
 * The forget stage: over `maxTokens` (the context's, summaries included),
 * {@link forget} drops turns until the turns fit in what the summaries leave.
 */
export const stage = (options: StageOptions): Stage => ({
  name: "forget",
  run: (context, tokens) =>
    Effect.map(TokenEstimator.TokenEstimator, (estimator) => {
      if (tokens <= options.maxTokens) return unchanged(context)
      const summaryTokens = tokens - context.turns.reduce((n, t) => n + ActiveContext.turnTokens(estimator, t), 0)
      const out = forget(estimator, context.turns, {
        maxTokens: options.maxTokens - summaryTokens,
        minScore: options.minScore ?? defaults.minScore,
        decay: options.decay ?? defaults.decay,
        toolBonus: options.toolBonus ?? defaults.toolBonus,
        outcomeBonus: options.outcomeBonus ?? defaults.outcomeBonus,
        keepRecentTurns: options.keepRecentTurns ?? defaults.keepRecentTurns
      })
      return out.dropped === 0
        ? unchanged(context)
        : { context: { ...context, turns: out.turns }, counts: { dropped: out.dropped } }
    })
})
