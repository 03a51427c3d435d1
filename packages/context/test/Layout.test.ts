import { assert, describe, expect, it } from "@effect/vitest"
import { CompactionManager } from "@precis/compaction"
import { SessionState, TokenEstimator } from "@precis/core"
import { Store } from "@precis/store"
import { Fixtures } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layout from "../src/Layout.js"
import { managerLayer } from "./helpers.js"

describe("Layout", () => {
  it.effect("renders a context as messages and text: summaries, then the turns, tool results as user messages", () =>
    Effect.gen(function*() {
      const cm = yield* CompactionManager.CompactionManager
      yield* Effect.flatMap(Store.all, (store) =>
        store.appendTurns("ctx", [
          ...Fixtures.conversation(4),
          Fixtures.turn("tool", "exit 0", { id: "r", timestamp: "2025-01-01T00:04:00.000Z" })
        ]))
      yield* cm.compact("ctx", { freshTailTurns: 2 })
      const context = yield* cm.context("ctx")
      const messages = Layout.toMessages(context)
      expect(messages.map((m) => m.role)).toEqual(["system", "assistant", "user"])
      expect(messages[0]!.content).toContain(`[Summary 1, depth 0, 2025-01-01T00:00:00 to 2025-01-01T00:02:00]\n${context.summaries[0]!.content}`)
      expect(messages[2]!.content).toBe("[tool] exit 0")
      const text = Layout.render(context)
      expect(text.endsWith("[2025-01-01T00:03:00] assistant: message 3\n[2025-01-01T00:04:00] tool: exit 0")).toBe(true)
    }).pipe(Effect.provide(managerLayer())))

  it("puts the header first, as text and as the first system message", () => {
    const context = { header: "Session state: x", summaries: [Fixtures.summary({ id: "s", depth: 0, content: "c" })], turns: Fixtures.conversation(1) }
    assert.isTrue(Layout.render(context).startsWith("Session state: x\n\n[Summary 1, depth 0"))
    assert.deepStrictEqual(Layout.toMessages(context)[0], { role: "system", content: "Session state: x" })
    assert.deepStrictEqual(Layout.toMessages({ ...context, header: "" }), Layout.toMessages(context).slice(1))
  })

  it("the header takes its share of the budget, or SessionState's default without one", () => {
    const state = SessionState.fold(Array.from({ length: 40 }, (_, i) =>
      Fixtures.turn("user", `Step ${i}: edit src/module${i}.ts and run \`pnpm test\``, { id: `u${i}` })))
    const estimator = TokenEstimator.approximate
    assert.strictEqual(Layout.header(estimator, state, 2000), SessionState.render(state, 300, estimator))
    assert.strictEqual(Layout.header(estimator, state, 2000, 0.05), SessionState.render(state, 100, estimator))
    assert.strictEqual(Layout.header(estimator, state), SessionState.render(state, SessionState.defaultMaxTokens, estimator))
  })
})

describe("Layout recall note", () => {
  const summaries = [
    Fixtures.summary({ id: "s-1", depth: 1, content: "first part" }),
    Fixtures.summary({ id: "s-2", depth: 0, content: "second part" })
  ]
  const turns = Fixtures.conversation(2)

  it("is off by default: render and toMessages are unchanged", () => {
    assert.strictEqual(Layout.render({ summaries, turns }), Layout.render({ summaries, turns }, {}))
    assert.notInclude(Layout.render({ summaries, turns }), "Summary ids")
    assert.deepStrictEqual(Layout.toMessages({ summaries, turns }, { recallNote: false }), Layout.toMessages({ summaries, turns }))
  })

  it("ends the text, and the summaries' system message, naming the tools and the summary ids", () => {
    const note = Layout.recallNote(summaries)
    assert.match(note, /search .* expand .* describe .*Summary ids: s-1, s-2\.$/s)
    const text = Layout.render({ summaries, turns }, { recallNote: true })
    assert.isTrue(text.endsWith(`\n\n${note}`))
    assert.isTrue(text.startsWith(Layout.render({ summaries, turns })))
    const messages = Layout.toMessages({ summaries, turns }, { recallNote: true })
    assert.strictEqual(messages.length, 3)
    assert.isTrue(messages[0]!.content.endsWith(`\n\n${note}`))
    assert.deepStrictEqual(messages.slice(1), Layout.toMessages({ summaries, turns }).slice(1))
  })

  it("says nothing without summaries", () => {
    assert.strictEqual(Layout.recallNote([]), "")
    assert.strictEqual(Layout.render({ summaries: [], turns }, { recallNote: true }), Layout.render({ summaries: [], turns }))
  })
})

