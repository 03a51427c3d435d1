/**
 * A precis `Provider` for servers speaking OpenAI's Chat Completions protocol:
 * OpenAI itself, Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter, ...
 *
 * It runs on `@effect/platform`'s `HttpClient`, which the application provides
 * (for example `NodeHttpClient.layerUndici` from `@effect/platform-node`).
 *
 * | Outcome                                   | `ProviderError`     | Retried |
 * | ----------------------------------------- | ------------------- | ------- |
 * | connection refused / reset, body cut      | `TransportError`    | yes     |
 * | no response within `timeout`              | `TimeoutError`      | no      |
 * | 429                                       | `RateLimitedError`  | yes     |
 * | 401, 403                                  | `UnauthorizedError` | no      |
 * | 400, 404, 422                             | `BadRequestError`   | no      |
 * | 408, 5xx                                  | `ServerError`       | yes     |
 * | any other non-2xx status                  | `ServerError`       | no      |
 * | malformed JSON, unexpected shape          | `BadResponseError`  | no      |
 *
 * @since 0.1.0
 */
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { OptionConfig, OptionError, OptionSchema, Prompt, Provider, ProviderError, Redact } from "@precis/core"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Attempt from "./internal/attempt.js"
import { endpoint } from "./internal/http.js"

/**
 * The defaults of {@link Options} and {@link RetryOptions}.
 *
 * @since 0.1.0
 */
export const defaults = {
  baseUrl: "https://api.openai.com/v1",
  name: "openai",
  tokenParameter: "max_tokens",
  timeout: Duration.seconds(120),
  retry: {
    maxAttempts: 4,
    initialDelay: Duration.millis(500),
    maxDelay: Duration.seconds(20),
    maxElapsed: Duration.seconds(60)
  }
} as const

/**
 * The retry policy for transient failures (transport errors, 408, 429, 5xx).
 * Waits grow exponentially from `initialDelay` with jitter, each capped at
 * `maxDelay`; a `Retry-After` longer than the computed wait is honoured, and
 * one longer than `maxDelay` ends the retries (the `RateLimitedError` then
 * carries it). No new attempt starts once `maxElapsed` has passed since the
 * first failure, so a call lasts at most about
 * `maxElapsed + maxDelay + timeout`.
 *
 * @since 0.1.0
 */
export const RetryOptions = Schema.Struct({
  /** Attempts in all, the first included: an integer >= 1. Default 4; 1 disables retries. */
  maxAttempts: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => defaults.retry.maxAttempts }),
  /** The first wait. Default 500 milliseconds. */
  initialDelay: Schema.optionalWith(OptionSchema.duration(), { default: () => defaults.retry.initialDelay }),
  /** The longest single wait. Default 20 seconds. */
  maxDelay: Schema.optionalWith(OptionSchema.duration(), { default: () => defaults.retry.maxDelay }),
  /** No retry starts after this much time since the first failure. Default 60 seconds. */
  maxElapsed: Schema.optionalWith(OptionSchema.duration({ infinite: true }), {
    default: () => defaults.retry.maxElapsed
  })
})

/**
 * The retry options as given (each may be left out).
 *
 * @since 0.1.0
 */
export interface RetryOptions extends Schema.Schema.Encoded<typeof RetryOptions> {}

/**
 * The provider's options, their bounds and defaults.
 *
 * @since 0.1.0
 */
export const Options = Schema.Struct({
  /** The model name sent in each request, e.g. `gpt-4o-mini` or `llama3.1:8b`: not empty. */
  model: OptionSchema.nonEmptyString,
  /**
   * The API root, without `/chat/completions`: an http(s) URL without user,
   * password or fragment; a query (`?api-version=...`) is kept after the
   * path. Default `https://api.openai.com/v1`.
   */
  baseUrl: Schema.optionalWith(OptionSchema.url, { default: () => defaults.baseUrl }),
  /** Sent as `Authorization: Bearer …` when set (and not empty); local servers usually need none. */
  apiKey: Schema.optional(Schema.RedactedFromSelf(Schema.String)),
  /**
   * The name of the token cap in the request body. Default `max_tokens`;
   * OpenAI's reasoning models (o1, o3, gpt-5, ...) require `max_completion_tokens`.
   */
  tokenParameter: Schema.optionalWith(OptionSchema.literal("max_tokens", "max_completion_tokens"), {
    default: () => defaults.tokenParameter
  }),
  /** The deadline of one HTTP attempt; it fails with `TimeoutError` and is not retried. Default 120 seconds. */
  timeout: Schema.optionalWith(OptionSchema.duration({ positive: true }), { default: () => defaults.timeout }),
  /** See {@link RetryOptions}. */
  retry: Schema.optionalWith(RetryOptions, { default: () => defaults.retry }),
  /** Extra request headers, e.g. OpenRouter's `HTTP-Referer` and `X-Title`. */
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  /** The provider name in errors, logs and spans: not empty. Default `openai`. */
  name: Schema.optionalWith(OptionSchema.nonEmptyString, { default: () => defaults.name }),
  /**
   * The most bytes read of one response body (an integer >= 1); a longer body
   * is a `BadResponseError` and is not read further. Default
   * {@link responseLimit} of the request's `maxTokens` (1 MiB plus 32 bytes a token).
   */
  maxResponseBytes: Schema.optional(OptionSchema.int({ min: 1 }))
})

/**
 * The options as given: `model`, and any of the others.
 *
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Encoded<typeof Options> {}

/**
 * Options that make no sense (an empty model, `maxResponseBytes: -1`, a
 * timeout of `"abc"`): every problem found, one per option.
 *
 * @since 0.1.0
 */
export class InvalidOpenAiOptionsError extends OptionError.InvalidOptions(
  "InvalidOpenAiOptionsError",
  "OpenAI provider"
) {}

/**
 * Applies the defaults to `options` and checks them against {@link Options}.
 *
 * @since 0.1.0
 */
export const decodeOptions: (
  options: Options
) => Either.Either<Schema.Schema.Type<typeof Options>, InvalidOpenAiOptionsError> = OptionSchema.decode(
  Options,
  (problems) => new InvalidOpenAiOptionsError({ problems })
)

/**
 * The default cap on a response body for a request of `maxTokens`: 1 MiB for
 * the envelope plus 32 bytes a token (a token is about 4 characters; JSON
 * escaping can make one character 6 bytes). A reply larger than that cannot be
 * the summary that was asked for.
 *
 * @since 0.1.0
 */
export const responseLimit = (maxTokens: number): number => 1024 * 1024 + 32 * Math.max(0, maxTokens)

/**
 * Whether a failure is worth another attempt: transport errors (but a refused
 * connection or an unknown host), 429, 408 and 5xx. Timeouts, bad requests,
 * refused credentials and unreadable responses are not.
 *
 * @since 0.1.0
 */
export const isTransient = (error: ProviderError.ProviderError): boolean => {
  switch (error._tag) {
    case "TransportError":
      // A refused connection or an unknown host will not answer a retry either.
      return !ProviderError.isPermanent(error)
    case "RateLimitedError":
      return true
    case "ServerError":
      return error.status === 408 || error.status >= 500
    default:
      return false
  }
}

/**
 * The retry schedule of {@link RetryOptions}, fed with the failures of each attempt.
 *
 * @since 0.1.0
 */
export const retrySchedule = (options: RetryOptions = {}): Schedule.Schedule<unknown, ProviderError.ProviderError> => {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? defaults.retry.maxAttempts))
  const initialDelay = Duration.decode(options.initialDelay ?? defaults.retry.initialDelay)
  const maxDelay = Duration.decode(options.maxDelay ?? defaults.retry.maxDelay)
  const maxElapsed = Duration.decode(options.maxElapsed ?? defaults.retry.maxElapsed)
  const backoff = Schedule.jittered(Schedule.exponential(initialDelay))
  return Schedule.identity<ProviderError.ProviderError>().pipe(
    Schedule.intersect(backoff),
    Schedule.modifyDelay(([error], delay) => {
      const capped = Duration.min(delay, maxDelay)
      return error._tag === "RateLimitedError" && error.retryAfter !== undefined
        ? Duration.max(capped, error.retryAfter)
        : capped
    }),
    Schedule.whileInput((error: ProviderError.ProviderError) =>
      isTransient(error) &&
      !(error._tag === "RateLimitedError" && error.retryAfter !== undefined &&
        Duration.greaterThan(error.retryAfter, maxDelay))
    ),
    Schedule.intersect(Schedule.recurs(maxAttempts - 1)),
    Schedule.upTo(maxElapsed)
  )
}

/**
 * Builds the provider from the `HttpClient` in context, after checking its
 * options (an {@link InvalidOpenAiOptionsError} when they make no sense).
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(input: Options) {
  const options = yield* decodeOptions(input)
  const { model, name, timeout, tokenParameter } = options
  const schedule = retrySchedule(options.retry)
  // An empty key is no key: local servers are configured with `PRECIS_OPENAI_API_KEY=`.
  const apiKey = options.apiKey !== undefined && Redacted.value(options.apiKey).length > 0
    ? options.apiKey
    : undefined
  const url = endpoint(options.baseUrl)
  // What logs, spans and messages show of the URL: no credentials, no query values.
  const shownUrl = Redact.url(url)
  const client = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest((request) =>
      request.pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.setHeaders(options.headers ?? {}),
        apiKey === undefined ? (r) => r : HttpClientRequest.bearerToken(apiKey)
      )
    ),
    // The client's own span records the full URL (`url.full`, `url.query`) as it is: it is left
    // out when that would show a secret, and the call's span carries the URL as `Redact.url` shows it.
    HttpClient.withTracerDisabledWhen(() => shownUrl !== url)
  )

  const target: Attempt.Target = { client, url, shownUrl, name, model, timeout, apiKey }

  const chat = Effect.fn("OpenAiProvider.chat", {
    attributes: {
      "precis.provider": name,
      "gen_ai.system": "openai",
      "gen_ai.request.model": model,
      "url.full": shownUrl
    }
  })(function*(request: Provider.ChatRequest) {
    const body = HttpBody.unsafeJson({
      model,
      // A summary task is rendered here, once: the prompt is sent, never parsed back.
      messages: Prompt.messages(request),
      temperature: request.temperature,
      [tokenParameter]: request.maxTokens
    })
    const limit = options.maxResponseBytes ?? responseLimit(request.maxTokens)
    let attempts = 0
    const response = yield* Effect.suspend(() => {
      attempts++
      return Attempt.attempt(target, body, limit)
    }).pipe(
      Effect.retry(schedule),
      Effect.tapBoth({
        onFailure: (error) =>
          Effect.annotateCurrentSpan({ "precis.status": error._tag, "precis.attempts": attempts }),
        onSuccess: (response) =>
          Effect.annotateCurrentSpan({
            "precis.status": "ok",
            "precis.attempts": attempts,
            ...(response.usage === undefined ? {} : {
              "gen_ai.usage.input_tokens": response.usage.inputTokens,
              "gen_ai.usage.output_tokens": response.usage.outputTokens
            })
          })
      })
    )
    return response
  })

  return Provider.Provider.of({ name, chat })
})

/**
 * The provider as a layer; it needs an `HttpClient`. Its options are checked
 * when the layer is built: options that make no sense fail the build with an
 * {@link InvalidOpenAiOptionsError}.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Summarizer } from "@precis/core"
 * import { OpenAiProvider } from "@precis/provider-openai"
 * import { Layer } from "effect"
 *
 * // Ollama on this machine: no key needed.
 * const SummarizerLive = Summarizer.layer().pipe(
 *   Layer.provide(OpenAiProvider.layer({ baseUrl: "http://localhost:11434/v1", model: "llama3.1:8b" })),
 *   Layer.provide(NodeHttpClient.layerUndici)
 * )
 * ```
 * @since 0.1.0
 */
export const layer = (
  options: Options
): Layer.Layer<Provider.Provider, InvalidOpenAiOptionsError, HttpClient.HttpClient> =>
  Layer.effect(Provider.Provider, make(options))

/**
 * {@link Options} read from `Config`, each from its variable (`PRECIS_OPENAI_`
 * and the option's name in capitals), only those set:
 * - `PRECIS_OPENAI_MODEL` (required);
 * - `PRECIS_OPENAI_BASE_URL` (default `https://api.openai.com/v1`);
 * - `PRECIS_OPENAI_API_KEY`, else `OPENAI_API_KEY` (optional; local servers need none;
 *   `PRECIS_OPENAI_API_KEY=` set but empty sends no key even when `OPENAI_API_KEY` is set);
 * - `PRECIS_OPENAI_TOKEN_PARAMETER`, `PRECIS_OPENAI_TIMEOUT`, `PRECIS_OPENAI_NAME`,
 *   `PRECIS_OPENAI_MAX_RESPONSE_BYTES`, and `PRECIS_OPENAI_RETRY_MAX_ATTEMPTS`,
 *   `..._RETRY_INITIAL_DELAY`, `..._RETRY_MAX_DELAY`, `..._RETRY_MAX_ELAPSED`.
 *
 * Each is checked against {@link Options}, a bad one an `InvalidData` error
 * at its variable. Extend it with `Config.map` to set the headers.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all([
  OptionConfig.config("PRECIS_OPENAI_", Options),
  Config.redacted("PRECIS_OPENAI_API_KEY").pipe(
    Config.orElse(() => Config.redacted("OPENAI_API_KEY")),
    Config.option
  )
]).pipe(
  Config.map(([options, apiKey]) => Option.isSome(apiKey) ? { ...options, apiKey: apiKey.value } : options)
)

/**
 * The provider layer with its options read from {@link config} (or the given `Config`).
 *
 * @example
 * ```ts
 * import { Config } from "effect"
 * import { OpenAiProvider } from "@precis/provider-openai"
 * const ProviderLive = OpenAiProvider.layerConfig(
 *   Config.map(OpenAiProvider.config, (options) => ({ ...options, timeout: "30 seconds" }))
 * )
 * ```
 * @since 0.1.0
 */
export const layerConfig = (
  options: Config.Config<Options> = config
): Layer.Layer<Provider.Provider, ConfigError.ConfigError | InvalidOpenAiOptionsError, HttpClient.HttpClient> =>
  Layer.effect(Provider.Provider, Effect.flatMap(options, make))
