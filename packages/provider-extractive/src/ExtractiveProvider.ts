/**
 * The embedded default provider: an offline, deterministic, extractive
 * summarizer. It needs no model and no network; it reads the structured
 * `task` of a request (never the prompt) and returns the lines that keep the
 * most of what agents need per token — changes of state (status updates,
 * test results, commits), paths, commands, errors and their fixes,
 * identifiers, numbers, URLs, decisions, the user's and the assistant's
 * prose — each
 * fact counted once, in chronological order, under a token budget, with
 * `[HH:MM] role:` turn prefixes and `…` / `[…]` marks where text was left out.
 *
 * It is honest about what it is: a selection of the source's own lines, not a
 * rewrite. Use it when cost, privacy or reproducibility matter more than prose.
 *
 * @since 0.1.0
 */
import { Provider, ProviderError, SummaryTask, TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Budget from "./internal/budget.js"
import * as internal from "./internal/extract.js"

/**
 * Tuning of the extraction. Every field is optional.
 *
 * - `normalRatio` (default 0.3): share of the input a normal leaf reply may
 *   use, at most `targetTokens`; well under 1 so the Summarizer keeps it at
 *   tier "normal".
 * - `condenseRatio` (default 0.6): the same for a condensation,
 *   whose material is summaries (what the leaves already chose): cut by 0.3
 *   again at every depth, a top summary would keep a few percent of them.
 * - `headLines` / `tailLines` (default 5 / 5): lines at each end of a long
 *   tool output; of its middle only lines with an error or a fact may be kept.
 * - `maxSegmentChars` (default 400): longer lines are split into sentences,
 *   and longer sentences are cut with `…`.
 * - `stateShare` (default 0.25): share of the budget kept for
 *   changes of state (status updates, test results, commits), newest first;
 *   twice that in a condensation.
 * - `proseShare` (default 0.3): share of the budget kept for the
 *   user's and the assistant's prose (not tool calls), the user's requests
 *   first, recent turns before older ones.
 *
 * @since 0.1.0
 */
export type Options = Budget.Options

/**
 * The defaults of {@link Options}.
 *
 * @since 0.1.0
 */
export const defaults: Required<{ readonly [K in keyof Options]: number }> = Budget.defaults

/**
 * The provider's name, used in errors and spans.
 *
 * @since 0.1.0
 */
export const name = "extractive"

/**
 * The largest token estimate a reply to `task` may have: for a normal request
 * `min(targetTokens, ratio × inputTokens)` (`normalRatio` for a leaf, `condenseRatio`
 * for a condensation); for an aggressive request
 * `targetTokens - 1` (strictly under the target). At least 1.
 *
 * @since 0.1.0
 */
export const budget: (task: Provider.SummaryTask, inputTokens: number, options?: Options) => number = Budget.budget

/**
 * The extractive summary of `task`, read from its items: a pure function, the same output
 * for the same input, linear-ish in the material's size. Returns `""` only when
 * the material has no non-blank line.
 *
 * @example
 * ```ts
 * import { TokenEstimator } from "@precis/core"
 * import { ExtractiveProvider } from "@precis/provider-extractive"
 * const text = ExtractiveProvider.extract(
 *   { kind: "leaf", turns: [{ role: "user", content: "fix src/app.ts", timestamp: "2025-01-01T00:00:00Z" }], targetTokens: 100 },
 *   TokenEstimator.approximate
 * )
 * ```
 * @since 0.1.0
 */
export const extract: (
  task: Provider.SummaryTask,
  estimator: TokenEstimator.Service,
  options?: Options
) => string = internal.extract

/**
 * Builds the provider with the `TokenEstimator` in context (the default
 * approximation when none is provided). A request without a `task` fails with
 * a `BadRequestError`: this provider cannot read free-form prompts.
 *
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<Provider.Service> =>
  Effect.map(TokenEstimator.TokenEstimator, (estimator) =>
    Provider.Provider.of({
      name,
      chat: Effect.fn("ExtractiveProvider.chat")(function*(request: Provider.ChatRequest) {
        const task = request.task
        if (task === undefined) {
          return yield* new ProviderError.BadRequestError({
            provider: name,
            detail: "the extractive provider needs a structured `task` (kind, turns or summaries, targetTokens) " +
              "in the request; it does not read free-form prompts"
          })
        }
        const inputTokens = estimator.estimate(SummaryTask.material(task))
        const { outputTokens, text } = internal.extractFrom(task, inputTokens, estimator, options)
        const usage = { inputTokens, outputTokens }
        yield* Effect.annotateCurrentSpan({
          "precis.task": task.kind,
          "precis.input_tokens": usage.inputTokens,
          "precis.output_tokens": usage.outputTokens
        })
        return { text, usage }
      })
    }))

/**
 * The extractive provider as a layer.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Summarizer } from "@precis/core"
 * import { ExtractiveProvider } from "@precis/provider-extractive"
 * const SummarizerLive = Summarizer.layer().pipe(Layer.provide(ExtractiveProvider.layer()))
 * ```
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<Provider.Provider> =>
  Layer.effect(Provider.Provider, make(options))
