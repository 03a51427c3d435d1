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
