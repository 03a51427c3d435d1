/**
 * The Condenser Pipeline: fits an assembled context (summaries and turns)
 * into a token budget, in stages that each report what they did.
 *
 * - **mask**: tool output outside the protected newest part becomes one line
 *   saying what it was (tool, path or command, size, exit status or first
 *   error line) and the turn to read in full (`TurnStore.turns` / the
 *   store keeps every turn verbatim). The result straddling the protected
 *   part's edge is cut in its middle instead.
 * - **forget**: the seed's decaying score (`1 - 0.05 x position from the end`,
 *   +0.2 for a tool result, +0.1 for an outcome word); units scoring under
 *   0.3 are dropped, lowest first, until the context fits. Never the first
 *   user request, never half of a tool pair, never the newest 4 turns.
 * - **summarize**: older turns replaced by a summary (the `Summarizer`, so it
 *   inherits its escalation and never fails). Stateless here ({@link summarize},
 *   over a plain message list, the newest 6 turns kept); `CompactionManager.assemble`
 *   uses the summary DAG instead (and, the store keeping every turn, forgets
 *   before it summarizes: the seed's order; {@link condense} summarizes first).
 * - **window**: the hard cap, the safety net: keeps the newest unit, the first
 *   user request, the summaries (newest first) and the newest turns, drops
 *   the middle, cuts what is too large in its middle with a marker. After it,
 *   the context never exceeds the budget.
 *
 * Every stage but mask acts only while the context is over the budget; mask
 * always acts (old tool output is the cheapest thing to hide). A stage never
 * fails (`never` in its error channel).
 *
 * @since 0.1.0
 */
import { type ConversationTurn, OptionSchema, Summarizer, SummaryRecord, TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ActiveContext from "./ActiveContext.js"
import * as CompactionOptions from "./CompactionOptions.js"
import * as Forget from "./internal/forget.js"
import * as Mask from "./internal/mask.js"
import { tailStart } from "./internal/plan.js"
import { firstRequest } from "./internal/turns.js"
import * as Window from "./internal/window.js"

/**
 * What the stages work on: summaries (oldest first) and turns (oldest first).
 * An `ActiveContext` is one.
 *
 * @since 0.1.0
 */
export interface Context {
  readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
}

/**
 * What a stage did, by count: tool results masked, turns or summaries cut in
 * their middle, dropped, turns replaced by a summary, and summaries shown as
 * their children or turns (the `Expansion` stage).
 *
 * @since 0.1.0
 */
export interface Counts {
  readonly masked: number
  readonly trimmed: number
  readonly dropped: number
  readonly summarized: number
  /** @since 0.3.0 */
  readonly expanded: number
}

/**
 * One stage's line of the report.
 *
 * @since 0.1.0
 */
export interface StageReport extends Counts {
  readonly stage: string
  /** Whether the stage changed anything. */
  readonly acted: boolean
  readonly tokensBefore: number
  readonly tokensAfter: number
}

/**
 * A pipeline's report: the tokens before and after, and a line per stage.
 *
 * @since 0.1.0
 */
export interface Report {
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly stages: ReadonlyArray<StageReport>
}

/**
 * The output of a stage: the smaller context and what it did.
 *
 * @since 0.1.0
 */
export interface StageOutput {
  readonly context: Context
  readonly counts: Partial<Counts>
}

/**
 * A stage: an Effect from a context (and its tokens) to a smaller one. It
 * never fails.
 *
 * @since 0.1.0
 */
export interface Stage<R = never> {
  readonly name: string
  readonly run: (context: Context, tokens: number) => Effect.Effect<StageOutput, never, R>
}

/**
 * A condensed context, its tokens and the report of the pipeline that made it.
 *
 * @since 0.1.0
 */
export interface Condensed extends Context {
  readonly tokens: number
  readonly report: Report
}

const noCounts: Counts = { masked: 0, trimmed: 0, dropped: 0, summarized: 0, expanded: 0 }

/**
 * Runs `stages` in order over a context, measuring it (with the
 * `TokenEstimator` in context) before and after each one.
 *
 * @example
 * ```ts
 * import { Condenser } from "@precis/compaction"
 * const fit = Condenser.pipeline([
 *   Condenser.mask({ protectTokens: 2000 }),
 *   Condenser.window({ maxTokens: 8000 })
 * ])
 * // fit({ summaries: [], turns }): Effect<Condensed>
 * ```
 * @since 0.1.0
 */
export const pipeline = <R>(stages: ReadonlyArray<Stage<R>>) => (context: Context): Effect.Effect<Condensed, never, R> =>
  Effect.gen(function*() {
    const estimator = yield* TokenEstimator.TokenEstimator
    const tokensBefore = ActiveContext.count(estimator, context)
    let current: Context = context
    let tokens = tokensBefore
    const reports: Array<StageReport> = []
    for (const stage of stages) {
      const output = yield* stage.run(current, tokens)
      const after = ActiveContext.count(estimator, output.context)
      const counts = { ...noCounts, ...output.counts }
      reports.push({
        stage: stage.name,
        acted: output.context !== current,
        tokensBefore: tokens,
        tokensAfter: after,
        ...counts
      })
      current = output.context
      tokens = after
    }
    return { ...current, tokens, report: { tokensBefore, tokensAfter: tokens, stages: reports } }
  }).pipe(Effect.withSpan("Condenser.pipeline"))

const unchanged = (context: Context): StageOutput => ({ context, counts: {} })

/**
 * The mask stage's settings.
 *
 * @since 0.1.0
 */
export interface MaskOptions {
  /** The newest tokens of turns whose tool output is kept verbatim. */
  readonly protectTokens: number
  /** Tool results of at most this many tokens are never masked. Default 500 (the seed's 2,000 characters). */
  readonly minTokens?: number | undefined
}

/**
 * The mask stage (see the module notes). Always acts.
 *
 * @since 0.1.0
 */
export const mask = (options: MaskOptions): Stage => ({
  name: "mask",
  run: (context) =>
    Effect.map(TokenEstimator.TokenEstimator, (estimator) => {
      const out = Mask.mask(estimator, context.turns, {
        protectTokens: options.protectTokens,
        minTokens: options.minTokens ?? defaults.maskMinTokens
      })
      return out.masked + out.trimmed === 0
        ? unchanged(context)
        : { context: { ...context, turns: out.turns }, counts: { masked: out.masked, trimmed: out.trimmed } }
    })
})

/**
 * The forget stage's settings; each defaults to the seed's value.
 *
 * @since 0.1.0
 */
export interface ForgetOptions {
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
 * The forget stage (see the module notes). Acts only over `maxTokens`.
 *
 * @since 0.1.0
 */
export const forget = (options: ForgetOptions): Stage => ({
  name: "forget",
  run: (context, tokens) =>
    Effect.map(TokenEstimator.TokenEstimator, (estimator) => {
      if (tokens <= options.maxTokens) return unchanged(context)
      const summaryTokens = tokens - context.turns.reduce((n, t) => n + ActiveContext.turnTokens(estimator, t), 0)
      const out = Forget.forget(estimator, context.turns, {
        maxTokens: options.maxTokens - summaryTokens,
        minScore: options.minScore ?? defaults.forget.minScore,
        decay: options.decay ?? defaults.forget.decay,
        toolBonus: options.toolBonus ?? defaults.forget.toolBonus,
        outcomeBonus: options.outcomeBonus ?? defaults.forget.outcomeBonus,
        keepRecentTurns: options.keepRecentTurns ?? defaults.forget.keepRecentTurns
      })
      return out.dropped === 0
        ? unchanged(context)
        : { context: { ...context, turns: out.turns }, counts: { dropped: out.dropped } }
    })
})

/**
 * The stateless summarize stage's settings.
 *
 * @since 0.1.0
 */
export interface SummarizeOptions {
  /** The budget: nothing is summarized while the context fits. */
  readonly maxTokens: number
  /** The newest turns kept verbatim (moved earlier to keep a tool pair whole). Default 6. */
  readonly keepRecentTurns?: number | undefined
  /** The summary's `targetTokens`. Default the leaf target (1,200). */
  readonly targetTokens?: number | undefined
}

/**
 * The stateless summarize stage: over `maxTokens`, the turns before the
 * newest `keepRecentTurns` (except the first user request, kept verbatim)
 * become one summary, written by the `Summarizer` (with the newest summary
 * already in the context as its prior summary) and appended to the summaries.
 *
 * @since 0.1.0
 */
export const summarize = (options: SummarizeOptions): Stage<Summarizer.Summarizer> => ({
  name: "summarize",
  run: (context, tokens) =>
    Effect.gen(function*() {
      if (tokens <= options.maxTokens) return unchanged(context)
      const split = tailStart(context.turns, options.keepRecentTurns ?? defaults.summarizeKeepRecentTurns)
      const first = firstRequest(context.turns)
      const older = context.turns.slice(0, split).filter((_, i) => i !== first)
      if (older.length === 0) return unchanged(context)
      const summarizer = yield* Summarizer.Summarizer
      const prior = context.summaries[context.summaries.length - 1]
      const summary = yield* summarizer.summarizeTurns(older, {
        priorSummary: prior?.content,
        targetTokens: options.targetTokens ?? CompactionOptions.defaults.leafTargetTokens
      })
      const range = SummaryRecord.timeRange(older.map((turn) => ({ start: turn.timestamp, end: turn.timestamp })))
      const ids = older.flatMap((turn) => (turn.id === undefined ? [] : [turn.id]))
      const record = SummaryRecord.make({
        id: `condensed-${context.summaries.length + 1}`,
        depth: 0,
        content: summary.text,
        tokenEstimate: summary.outputTokens,
        tier: summary.tier,
        ...(range.start === undefined ? {} : { timeRangeStart: range.start }),
        ...(range.end === undefined ? {} : { timeRangeEnd: range.end }),
        ...(ids.length === 0 ? {} : { sourceTurnIds: ids })
      })
      return {
        context: {
          summaries: [...context.summaries, record],
          turns: context.turns.filter((_, i) => i === first || i >= split)
        },
        counts: { summarized: older.length }
      }
    })
})

/**
 * The window stage's settings.
 *
 * @since 0.1.0
 */
export interface WindowOptions {
  /** The hard cap. */
  readonly maxTokens: number
}

/**
 * The window stage (see the module notes): after it the context holds at most
 * `maxTokens`. Acts only over it.
 *
 * @since 0.1.0
 */
export const window = (options: WindowOptions): Stage => ({
  name: "window",
  run: (context, tokens) =>
    Effect.map(TokenEstimator.TokenEstimator, (estimator) => {
      // Within the budget as counted and as sent (summary headers and separators included).
      if (tokens <= options.maxTokens && estimator.estimate(ActiveContext.render(context)) <= options.maxTokens) {
        return unchanged(context)
      }
      const out = Window.window(estimator, context, options.maxTokens)
      return { context: { summaries: out.summaries, turns: out.turns }, counts: { dropped: out.dropped, trimmed: out.trimmed } }
    })
})

/**
 * The defaults of the stages.
 *
 * @since 0.1.0
 */
export const defaults = {
  maskMinTokens: 500,
  forget: { minScore: 0.3, decay: 0.05, toolBonus: 0.2, outcomeBonus: 0.1, keepRecentTurns: 4 },
  summarizeKeepRecentTurns: 6
} as const

const count = Schema.optional(OptionSchema.int({ min: 0 }))
const weight = Schema.optional(OptionSchema.number())

/**
 * The standard pipeline's settings: a budget (tokens, an integer >= 1), and
 * the stages' options (`protectTokens` defaults to
 * `CompactionOptions.tailTokensFor(budget)`, a quarter of the budget clamped
 * to 1,000..32,000): token and turn counts are integers >= 0 (a summary's
 * `targetTokens` >= 1), the forget stage's weights finite numbers (its
 * `decay` >= 0). {@link fit} and {@link condense} check them.
 *
 * @since 0.1.0
 */
export const Options = Schema.Struct({
  budget: CompactionOptions.Budget,
  mask: Schema.optional(Schema.Struct({ protectTokens: count, minTokens: count })),
  forget: Schema.optional(Schema.Struct({
    minScore: weight,
    decay: Schema.optional(OptionSchema.number({ min: 0 })),
    toolBonus: weight,
    outcomeBonus: weight,
    keepRecentTurns: count
  })),
  summarize: Schema.optional(Schema.Struct({
    keepRecentTurns: count,
    targetTokens: Schema.optional(OptionSchema.int({ min: 1 }))
  }))
})

/**
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Type<typeof Options> {}

/**
 * Checks `options` against {@link Options}: a budget of 0, `NaN` or 1.5
 * tokens (or a stage option out of its bounds) is an `InvalidOptionsError`
 * naming it.
 *
 * @since 0.1.0
 */
export const decodeOptions: (
  options: Options
) => Either.Either<Options, CompactionOptions.InvalidOptionsError> = OptionSchema.decode(
  Options,
  (problems) => new CompactionOptions.InvalidOptionsError({ problems })
)

const maskOf = (options: Options): Stage =>
  mask({
    protectTokens: options.mask?.protectTokens ?? CompactionOptions.tailTokensFor(options.budget),
    minTokens: options.mask?.minTokens
  })

/**
 * The standard stages around a summarize stage: mask, forget, `summarizeStage`,
 * window (the seed's order).
 *
 * @since 0.1.0
 */
export const stages = <R>(options: Options, summarizeStage: Stage<R>): ReadonlyArray<Stage<R>> => [
  maskOf(options),
  forget({ ...options.forget, maxTokens: options.budget }),
  summarizeStage,
  window({ maxTokens: options.budget })
]

/**
 * Fits a context into `budget` without a model: mask, forget, window. What
 * `precis context --budget` prints. Options out of their bounds (see
 * {@link Options}) fail with an `InvalidOptionsError` before any stage runs.
 *
 * @example
 * ```ts
 * import { ActiveContext, Condenser } from "@precis/compaction"
 * import { Effect } from "effect"
 * const program = ActiveContext.load("session-1").pipe(
 *   Effect.flatMap((context) => Condenser.fit(context, { budget: 8000 }))
 * ) // never over 8000 tokens
 * ```
 * @since 0.1.0
 */
export const fit = (
  context: Context,
  options: Options
): Effect.Effect<Condensed, CompactionOptions.InvalidOptionsError> =>
  Effect.flatMap(decodeOptions(options), (checked) => pipeline(fitStages(checked))(context))

/**
 * The stages of {@link fit}: mask, forget, window (to run with more after
 * them, such as `Expansion.stage`), over options already checked
 * ({@link decodeOptions}).
 *
 * @since 0.3.0
 */
export const fitStages = (options: Options): ReadonlyArray<Stage> => [
  maskOf(options),
  forget({ ...options.forget, maxTokens: options.budget }),
  window({ maxTokens: options.budget })
]

/**
 * The stateless pipeline over a plain list of turns (no store): mask,
 * summarize with the `Summarizer`, forget, window. Summarizing comes before
 * forgetting here: without a store, a forgotten turn is gone for good, while
 * a summarized one is still told. What `precis condense` prints. Options are
 * checked as {@link fit} checks them.
 *
 * @since 0.1.0
 */
export const condense = (
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  options: Options
): Effect.Effect<Condensed, CompactionOptions.InvalidOptionsError, Summarizer.Summarizer> =>
  Effect.flatMap(decodeOptions(options), (checked) =>
    pipeline<Summarizer.Summarizer>([
      maskOf(checked),
      summarize({ ...checked.summarize, maxTokens: checked.budget }),
      forget({ ...checked.forget, maxTokens: checked.budget }),
      window({ maxTokens: checked.budget })
    ])({ summaries: [], turns }))
