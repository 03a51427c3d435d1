import { assert, describe, expect, it } from "@effect/vitest"
import { CompactionManager } from "@precis/compaction"
import { SessionState, TokenEstimator, Transcript } from "@precis/core"
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
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
      expect(messages[0]!.content.startsWith("Summary of the earlier conversation, oldest first:\n\n")).toBe(true)
      expect(messages[0]!.content).toContain(`[Summary 1, depth 0, 2025-01-01T00:00:00 to 2025-01-01T00:02:00]\n${context.summaries[0]!.content}`)
      expect(messages[2]!.content).toBe("[tool] exit 0")
      const text = Layout.render(context)
      // The first turn after the summaries shows its date, the next one only its time (the same date).
      expect(text.endsWith("[2025-01-01T00:03:00] assistant: message 3\n[00:04:00] tool: exit 0")).toBe(true)
    }).pipe(Effect.provide(managerLayer())))

  it("labels turns with the date once, and again when it changes; never longer than Transcript.formatTurn", () => {
    const turns = [
      Fixtures.turn("user", "go", { id: "t0", timestamp: "2026-02-12T23:59:58.120Z" }),
      Fixtures.turn("assistant", "on it\nfirst step", { id: "t1", timestamp: "2026-02-12T23:59:59Z" }),
      Fixtures.turn("tool", "ok", { id: "t2", timestamp: "2026-02-13T00:00:01Z" }),
      Fixtures.turn("assistant", "no time", { id: "t3" }),
      Fixtures.turn("user", "later", { id: "t4", timestamp: "2026-02-13T00:00:09Z" })
    ]
    assert.strictEqual(
      Layout.render({ summaries: [], turns }),
      [
        "[2026-02-12T23:59:58] user: go",
        "[23:59:59] assistant: on it\n  first step",
        "[2026-02-13T00:00:01] tool: ok",
        "[?] assistant: no time",
        "[2026-02-13T00:00:09] user: later"
      ].join("\n")
    )
    turns.forEach((turn, i) =>
      assert.isAtMost(Layout.turnText(turn, turns[i - 1]).length, Transcript.formatTurn(turn).length)
    )
    // The pinned request gives its date to the first turn right after it; summaries in between do not.
    const pinned = [turns[0]!]
    assert.strictEqual(Layout.render({ pinned, summaries: [], turns: [turns[1]!] }).split("\n")[1], "[23:59:59] assistant: on it")
    const summaries = [Fixtures.summary({ id: "s", depth: 0, content: "c" })]
    assert.include(Layout.render({ pinned, summaries, turns: [turns[1]!] }), "\n\n[2026-02-12T23:59:59] assistant: on it")
  })

  it("lays out from the most stable block to the least: system, pinned request, summaries, header, turns", () => {
    const summaries = [Fixtures.summary({ id: "s", depth: 0, content: "c" })]
    const pinned = [Fixtures.turn("user", "Fix the login bug", { id: "u0" })]
    const turns = Fixtures.conversation(2)
    const context = { system: "You are careful.", pinned, header: "Session state: x", summaries, turns }
    assert.deepStrictEqual(Layout.blocks(context).map((b) => b.kind), ["system", "request", "summaries", "state", "turn", "turn"])
    assert.deepStrictEqual(Layout.toMessages(context).map((m) => m.role), ["system", "user", "user", "user", "user", "assistant"])
    const text = Layout.render(context)
    assert.isTrue(text.startsWith("You are careful.\n\n[?] user: Fix the login bug\n\nSummary of the earlier conversation, oldest first:\n\n[Summary 1, depth 0]\nc\n\nSession state: x\n\n"))
    assert.isTrue(text.endsWith("\n\n[2025-01-01T00:00:00] user: message 0\n[00:01:00] assistant: message 1"))
    // Every block but the volatile one is stable: here all of them.
    assert.strictEqual(Layout.renderStable(context), text)
    assert.strictEqual(Layout.lastStable(Layout.blocks(context)), 5)
    // Turns one per line, blocks apart by a blank line: the pinned request and a first turn are adjacent lines.
    assert.strictEqual(
      Layout.render({ pinned, summaries: [], turns: turns.slice(0, 1) }),
      Transcript.formatTurns([...pinned, turns[0]!])
    )
  })

  it("the header placed at the end is the volatile last block: the rest is a prefix that stays", () => {
    const context = {
      header: "Session state: x",
      statePlacement: "end" as const,
      summaries: [Fixtures.summary({ id: "s", depth: 0, content: "c" })],
      turns: Fixtures.conversation(2)
    }
    const all = Layout.blocks(context)
    assert.deepStrictEqual(all.map((b) => [b.kind, b.volatile]), [["summaries", false], ["turn", false], ["turn", false], ["state", true]])
    assert.strictEqual(Layout.lastStable(all), 2)
    const text = Layout.render(context)
    assert.strictEqual(text, `${Layout.renderStable(context)}\n\nSession state: x`)
    // One more turn: the stable part grows at its end, the header stays last.
    const next = { ...context, turns: Fixtures.conversation(3) }
    assert.isTrue(Layout.renderStable(next).startsWith(Layout.renderStable(context)))
    assert.isTrue(Layout.render(next).endsWith("\n\nSession state: x"))
    assert.deepStrictEqual(Layout.toMessages(context).at(-1), { role: "user", content: "Session state: x" })
    assert.deepStrictEqual(Layout.toMessages({ ...context, header: "" }), Layout.toMessages(context).slice(0, -1))
  })

  it("sharedTokens: the tokens of the prefix a text shares with the previous one, whole code points", () => {
    const estimator = TokenEstimator.approximate
    assert.strictEqual(Layout.sharedTokens(estimator, undefined, "abcdefgh"), 0)
    assert.strictEqual(Layout.sharedTokens(estimator, "abcdefgh-1", "abcdefgh-2"), 2)
    assert.strictEqual(Layout.sharedTokens(estimator, "abcdefgh", "abcdefgh and more"), 2)
    assert.strictEqual(Layout.sharedTokens(estimator, "xbcdefgh", "abcdefgh"), 0)
    // Two emoji that share their high surrogate: the pair is not split.
    assert.strictEqual(Layout.commonPrefix("aaa😀", "aaa😁"), 3)
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

  it("follows the summaries, in the text and in their message, naming the tools and the summary ids", () => {
    const note = Layout.recallNote(summaries)
    assert.match(note, /search .* expand .* describe .*Summary ids: s-1, s-2\.$/s)
    const text = Layout.render({ summaries, turns }, { recallNote: true })
    assert.strictEqual(
      text,
      `${Layout.summariesLabel}\n\n${Transcript.renderSummaries(summaries)}\n\n${note}\n\n` +
        "[2025-01-01T00:00:00] user: message 0\n[00:01:00] assistant: message 1"
    )
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

