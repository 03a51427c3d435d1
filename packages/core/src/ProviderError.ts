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

/**
 * A kind of transport failure: its code (a system error code such as
 * `ECONNREFUSED`, or precis's own name for a failure that has none), whether
 * it will heal by itself, and what it means.
 *
 * @since 0.3.0
 */
export interface TransportFailure {
  readonly code: string
  readonly permanent: boolean
  readonly meaning: string
}

/**
 * Every transport failure precis tells apart, the one list: a permanent one
 * (nobody will ever answer at that URL as it is) stops compaction at once, a
 * transient one is retried. A code not in the list counts as transient. TLS
 * failures are one entry, `ERR_TLS`, whatever the library calls them
 * (`ERR_SSL_*`, `ERR_TLS_*`, `*CERT*`, `UNABLE_TO_*`, `EPROTO`: see {@link transportFailure}).
 *
 * @since 0.3.0
 */
export const transportFailures: ReadonlyArray<TransportFailure> = [
  { code: "ECONNREFUSED", permanent: true, meaning: "nobody listens at that host and port" },
  { code: "ENOTFOUND", permanent: true, meaning: "the host name does not resolve" },
  { code: "EAI_FAIL", permanent: true, meaning: "the host name cannot be resolved" },
  { code: "ERR_INVALID_URL", permanent: true, meaning: "the URL cannot be used" },
  { code: "ERR_BAD_PORT", permanent: true, meaning: "the HTTP client refuses to connect to that port (fetch blocks 1, 6000, ...)" },
  { code: "ERR_UNSUPPORTED_SCHEME", permanent: true, meaning: "the HTTP client does not speak that scheme" },
  { code: "ERR_URL_CREDENTIALS", permanent: true, meaning: "the URL holds a user or a password, which fetch refuses" },
  { code: "ERR_TLS", permanent: true, meaning: "TLS failed: https to an http server, or a certificate not trusted" },
  { code: "ECONNRESET", permanent: false, meaning: "the connection was reset" },
  { code: "EPIPE", permanent: false, meaning: "the connection was closed while writing" },
  { code: "ECONNABORTED", permanent: false, meaning: "the connection was aborted" },
  { code: "ETIMEDOUT", permanent: false, meaning: "the connection timed out" },
  { code: "EAI_AGAIN", permanent: false, meaning: "the name server did not answer in time" },
  { code: "EHOSTUNREACH", permanent: false, meaning: "no route to the host" },
  { code: "ENETUNREACH", permanent: false, meaning: "the network is unreachable" },
  { code: "ENETDOWN", permanent: false, meaning: "the network is down" },
  { code: "UND_ERR_SOCKET", permanent: false, meaning: "the socket failed" },
  { code: "UND_ERR_CLOSED", permanent: false, meaning: "the connection closed" },
  { code: "UND_ERR_CONNECT_TIMEOUT", permanent: false, meaning: "connecting timed out" },
  { code: "UND_ERR_HEADERS_TIMEOUT", permanent: false, meaning: "the response headers did not arrive in time" },
  { code: "UND_ERR_BODY_TIMEOUT", permanent: false, meaning: "the response body stalled" }
]

const byCode = new Map(transportFailures.map((failure) => [failure.code, failure]))
const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|EPROTO$|UNABLE_TO_)|CERT/

/**
 * The entry of {@link transportFailures} for `code`: its own, or `ERR_TLS` for
 * any TLS failure; `undefined` for a code not in the list (transient).
 *
 * @example
 * ```ts
 * import { ProviderError } from "@precis/core"
 * ProviderError.transportFailure("ERR_SSL_WRONG_VERSION_NUMBER")?.code // "ERR_TLS"
 * ProviderError.transportFailure("ECONNRESET")?.permanent // false
 * ```
 * @since 0.3.0
 */
export const transportFailure = (code: string | undefined): TransportFailure | undefined =>
  code === undefined ? undefined : byCode.get(code) ?? (TLS_CODE.test(code) ? byCode.get("ERR_TLS") : undefined)

// What HTTP clients say without a code, and the code of the list it stands for.
const MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bbad port\b/i, "ERR_BAD_PORT"],
  [/unknown scheme|not implemented\.\.\. yet/i, "ERR_UNSUPPORTED_SCHEME"],
  [/includes credentials/i, "ERR_URL_CREDENTIALS"],
  [/invalid url|failed to parse url/i, "ERR_INVALID_URL"]
]

/**
 * The code of a failed connection, read from `cause` (an error of the HTTP
 * client) and the causes it wraps: the first `code` found (`ECONNREFUSED`,
 * `ERR_SSL_WRONG_VERSION_NUMBER`, ...), else the code of the list a known
 * message stands for (fetch's `bad port` is `ERR_BAD_PORT`, a URL with
 * credentials `ERR_URL_CREDENTIALS`) or that it names; `undefined` when
 * nothing tells.
 *
 * @example
 * ```ts
 * import { ProviderError } from "@precis/core"
 * ProviderError.transportCode(new TypeError("fetch failed", { cause: new Error("bad port") })) // "ERR_BAD_PORT"
 * ```
 * @since 0.3.0
 */
export const transportCode = (cause: unknown): string | undefined => {
  const messages: Array<string> = []
  for (let current = cause, depth = 0; typeof current === "object" && current !== null && depth < 5; depth++) {
    if ("code" in current && typeof current.code === "string") return current.code
    if ("message" in current && typeof current.message === "string") messages.push(current.message)
    current = "cause" in current ? current.cause : undefined
  }
  for (const message of messages) {
    const known = MESSAGES.find(([pattern]) => pattern.test(message))
    if (known !== undefined) return known[1]
    // A code of the list named in the text (`connect ECONNREFUSED 127.0.0.1:1`).
    const named = /\b(?:E[A-Z_]{3,}|ERR_[A-Z_]+|UND_ERR_[A-Z_]+)\b/.exec(message)?.[0]
    if (named !== undefined && transportFailure(named) !== undefined) return named
  }
  return undefined
}

/**
 * Whether a provider failure will not heal by itself: refused credentials
 * (401/403), an unknown model or endpoint (404), or a transport failure the
 * list calls permanent ({@link transportFailures}: a refused connection, an
 * unknown host, an unusable URL or port, a TLS failure). Compaction stops at
 * such a failure instead of storing fallback truncations.
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
      return transportFailure(error.code)?.permanent === true
    default:
      return false
  }
}

const EXCERPT_LENGTH = 300

/**
 * `text` on one line (runs of whitespace become one space), cut to 300
 * characters with `…`: how server bodies and outside descriptions appear in
 * error messages.
 *
 * @example
 * ```ts
 * import { ProviderError } from "@precis/core"
 * ProviderError.excerpt("upstream\n  timed out") // "upstream timed out"
 * ```
 * @since 0.1.0
 */
export const excerpt = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= EXCERPT_LENGTH ? flat : `${flat.slice(0, EXCERPT_LENGTH)}…`
}

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

// OpenAI: { error: { message } }; Anthropic: { type: "error", error: { type, message } };
// others: { error: "..." }, { message }, { detail }.
const messageOf = (body: unknown): string | undefined => {
  if (typeof body === "string") return body
  if (typeof body !== "object" || body === null) return undefined
  const record = body as Record<string, unknown>
  for (const key of ["error", "message", "detail"]) {
    const value = record[key]
    const found = typeof value === "object" && value !== null ? messageOf(value) : value
    if (typeof found === "string" && found.trim().length > 0) return found
  }
  return undefined
}

// The server's own message from an error body (else the body itself), masked and shortened.
const bodyDetail = (body: string | undefined, secret: Redacted.Redacted | undefined): string | undefined => {
  if (body === undefined || body.trim().length === 0) return undefined
  let message: string | undefined
  try {
    message = messageOf(JSON.parse(body))
  } catch {
    // Not JSON: the text itself.
  }
  if (message === undefined || message.trim().length === 0) message = body
  return excerpt(Redact.url(secret === undefined ? message : Redact.secret(message, Redacted.value(secret))))
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
  const detail = bodyDetail(options.body, options.secret)
  if (status === 401 || status === 403) return new UnauthorizedError({ provider, status, detail })
  if (status === 429) return new RateLimitedError({ provider, retryAfter: options.retryAfter })
  if (status === 400 || status === 404 || status === 422) {
    const missing = status === 404 && options.notFound !== undefined ? options.notFound : "no details given"
    return new BadRequestError({ provider, status, detail: detail ?? missing })
  }
  return new ServerError({ provider, status, detail })
}
