import { assert, describe, it } from "@effect/vitest"
import { ConversationTurn, TokenEstimator, Transcript } from "@precis/core"
import * as ActiveContext from "../src/ActiveContext.js"

describe("ActiveContext.turnTokens", () => {
  it("counts a turn as the estimate of its formatted line", () => {
    const whole: TokenEstimator.Service = {
      estimate: (text) => TokenEstimator.approximate.estimate(text),
      truncate: TokenEstimator.approximate.truncate
    }
    for (const content of ["", "x", "one\ntwo\r\nthree 😀", "a\n".repeat(50), "\uD83D\n\uDE00"]) {
      const turn = ConversationTurn.make({ role: "tool", content, timestamp: "2025-01-02T03:04:05Z" })
      const expected = TokenEstimator.approximate.estimate(Transcript.formatTurn(turn))
      assert.strictEqual(ActiveContext.turnTokens(TokenEstimator.approximate, turn), expected)
      assert.strictEqual(ActiveContext.turnTokens(whole, turn), expected)
    }
  })
})
