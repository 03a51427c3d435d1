import { assert, describe, it } from "@effect/vitest"
import { ConversationTurn, TokenEstimator, Transcript } from "@precis/core"
import { Fixtures } from "@precis/testing"
import * as ActiveContext from "../src/ActiveContext.js"

describe("ActiveContext recall note", () => {
  const summaries = [
    Fixtures.summary({ id: "s-1", depth: 1, content: "first part" }),
    Fixtures.summary({ id: "s-2", depth: 0, content: "second part" })
  ]
  const turns = Fixtures.conversation(2)

  it("is off by default: render and toMessages are unchanged", () => {
    assert.strictEqual(ActiveContext.render({ summaries, turns }), ActiveContext.render({ summaries, turns }, {}))
    assert.notInclude(ActiveContext.render({ summaries, turns }), "Summary ids")
    assert.deepStrictEqual(ActiveContext.toMessages({ summaries, turns }, { recallNote: false }), ActiveContext.toMessages({ summaries, turns }))
  })

  it("ends the text, and the summaries' system message, naming the tools and the summary ids", () => {
    const note = ActiveContext.recallNote(summaries)
    assert.match(note, /search .* expand .* describe .*Summary ids: s-1, s-2\.$/s)
    const text = ActiveContext.render({ summaries, turns }, { recallNote: true })
    assert.isTrue(text.endsWith(`\n\n${note}`))
    assert.isTrue(text.startsWith(ActiveContext.render({ summaries, turns })))
    const messages = ActiveContext.toMessages({ summaries, turns }, { recallNote: true })
    assert.strictEqual(messages.length, 3)
    assert.isTrue(messages[0]!.content.endsWith(`\n\n${note}`))
    assert.deepStrictEqual(messages.slice(1), ActiveContext.toMessages({ summaries, turns }).slice(1))
  })

  it("says nothing without summaries", () => {
    assert.strictEqual(ActiveContext.recallNote([]), "")
    assert.strictEqual(ActiveContext.render({ summaries: [], turns }, { recallNote: true }), ActiveContext.render({ summaries: [], turns }))
  })
})

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
