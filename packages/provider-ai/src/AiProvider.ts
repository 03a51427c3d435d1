/**
 * A precis `Provider` from any `@effect/ai` `LanguageModel` (OpenAI, Anthropic,
 * Google, Amazon Bedrock, OpenRouter, ...).
 *
 * `@effect/ai` 0.37 has no provider-neutral temperature or token cap: each
 * provider package reads them from its own config service, set per call with
 * its `withConfigOverride`. The {@link Options.configure} option receives each
 * precis `ChatRequest` and returns the transformer that applies them; the
 * helpers {@link openAiConfig} and {@link anthropicConfig} build it from the
 * provider's own `withConfigOverride`, so this package does not depend on
 * either provider package:
 *
 * ```ts
 * import { OpenAiLanguageModel } from "@effect/ai-openai"
 * import { AnthropicLanguageModel } from "@effect/ai-anthropic"
 * import { AiProvider } from "@precis/provider-ai"
 *
 * AiProvider.layer({ name: "openai", configure: AiProvider.openAiConfig(OpenAiLanguageModel.withConfigOverride) })
 * AiProvider.layer({ name: "anthropic", configure: AiProvider.anthropicConfig(AnthropicLanguageModel.withConfigOverride) })
 * ```
 *
 * Without `configure`, the model runs with its own defaults.
 *
 * `AiError`s become `ProviderError`s:
 *
 * | `AiError`                                  | `ProviderError`     |
 * | ------------------------------------------ | ------------------- |
 * | `HttpRequestError` (any reason)            | `TransportError`    |
 * | `HttpResponseError` 401, 403               | `UnauthorizedError` |
 * | `HttpResponseError` 429                    | `RateLimitedError`  |
 * | `HttpResponseError` 400, 404, 422          | `BadRequestError`   |
 * | `HttpResponseError` other status           | `ServerError`       |
 * | `HttpResponseError` `Decode` / `EmptyBody` | `BadResponseError`  |
 * | `MalformedOutput`                          | `BadResponseError`  |
 * | `MalformedInput`                           | `BadRequestError` (no status: refused before sending) |
 * | `UnknownError`                             | `BadResponseError`  |
 *
 * Retries are the model's business (`@effect/ai` clients accept a
 * `transformClient`, e.g. `HttpClient.retryTransient`).
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import { OptionError, OptionSchema, Prompt as TaskPrompt, Provider, ProviderError } from "@precis/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { fromAiError } from "./internal/errors.js"

/**
 * Something that wraps the model call, such as `withConfigOverride({ ... })`.
 *
 * @since 0.1.0
 */
export type Transformer = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * From a precis request to the transformer applying its settings to the model call.
 *
 * @since 0.1.0
 */
export type Configure = (request: Provider.ChatRequest) => Transformer

/**
 * The provider's options that are data, their bounds and defaults: `name`
 * (in errors and spans; not empty, default `ai`) and `timeout` (a deadline
 * for each call, failing with `TimeoutError`: a positive finite duration;
 * default none, the Summarizer has its own).
 *
 * @since 0.1.0
 */
export const Options = Schema.Struct({
  name: Schema.optionalWith(OptionSchema.nonEmptyString, { default: () => "ai" }),
  timeout: Schema.optional(OptionSchema.duration({ positive: true }))
})

/**
 * The options as given: any of {@link Options}'s fields, and `configure`.
 *
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Encoded<typeof Options> {
  /** Applies the request's temperature and token cap to the model call; see the module docs. */
  readonly configure?: Configure | undefined
}

/**
 * Options that make no sense (an empty name, a timeout of `"abc"`): every
 * problem found, one per option.
 *
 * @since 0.1.0
 */
export class InvalidAiProviderOptionsError extends OptionError.InvalidOptions(
  "InvalidAiProviderOptionsError",
  "AI provider"
) {}

const decodeOptions = OptionSchema.decode(Options, (problems) => new InvalidAiProviderOptionsError({ problems }))

/**
 * A {@link Configure} from a provider's `withConfigOverride` and the overrides for a request.
 *
 * @example
 * ```ts
 * import { GoogleLanguageModel } from "@effect/ai-google"
 * import { AiProvider } from "@precis/provider-ai"
 * const configure = AiProvider.configOverride(GoogleLanguageModel.withConfigOverride, (request) => ({
 *   generationConfig: { temperature: request.temperature, maxOutputTokens: request.maxTokens }
 * }))
 * ```
 * @since 0.1.0
 */
export const configOverride = <Overrides>(
  withConfigOverride: (overrides: Overrides) => Transformer,
  overrides: (request: Provider.ChatRequest) => Overrides
): Configure =>
(request) => withConfigOverride(overrides(request))

/**
 * The OpenAI Responses API settings (`temperature`, `max_output_tokens`) of a request.
 * Pass `OpenAiLanguageModel.withConfigOverride` from `@effect/ai-openai`.
 * OpenAI's reasoning models reject `temperature`: for them, use
 * `configOverride(withConfigOverride, (r) => ({ max_output_tokens: r.maxTokens }))`.
 *
 * @since 0.1.0
 */
export const openAiConfig = (
  withConfigOverride: (overrides: { readonly temperature: number; readonly max_output_tokens: number }) => Transformer
): Configure =>
  configOverride(withConfigOverride, (request) => ({
    temperature: request.temperature,
    max_output_tokens: request.maxTokens
  }))

/**
 * The Anthropic Messages API settings (`temperature`, `max_tokens`) of a request.
 * Pass `AnthropicLanguageModel.withConfigOverride` from `@effect/ai-anthropic`.
 *
 * @since 0.1.0
 */
export const anthropicConfig = (
  withConfigOverride: (overrides: { readonly temperature: number; readonly max_tokens: number }) => Transformer
): Configure =>
  configOverride(withConfigOverride, (request) => ({
    temperature: request.temperature,
    max_tokens: request.maxTokens
  }))

// A summary task is rendered here, once (`Prompt.messages` of @precis/core): the prompt is sent, never parsed back.
const toPrompt = (request: Provider.ChatRequest): ReadonlyArray<Prompt.MessageEncoded> =>
  TaskPrompt.messages(request).map((message): Prompt.MessageEncoded => ({ role: message.role, content: message.content }))

/**
 * Builds the provider from the `LanguageModel` in context, after checking its
 * options (an {@link InvalidAiProviderOptionsError} when they make no sense).
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const { name, timeout } = yield* decodeOptions(options)
  const model = yield* LanguageModel.LanguageModel
  const configure = options.configure ?? (() => identity)

  const chat = (request: Provider.ChatRequest): Effect.Effect<Provider.ChatResponse, ProviderError.ProviderError> => {
    const call = model.generateText({ prompt: toPrompt(request) }).pipe(
      configure(request),
      Effect.catchAll((error: AiError.AiError) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(fromAiError(name, error, now)))
      ),
      Effect.map((response): Provider.ChatResponse => {
        const { inputTokens, outputTokens } = response.usage
        const text = Provider.stripReasoning(response.text)
        return inputTokens === undefined || outputTokens === undefined
          ? { text }
          : { text, usage: { inputTokens, outputTokens } }
      })
    )
    return (timeout === undefined ? call : Effect.timeoutFail(call, {
      duration: timeout,
      onTimeout: () => new ProviderError.TimeoutError({ provider: name, timeout })
    })).pipe(
      Effect.tapBoth({
        onFailure: (error) => Effect.annotateCurrentSpan("precis.status", error._tag),
        onSuccess: () => Effect.annotateCurrentSpan("precis.status", "ok")
      }),
      Effect.withSpan("AiProvider.chat", { attributes: { "precis.provider": name } })
    )
  }

  return Provider.Provider.of({ name, chat })
})

/**
 * The provider as a layer over the `LanguageModel` in context. Its options
 * are checked when the layer is built; without options it cannot fail.
 *
 * @example
 * ```ts
 * import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Summarizer } from "@precis/core"
 * import { AiProvider } from "@precis/provider-ai"
 * import { Config, Layer } from "effect"
 *
 * const SummarizerLive = Summarizer.layer().pipe(
 *   Layer.provide(AiProvider.layer({ name: "openai", configure: AiProvider.openAiConfig(OpenAiLanguageModel.withConfigOverride) })),
 *   Layer.provide(OpenAiLanguageModel.model("gpt-4o-mini")),
 *   Layer.provide(OpenAiClient.layerConfig({ apiKey: Config.redacted("OPENAI_API_KEY") })),
 *   Layer.provide(NodeHttpClient.layerUndici)
 * )
 * ```
 * @since 0.1.0
 */
export function layer(): Layer.Layer<Provider.Provider, never, LanguageModel.LanguageModel>
export function layer(
  options?: Options
): Layer.Layer<Provider.Provider, InvalidAiProviderOptionsError, LanguageModel.LanguageModel>
export function layer(
  options?: Options
): Layer.Layer<Provider.Provider, InvalidAiProviderOptionsError, LanguageModel.LanguageModel> {
  return Layer.effect(Provider.Provider, make(options))
}
