/**
 * The LLM port: everything precis needs from a language model is one chat call.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 */
export const ChatRole = Schema.Literal("system", "user", "assistant")

/**
 * @since 0.1.0
 */
export type ChatRole = typeof ChatRole.Type

/**
 * One message of a chat request.
 *
 * @since 0.1.0
 */
export const ChatMessage = Schema.Struct({ role: ChatRole, content: Schema.String })

/**
 * @since 0.1.0
 */
export type ChatMessage = typeof ChatMessage.Type

/**
 * The kind of summarization work a request carries.
 *
 * @since 0.1.0
 */
export const TaskKind = Schema.Literal("leaf", "condense", "aggressive")

/**
 * @since 0.1.0
 */
export type TaskKind = typeof TaskKind.Type

/**
 * A structured description of the work behind a request, always filled by the
 * Summarizer. HTTP providers ignore it; the extractive provider works from it
 * instead of parsing the prompt. `material` is the formatted transcript or the
 * rendered summaries, without instructions.
 *
 * @since 0.1.0
 */
export const SummaryTask = Schema.Struct({
  kind: TaskKind,
  material: Schema.String,
  targetTokens: Schema.Number,
  priorSummary: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 */
export type SummaryTask = typeof SummaryTask.Type

/**
 * @since 0.1.0
 */
export const ChatRequest = Schema.Struct({
  messages: Schema.Array(ChatMessage),
  temperature: Schema.Number,
  maxTokens: Schema.Number,
  task: Schema.optional(SummaryTask)
})

/**
 * @since 0.1.0
 */
export type ChatRequest = typeof ChatRequest.Type

/**
 * Token usage as reported by the model, when it reports it.
 *
 * @since 0.1.0
 */
export const Usage = Schema.Struct({ inputTokens: Schema.Number, outputTokens: Schema.Number })

/**
 * @since 0.1.0
 */
export type Usage = typeof Usage.Type

/**
 * @since 0.1.0
 */
export const ChatResponse = Schema.Struct({ text: Schema.String, usage: Schema.optional(Usage) })

/**
 * @since 0.1.0
 */
export type ChatResponse = typeof ChatResponse.Type

/**
 * The connection failed or broke before a response arrived.
 *
 * @since 0.1.0
 */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly provider: string
  readonly reason: string
  /** The system error code when there is one (`ECONNREFUSED`, `ENOTFOUND`, ...). */
  readonly code?: string | undefined
}> {
  override get message(): string {
    return `${this.provider}: could not reach the model server (${this.reason})`
  }
}

/**
 * The provider's own deadline passed.
 *
 * @since 0.1.0
 */
export class TimeoutError extends Data.TaggedError("TimeoutError")<{
  readonly provider: string
  readonly timeout: Duration.Duration
}> {
  override get message(): string {
    return `${this.provider}: no response within ${Duration.format(this.timeout)}`
  }
}

/**
 * HTTP 429: the server asked to slow down, possibly saying for how long.
 *
 * @since 0.1.0
 */
export class RateLimitedError extends Data.TaggedError("RateLimitedError")<{
  readonly provider: string
  readonly retryAfter?: Duration.Duration | undefined
}> {
  override get message(): string {
    const wait = this.retryAfter === undefined ? "" : `; retry after ${Duration.format(this.retryAfter)}`
    return `${this.provider}: rate limited by the model server${wait}`
  }
}

/**
 * HTTP 401/403: the key is missing, wrong, or lacks access. The key itself is never included.
 *
 * @since 0.1.0
 */
export class UnauthorizedError extends Data.TaggedError("UnauthorizedError")<{
  readonly provider: string
  readonly status: number
  readonly detail?: string | undefined
}> {
  override get message(): string {
    const detail = this.detail === undefined ? "" : `: ${this.detail}`
    return `${this.provider}: the server refused the credentials (HTTP ${this.status})${detail}; check the API key`
  }
}

/**
 * The request was rejected (HTTP 400/404/422: unknown model, context too long, ...),
 * or refused before it was sent (`status` absent).
 *
 * @since 0.1.0
 */
export class BadRequestError extends Data.TaggedError("BadRequestError")<{
  readonly provider: string
  readonly status?: number | undefined
  readonly detail: string
}> {
  override get message(): string {
    const status = this.status === undefined ? "" : ` (HTTP ${this.status})`
    return `${this.provider}: the request was rejected${status}: ${this.detail}`
  }
}

/**
 * HTTP 5xx (and other unexpected statuses).
 *
 * @since 0.1.0
 */
export class ServerError extends Data.TaggedError("ServerError")<{
  readonly provider: string
  readonly status: number
  readonly detail?: string | undefined
}> {
  override get message(): string {
    const detail = this.detail === undefined ? "" : `: ${this.detail}`
    return `${this.provider}: server error (HTTP ${this.status})${detail}`
  }
}

/**
 * A response arrived but could not be understood.
 *
 * @since 0.1.0
 */
export class BadResponseError extends Data.TaggedError("BadResponseError")<{
  readonly provider: string
  readonly detail: string
}> {
  override get message(): string {
    return `${this.provider}: unreadable response from the model server: ${this.detail}`
  }
}

/**
 * Every way a provider call can fail.
 *
 * @since 0.1.0
 */
export type ProviderError =
  | TransportError
  | TimeoutError
  | RateLimitedError
  | UnauthorizedError
  | BadRequestError
  | ServerError
  | BadResponseError

// Codes of connections that will not succeed on a retry: nobody listens there, or
// the host does not exist, or the URL cannot be used at all.
const PERMANENT_TRANSPORT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_FAIL", "ERR_INVALID_URL"])

/**
 * Whether a provider failure will not heal by itself: refused credentials
 * (401/403), an unknown model or endpoint (404), or a connection that is
 * refused or cannot be made (`ECONNREFUSED`, `ENOTFOUND`, an invalid URL).
 * Compaction stops at such a failure instead of storing fallback truncations.
 *
 * @since 0.2.0
 */
export const isPermanent = (error: ProviderError): boolean => {
  switch (error._tag) {
    case "UnauthorizedError":
      return true
    case "BadRequestError":
      return error.status === 404
    case "TransportError":
      return error.code !== undefined && PERMANENT_TRANSPORT_CODES.has(error.code)
    default:
      return false
  }
}

/**
 * @since 0.1.0
 */
export interface Service {
  /** A short name used in error messages and spans, e.g. `"openai"`. */
  readonly name: string
  readonly chat: (request: ChatRequest) => Effect.Effect<ChatResponse, ProviderError>
}

/**
 * The Provider service tag.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Provider } from "@precis/core"
 * const echo = Layer.succeed(Provider.Provider, Provider.Provider.of({
 *   name: "echo",
 *   chat: (request) => Effect.succeed({ text: request.messages.at(-1)?.content ?? "" })
 * }))
 * ```
 * @since 0.1.0
 */
export class Provider extends Context.Tag("@precis/core/Provider")<Provider, Service>() {}

/**
 * A layer from a `chat` function.
 *
 * @since 0.1.0
 */
export const layerFromChat = (
  name: string,
  chat: Service["chat"]
): Layer.Layer<Provider> => Layer.succeed(Provider, Provider.of({ name, chat }))

const THINK_BLOCK = /<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi
const THINK_OPEN = /<think(?:ing)?>/i
const THINK_CLOSE = /<\/think(?:ing)?>/i

/**
 * Removes reasoning from a model's reply, for providers whose models think
 * aloud: every `<think>…</think>` (or `<thinking>`) block, everything after an
 * unclosed `<think>` (the reply was cut while still reasoning) and everything
 * before a stray leading `</think>` (templates that open the block in the
 * prompt). The result is trimmed.
 *
 * @since 0.1.0
 */
export const stripReasoning = (text: string): string => {
  let out = text.replace(THINK_BLOCK, "")
  const close = out.search(THINK_CLOSE)
  if (close >= 0) out = out.slice(close).replace(THINK_CLOSE, "")
  const open = out.search(THINK_OPEN)
  if (open >= 0) out = out.slice(0, open)
  return out.trim()
}

/**
 * How long an HTTP server asked to wait before a retry: `retry-after-ms`
 * (OpenAI), else `Retry-After` in seconds or as an HTTP date (relative to
 * `now`, in epoch milliseconds; a date in the past means no wait). Header
 * names are lower case, as `@effect/platform` gives them.
 *
 * @since 0.1.0
 */
export const retryAfter = (
  headers: Readonly<Record<string, string | undefined>>,
  now: number
): Option.Option<Duration.Duration> => {
  const ms = headers["retry-after-ms"]
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Option.some(Duration.millis(Number(ms)))
  const value = headers["retry-after"]?.trim()
  if (value === undefined || value.length === 0) return Option.none()
  if (/^\d+(\.\d+)?$/.test(value)) return Option.some(Duration.seconds(Number(value)))
  const date = Date.parse(value)
  return Number.isNaN(date) ? Option.none() : Option.some(Duration.millis(Math.max(0, date - now)))
}
