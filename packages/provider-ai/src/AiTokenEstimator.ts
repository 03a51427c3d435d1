/**
 * A precis `TokenEstimator` from an `@effect/ai` `Tokenizer` (for example
 * `OpenAiTokenizer.layer({ model })` or `AnthropicTokenizer.layer`).
 *
 * precis's estimator is synchronous, while a `Tokenizer` returns Effects. The
 * tokenizers `@effect/ai` ships are synchronous inside (`Effect.try` around a
 * local BPE), so each estimate runs the tokenizer with `Runtime.runSyncExit`.
 * The layer checks this once when it is built: a tokenizer that suspends
 * (one calling a remote counting endpoint, say) cannot serve a synchronous
 * estimator, and the layer fails with {@link UnusableTokenizerError} rather than
 * blocking or guessing. If a later call fails, that one estimate falls back to
 * precis's approximation, because estimation must be total.
 *
 * `Tokenizer.truncate` keeps whole trailing *messages* that fit, so it cannot
 * shorten one text; `truncate` here binary-searches the longest prefix (in code
 * points, never splitting a surrogate pair) whose token count fits.
 *
 * Counts include the tokenizer's message framing (`OpenAiTokenizer` counts a
 * one-message chat, a few tokens more than the bare text), which errs on the
 * safe side.
 *
 * @since 0.1.0
 */
import * as Tokenizer from "@effect/ai/Tokenizer"
import { TokenEstimator } from "@precis/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"

/**
 * The tokenizer cannot back a synchronous estimator: it suspends, or it failed on a probe text.
 *
 * @since 0.1.0
 */
export class UnusableTokenizerError extends Data.TaggedError("UnusableTokenizerError")<{ readonly detail: string }> {
  override get message(): string {
    return `the tokenizer cannot be used as a precis TokenEstimator: ${this.detail}`
  }
}

/**
 * Builds the estimator from the `Tokenizer` in context, after checking that it runs synchronously.
 *
 * @since 0.1.0
 */
export const make: Effect.Effect<TokenEstimator.Service, UnusableTokenizerError, Tokenizer.Tokenizer> = Effect.gen(
  function*() {
    const tokenizer = yield* Tokenizer.Tokenizer
    const runtime = yield* Effect.runtime<never>()
    const runSync = Runtime.runSyncExit(runtime)

    const probe = runSync(tokenizer.tokenize("precis"))
    if (Exit.isFailure(probe)) {
      const defect = probe.cause._tag === "Die" ? probe.cause.defect : undefined
      if (Runtime.isAsyncFiberException(defect)) {
        // runSync left the suspended fiber running: stop it.
        yield* Fiber.interrupt(defect.fiber)
        return yield* new UnusableTokenizerError({ detail: "its tokenize effect is asynchronous" })
      }
      return yield* new UnusableTokenizerError({ detail: "it failed on a probe text" })
    }

    // Tokens of `text`, or undefined when the tokenizer fails on it.
    const count = (text: string): number | undefined => {
      const exit = runSync(tokenizer.tokenize(text))
      return Exit.isSuccess(exit) ? exit.value.length : undefined
    }

    const estimate = (text: string): number => {
      const tokens = count(text)
      return tokens === undefined ? TokenEstimator.approximate.estimate(text) : Math.max(1, tokens)
    }

    const truncate = (text: string, maxTokens: number): string => {
      const budget = Math.max(0, Math.floor(maxTokens))
      const whole = count(text)
      if (whole === undefined) return TokenEstimator.approximate.truncate(text, maxTokens)
      if (whole <= budget) return text
      // Invariant: the prefix of `low` code points fits (0 always does), that of `high + 1` does not.
      let low = 0
      let high = TokenEstimator.codePointLength(text) - 1
      while (low < high) {
        const mid = Math.ceil((low + high) / 2)
        const tokens = count(TokenEstimator.takeCodePoints(text, mid))
        if (tokens === undefined) return TokenEstimator.approximate.truncate(text, maxTokens)
        if (tokens <= budget) low = mid
        else high = mid - 1
      }
      return TokenEstimator.takeCodePoints(text, low)
    }

    return { estimate, truncate }
  }
)

/**
 * A layer replacing the default estimator with one backed by the `Tokenizer` in context.
 *
 * @example
 * ```ts
 * import { OpenAiTokenizer } from "@effect/ai-openai"
 * import { Summarizer } from "@precis/core"
 * import { AiTokenEstimator } from "@precis/provider-ai"
 * import { Layer } from "effect"
 *
 * const EstimatorLive = AiTokenEstimator.layer.pipe(Layer.provide(OpenAiTokenizer.layer({ model: "gpt-4o" })))
 * // Summarizer.layer() reads the TokenEstimator from context:
 * const SummarizerWithTokenizer = Summarizer.layer().pipe(Layer.provide(EstimatorLive))
 * ```
 * @since 0.1.0
 */
export const layer: Layer.Layer<TokenEstimator.TokenEstimator, UnusableTokenizerError, Tokenizer.Tokenizer> = Layer
  .effect(TokenEstimator.TokenEstimator, make)
