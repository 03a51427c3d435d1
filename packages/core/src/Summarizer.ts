/**
 * The Summarizer: text in, compressed text out, through a three-tier escalation
 * that always returns a summary.
 *
 * 1. **normal**: the model at `normalTemperature`; kept only when the trimmed reply
 *    is non-blank and estimated strictly shorter than the input material;
 * 2. **aggressive**: the model at `aggressiveTemperature`, asked for fewer than
 *    `targetTokens`; any non-blank reply within the `maxTokens` it was asked for is kept;
 * 3. **fallback**: the material truncated to `targetTokens` plus a marker; no model,
 *    cannot fail.
 *
 * Nothing to summarize (no turns, no summaries, a material of white space) asks
 * no model: the summary is `Prompt.nothingToSummarize`, tier `fallback`.
 *
 * Whichever tier wrote it, the summary carries its fact check (`Summary.dropped`:
 * the keys of the material it lost, see the `FactCheck` module), and the span
 * counts them (`precis.facts_dropped`).
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type { ConversationTurn } from "./ConversationTurn.js"
import * as OptionConfig from "./OptionConfig.js"
import * as OptionError from "./OptionError.js"
import * as OptionSchema from "./OptionSchema.js"
import { Provider } from "./Provider.js"
import * as Tiers from "./internal/tiers.js"
import { emptyTierCounts, incrementTier, Summary, type Tier, type TierCounts } from "./Summary.js"
import type { SummaryRecord } from "./SummaryRecord.js"
import * as SummaryTask from "./SummaryTask.js"
import { TokenEstimator } from "./TokenEstimator.js"

/**
 * @since 0.1.0
 */
export interface SummarizeTurnsOptions {
  /** The previous summary of the same conversation, given to the model as continuity context. */
  readonly priorSummary?: string | undefined
  /** The size asked of the aggressive tier and kept by the fallback. Default 1200. */
  readonly targetTokens?: number | undefined
}

/**
 * @since 0.1.0
 */
export interface SummarizeSummariesOptions {
  /** The size asked of the aggressive tier and kept by the fallback. Default 2000. */
  readonly targetTokens?: number | undefined
}

/**
 * @since 0.1.0
 */
export interface Service {
  /**
   * Summarizes raw turns (a leaf of the DAG): the task carries each turn with
   * its content as the material shows it (`Material.renderContents`). Never fails.
   */
  readonly summarizeTurns: (
    turns: ReadonlyArray<ConversationTurn>,
    options?: SummarizeTurnsOptions
  ) => Effect.Effect<Summary>
  /** Condenses summaries into one higher-depth summary. Never fails. */
  readonly summarizeSummaries: (
    summaries: ReadonlyArray<SummaryRecord>,
    options?: SummarizeSummariesOptions
  ) => Effect.Effect<Summary>
  /** How many calls of this Summarizer ended in each tier. */
  readonly tierCounts: Effect.Effect<TierCounts>
}

/**
 * The Summarizer service tag.
 *
 * @since 0.1.0
 */
export class Summarizer extends Context.Tag("@precis/core/Summarizer")<Summarizer, Service>() {}

/**
 * The defaults of {@link Options}, and the `targetTokens` of
 * `summarizeTurns` (1200) and `summarizeSummaries` (2000).
 *
 * @since 0.1.0
 */
export const defaults = {
  timeout: Duration.seconds(120),
  normalTemperature: 0.2,
  aggressiveTemperature: 0.1,
  maxTokens: 4096,
  leafTargetTokens: 1200,
  condenseTargetTokens: 2000
} as const

/**
 * The Summarizer's options, their bounds and defaults: `timeout` (the
 * deadline of each LLM tier, a positive finite duration such as
 * `"30 seconds"`; default 120 seconds), `normalTemperature` (default 0.2) and
 * `aggressiveTemperature` (default 0.1), each in [0, 2], and `maxTokens` (the
 * token cap of each LLM reply, an integer >= 1; default 4096).
 *
 * @since 0.1.0
 */
export const Options = Schema.Struct({
  timeout: Schema.optionalWith(OptionSchema.duration({ positive: true }), { default: () => defaults.timeout }),
  normalTemperature: Schema.optionalWith(OptionSchema.number({ min: 0, max: 2 }), {
    default: () => defaults.normalTemperature
  }),
  aggressiveTemperature: Schema.optionalWith(OptionSchema.number({ min: 0, max: 2 }), {
    default: () => defaults.aggressiveTemperature
  }),
  maxTokens: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => defaults.maxTokens })
})

/**
 * The options as given (each may be left out): what {@link layer} takes.
 *
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Encoded<typeof Options> {}

/**
 * The options with every default applied.
 *
 * @since 0.1.0
 */
export interface ResolvedOptions extends Schema.Schema.Type<typeof Options> {}

/**
 * Options that make no sense (`maxTokens: 0`, `timeout: "abc"`): every
 * problem found, one per option.
 *
 * @since 0.1.0
 */
export class InvalidSummarizerOptionsError extends OptionError.InvalidOptions(
  "InvalidSummarizerOptionsError",
  "Summarizer"
) {}

/**
 * Applies the defaults to `options` and checks them against {@link Options}.
 *
 * @example
 * ```ts
 * import { OptionConfig, OptionError, OptionSchema, Summarizer } from "@precis/core"
 * Summarizer.decodeOptions({ timeout: "abc", maxTokens: 0 })
 * // Left(InvalidSummarizerOptionsError): timeout must be a positive finite duration such as "30 seconds"
 * // (got "abc"); maxTokens must be an integer >= 1 (got 0)
 * ```
 * @since 0.1.0
 */
export const decodeOptions: (
  options: Options
) => Either.Either<ResolvedOptions, InvalidSummarizerOptionsError> = OptionSchema.decode(
  Options,
  (problems) => new InvalidSummarizerOptionsError({ problems })
)

/**
 * A counter of Summarizer calls, tagged with `tier` when incremented.
 *
 * @since 0.1.0
 */
export const callsCounter = Metric.counter("precis_summarizer_calls", {
  description: "Summarizer calls, by the tier that produced the summary",
  incremental: true
})

const tierCounters: Record<Tier, Metric.Metric.Counter<number>> = {
  normal: Metric.tagged(callsCounter, "tier", "normal"),
  aggressive: Metric.tagged(callsCounter, "tier", "aggressive"),
  fallback: Metric.tagged(callsCounter, "tier", "fallback")
}

const normalizeTarget = (targetTokens: number | undefined, fallback: number): number =>
  targetTokens === undefined || !Number.isFinite(targetTokens) ? fallback : Math.max(1, Math.floor(targetTokens))

// Each call runs in its span. Unlike `Effect.fn`, no stack trace is captured per
// call: an `Error` per call costs more than the rest of the span.
const traced = <A>(name: string, effect: Effect.Effect<A>): Effect.Effect<A> =>
  Effect.withSpan(effect, name, { captureStackTrace: false })

/**
 * Builds a Summarizer from the `Provider` in context (and the `TokenEstimator`,
 * which defaults to the approximation), after checking `options` (an
 * {@link InvalidSummarizerOptionsError} when they make no sense). Each build
 * has its own tier counts.
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const { aggressiveTemperature, maxTokens, normalTemperature, timeout } = yield* decodeOptions(options)
  const provider = yield* Provider
  const estimator = yield* TokenEstimator
  const counts = yield* Ref.make<TierCounts>(emptyTierCounts)

  const env: Tiers.Env = { provider, estimator, timeout, maxTokens, normalTemperature, aggressiveTemperature }

  // Whichever tier wrote it, the summary is counted (the Ref and the metric) and its span annotated.
  const summarize = (task: Tiers.Task): Effect.Effect<Summary> =>
    Tiers.escalate(env, task).pipe(
      Effect.tap((summary) =>
        Effect.zipRight(
          Ref.update(counts, (c) => incrementTier(c, summary.tier)),
          Effect.zipRight(
            Metric.increment(tierCounters[summary.tier]),
            Effect.annotateCurrentSpan({
              "precis.tier": summary.tier,
              "precis.input_tokens": summary.inputTokens,
              "precis.output_tokens": summary.outputTokens,
              "precis.facts_dropped": summary.dropped.length
            })
          )
        )
      )
    )

  return Summarizer.of({
    summarizeTurns: (turns, opts = {}) =>
      traced(
        "Summarizer.summarizeTurns",
        Effect.suspend(() => {
          const targetTokens = normalizeTarget(opts.targetTokens, defaults.leafTargetTokens)
          const items = SummaryTask.turnsOf(turns)
          return summarize(
            opts.priorSummary === undefined
              ? { kind: "leaf", turns: items, targetTokens }
              : { kind: "leaf", turns: items, targetTokens, priorSummary: opts.priorSummary }
          )
        })
      ),
    summarizeSummaries: (summaries, opts = {}) =>
      traced(
        "Summarizer.summarizeSummaries",
        Effect.sync(() => normalizeTarget(opts.targetTokens, defaults.condenseTargetTokens)).pipe(
          Effect.flatMap((targetTokens) => summarize({ kind: "condense", summaries, targetTokens }))
        )
      ),
    tierCounts: Ref.get(counts)
  })
})

/**
 * The fallback text: `material` truncated to `targetTokens` (at least 1) by the
 * estimator, trailing white space removed, then a newline and
 * {@link Prompt.truncationMarker}. Pure and total.
 *
 * @since 0.1.0
 */
export const fallbackText = (
  estimator: TokenEstimator["Type"],
  material: string,
  targetTokens: number
): string => Tiers.fallbackText(estimator, material, targetTokens)

/**
 * The Summarizer layer; it needs only a `Provider`. Its options are checked
 * when the layer is built: options that make no sense (`timeout: "abc"`,
 * `maxTokens: 0`, a temperature outside [0, 2]) fail the build with an
 * {@link InvalidSummarizerOptionsError}, never later and never as a defect.
 * Without options it cannot fail.
 *
 * @example
 * ```ts
 * import { Summarizer } from "@precis/core"
 * const Default = Summarizer.layer() // Layer<Summarizer, never, Provider>
 * const Faster = Summarizer.layer({ timeout: "30 seconds" }) // Layer<Summarizer, InvalidSummarizerOptionsError, Provider>
 * ```
 * @since 0.1.0
 */
export function layer(): Layer.Layer<Summarizer, never, Provider>
export function layer(options?: Options): Layer.Layer<Summarizer, InvalidSummarizerOptionsError, Provider>
export function layer(options?: Options): Layer.Layer<Summarizer, InvalidSummarizerOptionsError, Provider> {
  return Layer.effect(Summarizer, make(options))
}

/**
 * {@link Options} read from `Config`, each from its variable
 * (`PRECIS_SUMMARIZER_` and the option's name in capitals):
 * `PRECIS_SUMMARIZER_TIMEOUT` (seconds, or a duration such as `30 seconds`),
 * `PRECIS_SUMMARIZER_NORMAL_TEMPERATURE`, `PRECIS_SUMMARIZER_AGGRESSIVE_TEMPERATURE`,
 * `PRECIS_SUMMARIZER_MAX_TOKENS`. Only the variables set give a value (the
 * defaults apply to the others when the layer is built); each is checked
 * against {@link Options}, a bad one an `InvalidData` error at its variable.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = OptionConfig.config("PRECIS_SUMMARIZER_", Options)

/**
 * The Summarizer layer with its options read from {@link config} (or the given `Config`).
 *
 * @since 0.1.0
 */
export const layerConfig = (
  options: Config.Config<Options> = config
): Layer.Layer<Summarizer, ConfigError.ConfigError | InvalidSummarizerOptionsError, Provider> =>
  Layer.effect(Summarizer, Effect.flatMap(options, make))
