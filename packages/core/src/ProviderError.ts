/**
 * Every way a provider call can fail, and the constructors that map outside
 * failures (an HTTP status, a `Retry-After` header, a server's error body) to
 * them once for every provider.
 *
 * | HTTP status    | error               |
 * | -------------- | ------------------- |
 * | 401, 403       | `UnauthorizedError` |
 * | 429            | `RateLimitedError` (with its `Retry-After`) |
 * | 400, 404, 422  | `BadRequestError`   |
 * | any other      | `ServerError`       |
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Redact from "./Redact.js"
import * as ErrorBody from "./internal/errorBody.js"
import { transportFailure } from "./internal/transport.js"

/**
 * The mark every provider error carries, whatever its class.
 *
 * @since 0.1.0
 */
export const TypeId = "~@precis/core/ProviderError"

/**
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

/**
 * Whether a value is a provider error (any of the classes below).
 *
 * @example
 * ```ts
 * import { ProviderError } from "@precis/core"
 * ProviderError.isProviderError(new ProviderError.BadResponseError({ provider: "openai", detail: "not JSON" })) // true
 * ProviderError.isProviderError(new Error("boom")) // false
 * ```
 * @since 0.1.0
 */
export const isProviderError = (u: unknown): u is ProviderError => Predicate.hasProperty(u, TypeId)

/**
 * The connection failed or broke before a response arrived.
 *
 * @since 0.1.0
 */
export class TransportError extends Schema.TaggedError<TransportError>(
  "@precis/core/ProviderError/TransportError"
)("TransportError", {
  provider: Schema.String,
  reason: Schema.String,
  /** The system error code when there is one (`ECONNREFUSED`, `ENOTFOUND`, ...). */
  code: Schema.optional(Schema.String)
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
  override get message(): string {
    // The reason may quote the URL: its credentials and query values are not shown.
    return `${this.provider}: could not reach the model server (${Redact.url(this.reason)})`
  }
}

/**
 * The provider's own deadline passed.
 *
 * @since 0.1.0
 */
export class TimeoutError extends Schema.TaggedError<TimeoutError>(
  "@precis/core/ProviderError/TimeoutError"
)("TimeoutError", {
  provider: Schema.String,
  timeout: Schema.Duration
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
  override get message(): string {
    return `${this.provider}: no response within ${Duration.format(this.timeout)}`
  }
}

/**
 * HTTP 429: the server asked to slow down, possibly saying for how long.
 *
 * @since 0.1.0
 */
export class RateLimitedError extends Schema.TaggedError<RateLimitedError>(
  "@precis/core/ProviderError/RateLimitedError"
)("RateLimitedError", {
  provider: Schema.String,
  retryAfter: Schema.optional(Schema.Duration)
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
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
export class UnauthorizedError extends Schema.TaggedError<UnauthorizedError>(
  "@precis/core/ProviderError/UnauthorizedError"
)("UnauthorizedError", {
  provider: Schema.String,
  status: Schema.Number,
  detail: Schema.optional(Schema.String)
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
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
export class BadRequestError extends Schema.TaggedError<BadRequestError>(
  "@precis/core/ProviderError/BadRequestError"
)("BadRequestError", {
  provider: Schema.String,
  status: Schema.optional(Schema.Number),
  detail: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
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
export class ServerError extends Schema.TaggedError<ServerError>(
  "@precis/core/ProviderError/ServerError"
)("ServerError", {
  provider: Schema.String,
  status: Schema.Number,
  detail: Schema.optional(Schema.String)
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
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
export class BadResponseError extends Schema.TaggedError<BadResponseError>(
  "@precis/core/ProviderError/BadResponseError"
)("BadResponseError", {
  provider: Schema.String,
  detail: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
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

/**
 * The Schema of every provider error, to decode one that was serialized
 * (sent by a worker, stored in a log).
 *
 * @since 0.1.0
 */
export const ProviderError: Schema.Union<[
  typeof TransportError,
  typeof TimeoutError,
  typeof RateLimitedError,
  typeof UnauthorizedError,
  typeof BadRequestError,
  typeof ServerError,
  typeof BadResponseError
]> = Schema.Union(
  TransportError,
  TimeoutError,
  RateLimitedError,
  UnauthorizedError,
  BadRequestError,
  ServerError,
  BadResponseError
)

export {
  /**
   * The code of a failed connection, read from an HTTP client's error and the
   * causes it wraps (see `internal/transport.ts`).
   *
   * @since 0.1.0
   */
  transportCode,
  /**
   * The entry of {@link transportFailures} for a code (`ERR_TLS` for any TLS
   * failure); `undefined` for a code not in the list (transient).
   *
   * @since 0.1.0
   */
  transportFailure,
  /**
   * Every transport failure precis tells apart, the one list: permanent or
   * transient, with what each means.
   *
   * @since 0.1.0
   */
  transportFailures,
  /**
   * A kind of transport failure: its code, whether it heals by itself, what it means.
   *
   * @since 0.1.0
   */
  type TransportFailure
} from "./internal/transport.js"

/**
 * Whether a provider failure will not heal by itself: refused credentials
 * (401/403), an unknown model or endpoint (404), a redirect the adapter did
 * not follow (3xx: the base URL is wrong), or a transport failure the
 * list calls permanent ({@link transportFailures}: a refused connection, an
 * unknown host, an unusable URL or port, a TLS failure). Compaction stops at
 * such a failure instead of storing fallback truncations.
 *
 * @since 0.1.0
 */
export const isPermanent = (error: ProviderError): boolean => {
  switch (error._tag) {
    case "UnauthorizedError":
      return true
    case "BadRequestError":
      // An unknown endpoint or model, or a redirect not followed: the base URL or the model is wrong.
      return error.status !== undefined && (error.status === 404 || (error.status >= 300 && error.status < 400))
    case "TransportError":
      return transportFailure(error.code)?.permanent === true
    default:
      return false
  }
}

/**
 * `text` on one line (runs of whitespace become one space), cut to 300
 * characters with `…`: how server bodies and outside descriptions appear in
 * error messages (`excerpt("upstream\n  timed out")` is `"upstream timed out"`).
 *
 * @since 0.1.0
 */
export const excerpt: (text: string) => string = ErrorBody.excerpt

/**
 * How long an HTTP server asked to wait before a retry: `retry-after-ms`
 * (OpenAI), else `Retry-After` in seconds or as an HTTP date (relative to
 * `now`, in epoch milliseconds, which callers read from `Clock`; a date in the
 * past means no wait). Header names are lower case, as `@effect/platform`
 * gives them.
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

/**
 * What {@link fromHttpStatus} knows besides the status.
 *
 * @since 0.1.0
 */
export interface HttpStatusOptions {
  /** The provider's name, first in every message. */
  readonly provider: string
  /**
   * The response body. Its error message (`error.message`, `error`, `message`
   * or `detail` of a JSON body), else the body itself, becomes the detail, on
   * one line and at most 300 characters.
   */
  readonly body?: string | undefined
  /** For a 429: how long the server asked to wait (see {@link retryAfter}). */
  readonly retryAfter?: Duration.Duration | undefined
  /**
   * The API key, masked as `[redacted]` wherever the server echoed it in the
   * body, in any case or in part (`Redact.secret`).
   */
  readonly secret?: Redacted.Redacted | undefined
  /** The detail of a 404 whose body says nothing, e.g. naming the model asked for. */
  readonly notFound?: string | undefined
}

/**
 * The error an unsuccessful HTTP status stands for: 401 and 403 are
 * `UnauthorizedError`, 429 `RateLimitedError` (with `retryAfter`), 400, 404
 * and 422 `BadRequestError`, any other status `ServerError`.
 *
 * @example
 * ```ts
 * import { ProviderError } from "@precis/core"
 * const error = ProviderError.fromHttpStatus(404, {
 *   provider: "openai",
 *   body: JSON.stringify({ error: { message: "The model `gpt-x` does not exist" } })
 * })
 * // BadRequestError: "openai: the request was rejected (HTTP 404): The model `gpt-x` does not exist"
 * ```
 * @since 0.1.0
 */
export const fromHttpStatus = (status: number, options: HttpStatusOptions): ProviderError => {
  const provider = options.provider
  const detail = ErrorBody.detail(options.body, options.secret)
  if (status === 401 || status === 403) return new UnauthorizedError({ provider, status, detail })
  if (status === 429) return new RateLimitedError({ provider, retryAfter: options.retryAfter })
  if (status === 400 || status === 404 || status === 422) {
    const missing = status === 404 && options.notFound !== undefined ? options.notFound : "no details given"
    return new BadRequestError({ provider, status, detail: detail ?? missing })
  }
  return new ServerError({ provider, status, detail })
}
