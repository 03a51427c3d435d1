import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Equal from "effect/Equal"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as ProviderError from "../src/ProviderError.js"

describe("ProviderError.retryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z")

  it("reads seconds", () => {
    assert.deepStrictEqual(ProviderError.retryAfter({ "retry-after": "7" }, now), Option.some(Duration.seconds(7)))
    assert.deepStrictEqual(ProviderError.retryAfter({ "retry-after": " 1.5 " }, now), Option.some(Duration.seconds(1.5)))
  })

  it("reads an HTTP date relative to now, a past date meaning no wait", () => {
    assert.deepStrictEqual(
      ProviderError.retryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, now),
      Option.some(Duration.seconds(30))
    )
    assert.deepStrictEqual(
      ProviderError.retryAfter({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }, now),
      Option.some(Duration.zero)
    )
  })

  it("prefers retry-after-ms", () => {
    assert.deepStrictEqual(
      ProviderError.retryAfter({ "retry-after-ms": "250", "retry-after": "1" }, now),
      Option.some(Duration.millis(250))
    )
  })

  it("ignores a missing or unreadable header", () => {
    assert.isTrue(Option.isNone(ProviderError.retryAfter({}, now)))
    assert.isTrue(Option.isNone(ProviderError.retryAfter({ "retry-after": "soon" }, now)))
  })
})

describe("ProviderError.fromHttpStatus", () => {
  const provider = "test"

  it("maps each status to the error of the same meaning", () => {
    const cases: ReadonlyArray<readonly [number, ProviderError.ProviderError["_tag"]]> = [
      [401, "UnauthorizedError"],
      [403, "UnauthorizedError"],
      [429, "RateLimitedError"],
      [400, "BadRequestError"],
      [404, "BadRequestError"],
      [422, "BadRequestError"],
      [408, "ServerError"],
      [409, "ServerError"],
      [500, "ServerError"],
      [529, "ServerError"]
    ]
    for (const [status, tag] of cases) {
      const error = ProviderError.fromHttpStatus(status, { provider, body: "nope" })
      assert.strictEqual(error._tag, tag, `HTTP ${status}`)
      assert.isTrue(error.message.startsWith("test: "), error.message)
      if (tag !== "RateLimitedError") assert.include(error.message, `HTTP ${status}`)
    }
  })

  it("keeps the wait a 429 asked for", () => {
    const error = ProviderError.fromHttpStatus(429, { provider, retryAfter: Duration.seconds(12) })
    if (error._tag !== "RateLimitedError") return assert.fail(error._tag)
    assert.deepStrictEqual(error.retryAfter, Duration.seconds(12))
    assert.include(error.message, "retry after 12s")
  })

  it("reads the server's message from OpenAI, Anthropic and flat error bodies", () => {
    const detail = (body: string) => {
      const error = ProviderError.fromHttpStatus(500, { provider, body })
      return error._tag === "ServerError" ? error.detail : assert.fail(error._tag)
    }
    assert.strictEqual(detail(JSON.stringify({ error: { message: "model not found" } })), "model not found")
    assert.strictEqual(
      detail(JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })),
      "Overloaded"
    )
    assert.strictEqual(detail(JSON.stringify({ error: "model 'x' not found" })), "model 'x' not found")
    assert.strictEqual(detail(JSON.stringify({ message: "quota" })), "quota")
    assert.strictEqual(detail(JSON.stringify({ detail: "Not Found" })), "Not Found")
    assert.strictEqual(detail("upstream\n  timed out"), "upstream timed out")
    // A JSON body without a message is shown as it is.
    assert.strictEqual(detail(JSON.stringify({ code: 7 })), "{\"code\":7}")
    assert.strictEqual(detail(""), undefined)
    assert.strictEqual(detail("  \n"), undefined)
  })

  it("shortens long bodies and masks the key wherever the server echoed it", () => {
    const error = ProviderError.fromHttpStatus(401, {
      provider,
      body: JSON.stringify({ error: { message: `key sk-123 is wrong, sk-123 ${"x".repeat(1000)}` } }),
      secret: Redacted.make("sk-123")
    })
    if (error._tag !== "UnauthorizedError") return assert.fail(error._tag)
    assert.isTrue(error.detail?.startsWith("key [redacted] is wrong, [redacted] "), error.detail)
    assert.notInclude(error.message, "sk-123")
    assert.strictEqual(error.detail?.length, 301)
    assert.isTrue(error.detail?.endsWith("…"))
  })

  it("says what a 404 without a body means when told, and that nothing was said otherwise", () => {
    const named = ProviderError.fromHttpStatus(404, { provider, notFound: "no such endpoint or model (m)" })
    assert.include(named.message, "HTTP 404): no such endpoint or model (m)")
    assert.include(ProviderError.fromHttpStatus(404, { provider }).message, "no details given")
    assert.include(ProviderError.fromHttpStatus(400, { provider, notFound: "unused" }).message, "no details given")
    assert.include(ProviderError.fromHttpStatus(404, { provider, body: "gone", notFound: "unused" }).message, ": gone")
  })
})

describe("ProviderError.excerpt", () => {
  it("puts text on one line", () => {
    assert.strictEqual(ProviderError.excerpt("  a\n\tb   c  "), "a b c")
  })

  it("cuts at 300 characters with an ellipsis", () => {
    assert.strictEqual(ProviderError.excerpt("x".repeat(300)), "x".repeat(300))
    assert.strictEqual(ProviderError.excerpt("x".repeat(301)), `${"x".repeat(300)}…`)
  })
})

describe("ProviderError.isPermanent", () => {
  const provider = "t"
  it("refused credentials, an unknown model or endpoint and a refused connection will not heal", () => {
    assert.isTrue(ProviderError.isPermanent(new ProviderError.UnauthorizedError({ provider, status: 401 })))
    assert.isTrue(ProviderError.isPermanent(new ProviderError.UnauthorizedError({ provider, status: 403 })))
    assert.isTrue(ProviderError.isPermanent(new ProviderError.BadRequestError({ provider, status: 404, detail: "no such model" })))
    assert.isTrue(ProviderError.isPermanent(new ProviderError.TransportError({ provider, reason: "refused", code: "ECONNREFUSED" })))
    assert.isTrue(ProviderError.isPermanent(new ProviderError.TransportError({ provider, reason: "no host", code: "ENOTFOUND" })))
  })

  it("what may pass (resets, timeouts, rate limits, server errors, a request too long) is not permanent", () => {
    assert.isFalse(ProviderError.isPermanent(new ProviderError.TransportError({ provider, reason: "reset", code: "ECONNRESET" })))
    assert.isFalse(ProviderError.isPermanent(new ProviderError.TransportError({ provider, reason: "body cut" })))
    assert.isFalse(ProviderError.isPermanent(new ProviderError.TimeoutError({ provider, timeout: Duration.seconds(1) })))
    assert.isFalse(ProviderError.isPermanent(new ProviderError.RateLimitedError({ provider })))
    assert.isFalse(ProviderError.isPermanent(new ProviderError.ServerError({ provider, status: 503 })))
    assert.isFalse(ProviderError.isPermanent(new ProviderError.BadRequestError({ provider, status: 400, detail: "context too long" })))
    assert.isFalse(ProviderError.isPermanent(new ProviderError.BadResponseError({ provider, detail: "not JSON" })))
  })
})

describe("ProviderError transport classification: the one list", () => {
  const provider = "t"
  const transport = (code: string | undefined) => new ProviderError.TransportError({ provider, reason: "x", code })

  it("each entry of the list is classified as the list says", () => {
    for (const failure of ProviderError.transportFailures) {
      assert.strictEqual(ProviderError.isPermanent(transport(failure.code)), failure.permanent, failure.code)
      assert.strictEqual(ProviderError.transportFailure(failure.code), failure)
    }
    // The classes the hostile runs hit: https against http, a port fetch refuses, a URL with credentials,
    // a scheme fetch does not speak, a refused connection, an unknown host; and the ones that heal.
    for (const code of ["ERR_TLS", "ERR_BAD_PORT", "ERR_URL_CREDENTIALS", "ERR_UNSUPPORTED_SCHEME", "ECONNREFUSED", "ENOTFOUND"]) {
      assert.isTrue(ProviderError.isPermanent(transport(code)), code)
    }
    for (const code of ["ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "UND_ERR_SOCKET", "ENETUNREACH"]) {
      assert.isFalse(ProviderError.isPermanent(transport(code)), code)
    }
  })

  it("every TLS failure is the one TLS entry, permanent; an unknown code or none is transient", () => {
    for (
      const code of [
        "ERR_SSL_WRONG_VERSION_NUMBER",
        "ERR_SSL_PACKET_LENGTH_TOO_LONG",
        "ERR_TLS_CERT_ALTNAME_INVALID",
        "DEPTH_ZERO_SELF_SIGNED_CERT",
        "SELF_SIGNED_CERT_IN_CHAIN",
        "CERT_HAS_EXPIRED",
        "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
        "EPROTO"
      ]
    ) {
      assert.strictEqual(ProviderError.transportFailure(code)?.code, "ERR_TLS", code)
      assert.isTrue(ProviderError.isPermanent(transport(code)), code)
    }
    for (const code of ["EWHATEVER", "E2BIG", undefined]) assert.isFalse(ProviderError.isPermanent(transport(code)))
  })

  it("reads the code from an HTTP client's error and the causes it wraps, else from what it says", () => {
    const fetchFailed = (cause: unknown) => new TypeError("fetch failed", { cause })
    const coded = (code: string, message = code) => Object.assign(new Error(message), { code })
    const cases: ReadonlyArray<readonly [unknown, string | undefined]> = [
      [fetchFailed(coded("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1")), "ECONNREFUSED"],
      [fetchFailed(coded("ERR_SSL_WRONG_VERSION_NUMBER")), "ERR_SSL_WRONG_VERSION_NUMBER"],
      [{ cause: fetchFailed(coded("ENOTFOUND")) }, "ENOTFOUND"],
      [fetchFailed(new Error("bad port")), "ERR_BAD_PORT"],
      [fetchFailed(new Error("unknown scheme")), "ERR_UNSUPPORTED_SCHEME"],
      [fetchFailed(new Error("not implemented... yet...")), "ERR_UNSUPPORTED_SCHEME"],
      [new TypeError("Request cannot be constructed from a URL that includes credentials: http://u:pw@h/"), "ERR_URL_CREDENTIALS"],
      [new TypeError("Failed to parse URL from http://h:99999/"), "ERR_INVALID_URL"],
      [new Error("connect ECONNREFUSED 127.0.0.1:8787"), "ECONNREFUSED"],
      [new Error("socket hang up"), undefined],
      ["a string", undefined],
      [undefined, undefined]
    ]
    for (const [cause, code] of cases) assert.strictEqual(ProviderError.transportCode(cause), code, String(cause))
  })

  it("a transport error's message never shows a URL's secrets", () => {
    const error = new ProviderError.TransportError({
      provider,
      reason: "Request cannot be constructed from a URL that includes credentials: http://u:PW@h/v1?api_key=K"
    })
    assert.notInclude(error.message, "PW")
    assert.notInclude(error.message, "=K")
    assert.include(error.message, "http://***@h/v1?api_key=***")
  })
})

describe("ProviderError.fromHttpStatus and the key", () => {
  it("masks the key a server echoes, in any case or in part", () => {
    const secret = Redacted.make("sk-test-SECRET123")
    for (const echoed of ["sk-test-SECRET123", "SK-TEST-SECRET123", "sk-test-SECRET12", "k-test-secret12"]) {
      const error = ProviderError.fromHttpStatus(401, { provider: "openai", body: `{"error":{"message":"bad key ${echoed}"}}`, secret })
      assert.strictEqual(error.message, "openai: the server refused the credentials (HTTP 401): bad key [redacted]; check the API key")
    }
  })
})

describe("ProviderError as Schema.TaggedError", () => {
  const provider = "openai"
  const every: ReadonlyArray<ProviderError.ProviderError> = [
    new ProviderError.TransportError({ provider, reason: "refused", code: "ECONNREFUSED" }),
    new ProviderError.TimeoutError({ provider, timeout: Duration.seconds(30) }),
    new ProviderError.RateLimitedError({ provider, retryAfter: Duration.millis(1500) }),
    new ProviderError.RateLimitedError({ provider }),
    new ProviderError.UnauthorizedError({ provider, status: 401, detail: "bad key" }),
    new ProviderError.BadRequestError({ provider, detail: "refused before sending" }),
    new ProviderError.ServerError({ provider, status: 503 }),
    new ProviderError.BadResponseError({ provider, detail: "not JSON" })
  ]

  it("every class carries the TypeId and passes the guard; other values do not", () => {
    for (const error of every) {
      assert.strictEqual(error[ProviderError.TypeId], ProviderError.TypeId, error._tag)
      assert.isTrue(ProviderError.isProviderError(error), error._tag)
    }
    assert.isFalse(ProviderError.isProviderError(new Error("boom")))
    assert.isFalse(ProviderError.isProviderError({ _tag: "TransportError", provider, reason: "forged" }))
    assert.isFalse(ProviderError.isProviderError(undefined))
  })

  it("encodes to JSON and decodes back to an equal error with the same message", () => {
    const encode = Schema.encodeSync(ProviderError.ProviderError)
    const decode = Schema.decodeUnknownSync(ProviderError.ProviderError)
    for (const error of every) {
      const decoded = decode(JSON.parse(JSON.stringify(encode(error))))
      assert.isTrue(Equal.equals(decoded, error), error._tag)
      assert.strictEqual(decoded.message, error.message)
      assert.isTrue(ProviderError.isProviderError(decoded))
    }
  })

  it("refuses a field of the wrong type at construction", () => {
    assert.throws(() => new ProviderError.ServerError({ provider, status: "503" as unknown as number }))
  })

  it("messages are unchanged: readable, one line", () => {
    assert.deepStrictEqual(every.map((error) => error.message), [
      "openai: could not reach the model server (refused)",
      "openai: no response within 30s",
      "openai: rate limited by the model server; retry after 1s 500ms",
      "openai: rate limited by the model server",
      "openai: the server refused the credentials (HTTP 401): bad key; check the API key",
      "openai: the request was rejected: refused before sending",
      "openai: server error (HTTP 503)",
      "openai: unreadable response from the model server: not JSON"
    ])
  })
})
