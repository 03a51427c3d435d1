import { assert, describe, it } from "@effect/vitest"
import { errorDetail } from "../src/internal/completion.js"

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
