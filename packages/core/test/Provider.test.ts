import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Provider from "../src/Provider.js"

describe("Provider.retryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z")

  it("reads seconds", () => {
    assert.deepStrictEqual(Provider.retryAfter({ "retry-after": "7" }, now), Option.some(Duration.seconds(7)))
    assert.deepStrictEqual(Provider.retryAfter({ "retry-after": " 1.5 " }, now), Option.some(Duration.seconds(1.5)))
  })

  it("reads an HTTP date relative to now, a past date meaning no wait", () => {
    assert.deepStrictEqual(
      Provider.retryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, now),
      Option.some(Duration.seconds(30))
    )
    assert.deepStrictEqual(
      Provider.retryAfter({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }, now),
      Option.some(Duration.zero)
    )
  })

  it("prefers retry-after-ms", () => {
    assert.deepStrictEqual(
      Provider.retryAfter({ "retry-after-ms": "250", "retry-after": "1" }, now),
      Option.some(Duration.millis(250))
    )
  })

  it("ignores a missing or unreadable header", () => {
    assert.isTrue(Option.isNone(Provider.retryAfter({}, now)))
    assert.isTrue(Option.isNone(Provider.retryAfter({ "retry-after": "soon" }, now)))
  })
})

describe("Provider.stripReasoning", () => {
  it("removes every think block", () => {
    assert.strictEqual(Provider.stripReasoning("<think>a</think>Answer <thinking>b\nc</thinking>here."), "Answer here.")
  })

  it("drops an unclosed block (the reply was cut while reasoning)", () => {
    assert.strictEqual(Provider.stripReasoning("Answer.\n<think>and more reasoning"), "Answer.")
    assert.strictEqual(Provider.stripReasoning("<think>only reasoning, cut off"), "")
  })

  it("drops reasoning before a stray closing tag", () => {
    assert.strictEqual(Provider.stripReasoning("reasoning opened by the template</think>\nAnswer."), "Answer.")
  })

  it("leaves other text alone", () => {
    assert.strictEqual(Provider.stripReasoning("  The <b>build</b> passed.  "), "The <b>build</b> passed.")
  })
})

describe("Provider.isPermanent", () => {
  const provider = "t"
  it("refused credentials, an unknown model or endpoint and a refused connection will not heal", () => {
    assert.isTrue(Provider.isPermanent(new Provider.UnauthorizedError({ provider, status: 401 })))
    assert.isTrue(Provider.isPermanent(new Provider.UnauthorizedError({ provider, status: 403 })))
    assert.isTrue(Provider.isPermanent(new Provider.BadRequestError({ provider, status: 404, detail: "no such model" })))
    assert.isTrue(Provider.isPermanent(new Provider.TransportError({ provider, reason: "refused", code: "ECONNREFUSED" })))
    assert.isTrue(Provider.isPermanent(new Provider.TransportError({ provider, reason: "no host", code: "ENOTFOUND" })))
  })

  it("what may pass (resets, timeouts, rate limits, server errors, a request too long) is not permanent", () => {
    assert.isFalse(Provider.isPermanent(new Provider.TransportError({ provider, reason: "reset", code: "ECONNRESET" })))
    assert.isFalse(Provider.isPermanent(new Provider.TransportError({ provider, reason: "body cut" })))
    assert.isFalse(Provider.isPermanent(new Provider.TimeoutError({ provider, timeout: Duration.seconds(1) })))
    assert.isFalse(Provider.isPermanent(new Provider.RateLimitedError({ provider })))
    assert.isFalse(Provider.isPermanent(new Provider.ServerError({ provider, status: 503 })))
    assert.isFalse(Provider.isPermanent(new Provider.BadRequestError({ provider, status: 400, detail: "context too long" })))
    assert.isFalse(Provider.isPermanent(new Provider.BadResponseError({ provider, detail: "not JSON" })))
  })
})
