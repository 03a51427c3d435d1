import { assert, describe, it } from "@effect/vitest"
import * as Provider from "../src/Provider.js"

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
