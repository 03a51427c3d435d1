import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import { errorDetail, parseRetryAfter, stripThinking } from "../src/internal/completion.js"

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z")

  it("reads seconds", () => {
    assert.deepStrictEqual(parseRetryAfter({ "retry-after": "7" }, now), Option.some(Duration.seconds(7)))
    assert.deepStrictEqual(parseRetryAfter({ "retry-after": " 1.5 " }, now), Option.some(Duration.seconds(1.5)))
  })

  it("reads an HTTP date relative to now, a past date meaning no wait", () => {
    assert.deepStrictEqual(
      parseRetryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, now),
      Option.some(Duration.seconds(30))
    )
    assert.deepStrictEqual(
      parseRetryAfter({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }, now),
      Option.some(Duration.zero)
    )
  })

  it("prefers retry-after-ms", () => {
    assert.deepStrictEqual(
      parseRetryAfter({ "retry-after-ms": "250", "retry-after": "1" }, now),
      Option.some(Duration.millis(250))
    )
  })

  it("ignores a missing or unreadable header", () => {
    assert.isTrue(Option.isNone(parseRetryAfter({}, now)))
    assert.isTrue(Option.isNone(parseRetryAfter({ "retry-after": "soon" }, now)))
  })
})

describe("stripThinking", () => {
  it("removes every think block", () => {
    assert.strictEqual(stripThinking("<think>a</think>Answer <thinking>b\nc</thinking>here."), "Answer here.")
  })

  it("drops an unclosed block (the reply was cut while reasoning)", () => {
    assert.strictEqual(stripThinking("Answer.\n<think>and more reasoning"), "Answer.")
    assert.strictEqual(stripThinking("<think>only reasoning, cut off"), "")
  })

  it("drops reasoning before a stray closing tag", () => {
    assert.strictEqual(stripThinking("reasoning opened by the template</think>\nAnswer."), "Answer.")
  })

  it("leaves other text alone", () => {
    assert.strictEqual(stripThinking("  The <b>build</b> passed.  "), "The <b>build</b> passed.")
  })
})

describe("errorDetail", () => {
  it("reads OpenAI-style and flat error bodies", () => {
    assert.strictEqual(errorDetail(JSON.stringify({ error: { message: "model not found" } })), "model not found")
    assert.strictEqual(errorDetail(JSON.stringify({ error: "model 'x' not found" })), "model 'x' not found")
    assert.strictEqual(errorDetail(JSON.stringify({ detail: "Not Found" })), "Not Found")
    assert.strictEqual(errorDetail("upstream\n  timed out"), "upstream timed out")
    assert.strictEqual(errorDetail(""), undefined)
  })

  it("shortens long bodies and masks the secret", () => {
    const detail = errorDetail(`key sk-123 is wrong ${"x".repeat(1000)}`, "sk-123")!
    assert.isTrue(detail.startsWith("key [redacted] is wrong"))
    assert.isBelow(detail.length, 320)
  })
})
