import { assert, describe, expect, it } from "@effect/vitest"
import { ActiveContext } from "@precis/compaction"
import { ConversationTurn, TokenEstimator } from "@precis/core"
import { cutMiddle, cutTurn, keyLines } from "../src/internal/turns.js"

const estimator = TokenEstimator.approximate

// A 45k-character tool output: a long log with one error line in its middle.
const log = (middle: string) => {
  const lines = Array.from({ length: 1200 }, (_, i) => `  PASS test/case${i}.test.ts (12 tests) ${i}ms`)
  lines.splice(600, 0, middle)
  return lines.join("\n")
}
const result = (content: string) =>
  ConversationTurn.make({ role: "tool", content, id: "r1", metadata: { toolCallId: "c1", toolName: "Bash" } })

describe("cutting a turn in its middle", () => {
  it("keeps the error line of the cut middle, not only the head and the tail, within the turn's tokens", () => {
    const turn = result(log("Error: connect ECONNREFUSED 127.0.0.1:5432"))
    expect(turn.content.length).toBeGreaterThan(45_000)
    for (const max of [300, 800, 2000]) {
      const cut = cutTurn(estimator, turn, "r1", max)!
      assert.include(cut.content, "\nError: connect ECONNREFUSED 127.0.0.1:5432\n[...]\n")
      assert.include(cut.content, "chars cut; full text: turn r1 ...]")
      expect(ActiveContext.turnTokens(estimator, cut)).toBeLessThanOrEqual(max)
      assert.isTrue(cut.content.startsWith("  PASS test/case0.test.ts"))
    }
  })

  it("cuts as before when the middle reports no error", () => {
    const turn = result(log("  PASS test/middle.test.ts (1 test) 1ms"))
    const fits = (text: string) => ActiveContext.turnTokens(estimator, result(text)) <= 500
    const plain = cutMiddle(turn.content, fits, (cut) => `\n[... ${cut} chars cut; full text: turn r1 ...]\n`)
    assert.strictEqual(cutTurn(estimator, turn, "r1", 500)!.content, plain)
  })

  it("key lines: errors and failures, each once, at most 12, within the characters given", () => {
    const text = ["ok", "error: x", "error: x", "FAILED tests/a.py", "fine", ...Array.from({ length: 20 }, (_, i) => `Error: ${i}`)]
      .join("\n")
    assert.deepStrictEqual(keyLines(text, 1000).slice(0, 3), ["error: x", "FAILED tests/a.py", "Error: 0"])
    expect(keyLines(text, 1000)).toHaveLength(12)
    assert.deepStrictEqual(keyLines(text, 10), ["error: x"])
    assert.deepStrictEqual(keyLines("all good\n  PASS a", 1000), [])
  })
})
