/**
 * The one list of transport failures (a refused connection, an unknown host,
 * TLS, a reset, ...), whether each is permanent, and how a failure's code is
 * read from an HTTP client's error. `ProviderError` exports it.
 *
 * @internal
 */
/**
 * A kind of transport failure: its code (a system error code such as
 * `ECONNREFUSED`, or precis's own name for a failure that has none), whether
 * it will heal by itself, and what it means.
 *
 * @internal
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
 * @internal
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
 * @internal
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
 * @internal
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

