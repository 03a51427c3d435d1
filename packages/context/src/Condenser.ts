/**
 * The Condenser Pipeline: fits a context (summaries and turns) into a token
 * budget, in stages that each report what they did. A stage never fails
 * (`never` in its error channel).
 *
 * The standard stages are kept in one {@link registry}: `mask` (old tool
 * output becomes one line), `forget` (the reference design's decaying score drops old
 * low-value turns), `summarize` (older turns become a summary) and `window`
 * (the hard cap). Each entry says what the stage does, its defaults, and its
 * place in the two standard orders; {@link stages}, {@link fitStages},
 * {@link fit} and {@link condense} are derived from it, and so is the stage
 * table of docs/context.md.
 *
 * @since 0.1.0
 */
import { CompactionOptions, FreshTail } from "@precis/compaction"
import { type ConversationTurn, OptionSchema, type Summarizer } from "@precis/core"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { InvalidContextOptionsError } from "./ContextError.js"
import * as Forget from "./internal/forget.js"
import * as Mask from "./internal/mask.js"
import * as Internal from "./internal/stage.js"
import * as Summarize from "./internal/summarize.js"
import * as Window from "./internal/window.js"

/**
 * What the stages work on: summaries (oldest first) and turns (oldest first).
 * An `ActiveContext` is one.
 *
 * @since 0.1.0
 */
export interface Context extends Internal.Context {}

/**
 * What a stage did, by count: tool results `masked`, turns or summaries
 * `trimmed` (cut in their middle), `dropped`, turns `summarized` (replaced by
 * a summary), and summaries `expanded` (shown as their children or turns: the
 * `Expansion` stage).
 *
 * @since 0.1.0
 */
export interface Counts extends Internal.Counts {}

/**
 * One stage's line of the report: its name (`stage`), whether it changed
 * anything (`acted`), the tokens before and after, and its counts.
 *
 * @since 0.1.0
 */
export interface StageReport extends Internal.StageReport {}

/**
 * A pipeline's report: the tokens before and after, and a line per stage.
 *
 * @since 0.1.0
 */
export interface Report extends Internal.Report {}

/**
 * The output of a stage: the smaller `context` and what it did (`counts`).
 *
 * @since 0.1.0
 */
export interface StageOutput extends Internal.StageOutput {}

/**
 * A stage: an Effect from a context (and its tokens) to a smaller one, named
 * by its report line. It never fails.
 *
 * @since 0.1.0
 */
export interface Stage<R = never> extends Internal.Stage<R> {}

/**
 * A condensed context, its tokens and the `report` of the pipeline that made it.
 *
 * @since 0.1.0
 */
export interface Condensed extends Internal.Condensed {}

/**
 * Runs `stages` in order over a context, measuring it (with the
 * `TokenEstimator` in context, as `ActiveContext.count` counts) before and
 * after each one.
 *
 * @example
 * ```ts
 * import { Condenser } from "@precis/context"
 * const fit = Condenser.pipeline([
 *   Condenser.mask({ protectTokens: 2000 }),
 *   Condenser.window({ maxTokens: 8000 })
 * ])
 * // fit({ summaries: [], turns }): Effect<Condensed>
 * ```
 * @since 0.1.0
 */
export const pipeline: <R>(stages: ReadonlyArray<Stage<R>>) => (context: Context) => Effect.Effect<Condensed, never, R> =
  Internal.pipeline

/**
 * The defaults of the stages.
 *
 * @since 0.1.0
 */
export const defaults = {
  maskMinTokens: Mask.defaultMinTokens,
  forget: Forget.defaults,
  summarizeKeepRecentTurns: Summarize.defaults.keepRecentTurns
} as const

/**
 * The mask stage's settings: `protectTokens` (the newest tokens of turns
 * whose tool output is kept verbatim) and `minTokens` (tool results of at
 * most this many tokens are never masked; default 500, the reference design's 2,000
 * characters).
 *
 * @since 0.1.0
 */
export interface MaskOptions extends Mask.StageOptions {}

/**
 * The mask stage (see the {@link registry}). Always acts.
 *
 * @since 0.1.0
 */
export const mask: (options: MaskOptions) => Stage = Mask.stage

/**
 * The forget stage's settings: the budget (`maxTokens`: nothing is dropped
 * once the context fits) and the score's, each defaulting to the reference design's
 * value ({@link defaults}).
 *
 * @since 0.1.0
 */
export interface ForgetOptions extends Forget.StageOptions {}

/**
 * The forget stage (see the {@link registry}). Acts only over `maxTokens`.
 *
 * @since 0.1.0
 */
export const forget: (options: ForgetOptions) => Stage = Forget.stage

/**
 * The stateless summarize stage's settings: the budget (`maxTokens`: nothing
 * is summarized while the context fits), `keepRecentTurns` (the newest turns
 * kept verbatim, moved earlier to keep a tool pair whole; default 6) and the
 * summary's `targetTokens` (default the leaf target, 1,200).
 *
 * @since 0.1.0
 */
export interface SummarizeOptions extends Summarize.StageOptions {}

/**
 * The stateless summarize stage: over `maxTokens`, the turns before the
 * newest `keepRecentTurns` (except the first user request, kept verbatim)
 * become one summary, written by the `Summarizer` (with the newest summary
 * already in the context as its prior summary) and appended to the summaries
 * as a leaf no store holds (id `stateless-leaf-N`). With a store, the
 * `Assembler` summarizes into the summary DAG instead.
 *
 * @since 0.1.0
 */
export const summarize: (options: SummarizeOptions) => Stage<Summarizer.Summarizer> = Summarize.stage

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
 * The window stage (see the {@link registry}): after it the context holds at
 * most `maxTokens`. Acts only over it.
 *
 * @since 0.1.0
 */
export const window: (options: WindowOptions) => Stage = Window.stage

const count = Schema.optional(OptionSchema.int({ min: 0 }))
const weight = Schema.optional(OptionSchema.number())

/**
 * The stages' options (`protectTokens` defaults to
 * `FreshTail.tokensFor(budget)`, a quarter of the budget clamped to
 * 1,000..32,000): token and turn counts are integers >= 0 (a summary's
 * `targetTokens` >= 1), the forget stage's weights finite numbers (its
 * `decay` >= 0): what an `Assembler`'s config holds of the pipeline.
 *
 * @since 0.1.0
 */
export const StageOptions = Schema.Struct({
  mask: Schema.optional(Schema.Struct({ protectTokens: count, minTokens: count })).annotations({
    description: "the mask stage's: the newest tokens it leaves whole, and the smallest output it masks"
  }),
  forget: Schema.optional(Schema.Struct({
    minScore: weight,
    decay: Schema.optional(OptionSchema.number({ min: 0 })),
    toolBonus: weight,
    outcomeBonus: weight,
    keepRecentTurns: count
  })).annotations({ description: "the forget stage's: its score threshold and weights, and the newest turns it keeps" }),
  summarize: Schema.optional(Schema.Struct({
    keepRecentTurns: count,
    targetTokens: Schema.optional(OptionSchema.int({ min: 1 }))
  })).annotations({ description: "the summarize stage's: the newest turns it keeps, and its summary's target tokens" })
})

/**
 * The standard pipelines' settings: a budget (tokens, an integer >= 1), and
 * the {@link StageOptions}. {@link fit} and {@link condense} check them.
 *
 * @since 0.1.0
 */
export const Options = Schema.Struct({ budget: CompactionOptions.Budget, ...StageOptions.fields })

/**
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Type<typeof Options> {}

/**
 * Checks `options` against {@link Options}: a budget of 0, `NaN` or 1.5
 * tokens (or a stage option out of its bounds) is an
 * `InvalidContextOptionsError` naming it.
 *
 * @since 0.1.0
 */
export const decodeOptions: (
  options: Options
) => Either.Either<Options, InvalidContextOptionsError> = OptionSchema.decode(
  Options,
  (problems) => new InvalidContextOptionsError({ problems })
)

/**
 * A standard stage as the {@link registry} holds it: its `name` (its line in
 * the report), what it does and its defaults (the docs' words), its place in
 * each standard order, and how it is made from the pipeline's {@link Options}.
 *
 * @since 0.1.0
 */
export interface StageEntry<Name extends string = string, R = never> {
  readonly name: Name
  readonly description: string
  readonly defaults: string
  /**
   * Its place with a store (the reference design's order: the store keeps every turn, so
   * forgetting before summarizing loses nothing) and without one
   * ({@link condense}: summarizing before forgetting, since a forgotten turn
   * is gone for good while a summarized one is still told).
   */
  readonly order: { readonly withStore: number; readonly stateless: number }
  readonly make: (options: Options) => Stage<R>
}

/**
 * The standard stages: the one list the pipelines and the docs are derived from.
 *
 * @since 0.1.0
 */
export const registry: readonly [
  StageEntry<"mask">,
  StageEntry<"forget">,
  StageEntry<"summarize", Summarizer.Summarizer>,
  StageEntry<"window">
] = [
  {
    name: "mask",
    description: "tool results outside the protected newest part become one line: tool, path or command, size, " +
      "exit status or first error line, and the turn id to read in full (the store keeps it); the result " +
      "straddling the protected part's edge is cut in its middle. Always acts.",
    defaults: "`protectTokens` = a quarter of the budget clamped to 1,000..32,000 (`FreshTail.tokensFor`); " +
      "results of at most `minTokens` 500 are never masked",
    order: { withStore: 0, stateless: 0 },
    make: (options) =>
      mask({
        protectTokens: options.mask?.protectTokens ?? FreshTail.tokensFor(options.budget),
        minTokens: options.mask?.minTokens
      })
  },
  {
    name: "forget",
    description: "the reference design's score `1 - 0.05 x position from the end`, +0.2 tool result, +0.1 outcome word; " +
      "units under 0.3 dropped, lowest first, until it fits. Never the first user request, never half a tool " +
      "pair, never the newest 4 turns.",
    defaults: "`minScore` 0.3, `decay` 0.05, `keepRecentTurns` 4",
    order: { withStore: 1, stateless: 2 },
    make: (options) => forget({ ...options.forget, maxTokens: options.budget })
  },
  {
    name: "summarize",
    description: "older turns become one summary written by the `Summarizer` (its escalation included): " +
      "stateless over a plain list (`Condenser.summarize`, a leaf no store holds), or the summary DAG " +
      "compacted (`Assembler.assemble`)",
    defaults: "newest 6 turns kept, `targetTokens` 1,200",
    order: { withStore: 2, stateless: 1 },
    make: (options) => summarize({ ...options.summarize, maxTokens: options.budget })
  },
  {
    name: "window",
    description: "the hard cap: keeps the newest unit, the first user request, the summaries (newest first), " +
      "then the newest turns; drops the middle, cuts what is too large in its middle with a marker. After it " +
      "the context is never over the budget.",
    defaults: "`maxTokens` = the budget",
    order: { withStore: 3, stateless: 3 },
    make: (options) => window({ maxTokens: options.budget })
  }
]

const inOrder = <A extends StageEntry<string, unknown>>(
  entries: ReadonlyArray<A>,
  order: keyof StageEntry["order"]
): Array<A> => entries.slice().sort((a, b) => a.order[order] - b.order[order])

/**
 * The standard stages in one of the registry's orders, `summarizeStage` in
 * the place of `summarize` (the summary DAG, say): by default the order with
 * a store (mask, forget, summarize, window); with `"stateless"`, summarizing
 * before forgetting (mask, summarize, forget, window), what the `Assembler`
 * runs when it rebuilds a context.
 *
 * @since 0.1.0
 */
export const stages = <R>(
  options: Options,
  summarizeStage: Stage<R>,
  order: keyof StageEntry["order"] = "withStore"
): ReadonlyArray<Stage<R>> =>
  inOrder(registry, order).map((entry) => entry.name === "summarize" ? summarizeStage : entry.make(options))

/**
 * The stages of {@link fit}: the standard stages but `summarize`, in the
 * order with a store (mask, forget, window; to run with more after them, such
 * as `Expansion.stage`), over options already checked ({@link decodeOptions}).
 *
 * @since 0.1.0
 */
export const fitStages = (options: Options): ReadonlyArray<Stage> =>
  inOrder(registry, "withStore").flatMap((entry) => entry.name === "summarize" ? [] : [entry.make(options)])

/**
 * Fits a context into `budget` without a model: {@link fitStages}. What
 * `precis context --budget` runs before the expansion. Options out of their
 * bounds (see {@link Options}) fail with an `InvalidContextOptionsError` before any
 * stage runs.
 *
 * @example
 * ```ts
 * import { ActiveContext } from "@precis/compaction"
 * import { Condenser } from "@precis/context"
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
): Effect.Effect<Condensed, InvalidContextOptionsError> =>
  Effect.flatMap(decodeOptions(options), (checked) => pipeline(fitStages(checked))(context))

/**
 * The stateless pipeline over a plain list of turns (no store): the standard
 * stages in the stateless order (mask, summarize with the `Summarizer`,
 * forget, window). What `precis condense` prints. Options are checked as
 * {@link fit} checks them.
 *
 * @since 0.1.0
 */
export const condense = (
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  options: Options
): Effect.Effect<Condensed, InvalidContextOptionsError, Summarizer.Summarizer> =>
  Effect.flatMap(decodeOptions(options), (checked) =>
    pipeline(inOrder(registry, "stateless").map((entry): Stage<Summarizer.Summarizer> => entry.make(checked)))({
      summaries: [],
      turns
    }))
