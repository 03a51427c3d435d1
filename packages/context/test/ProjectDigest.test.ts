/**
 * ProjectDigest: what a new session in a project starts with, read from a
 * store of sessions held in several folders.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { ConversationTurn, TokenEstimator, ToolMetadata } from "@precis/core"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as ProjectDigest from "../src/ProjectDigest.js"
import { storeLayer } from "./helpers.js"

const APP = "/work/app"

/**
 * A session of `day` (a day of January 2025) in `cwd`: a request, a commit that went
 * through, a failing check, an edit and, with `next`, a plan whose second item is open.
 */
const session = (id: string, cwd: string, day: number, request: string) => {
  const at = (minute: number) => new Date(Date.UTC(2025, 0, day, 9, minute)).toISOString()
  const meta = (extra: ToolMetadata.ToolMetadata = {}) => ({ ...ToolMetadata.make({ cwd, sourceFormat: "claude-code" }), ...extra })
  const call = (n: number, name: string, args: object) =>
    ConversationTurn.make({
      role: "assistant",
      content: ToolMetadata.callLine(name, JSON.stringify(args)),
      id: `${id}-a${n}`,
      timestamp: at(n),
      metadata: meta({ toolCalls: [{ id: `${id}-c${n}`, name, arguments: JSON.stringify(args) }] })
    })
  const result = (n: number, output: string, isError = false) =>
    ConversationTurn.make({
      role: "tool",
      content: output,
      id: `${id}-r${n}`,
      timestamp: at(n),
      metadata: meta({ toolCallId: `${id}-c${n}`, toolName: "Bash", ...(isError ? { isError } : {}) })
    })
  return [
    ConversationTurn.make({ role: "user", content: request, id: `${id}-u0`, timestamp: at(0), metadata: meta() }),
    call(1, "Edit", { file_path: `${cwd}/src/${id}.ts`, old_string: "a", new_string: "b" }),
    result(1, "The file was updated."),
    call(2, "Bash", { command: `git commit -m "fix ${id}"` }),
    result(2, `[main 1a2b3c4] fix ${id}\n 1 file changed`),
    call(3, "Bash", { command: "pnpm test" }),
    result(3, "FAIL src/a.test.ts\nError: expected 2 to be 3\nTests: 1 failed, 4 passed", true),
    call(4, "TodoWrite", {
      todos: [{ content: `wire ${id}`, status: "completed" }, { content: `document ${id}`, status: "pending" }]
    }),
    result(4, "Todos have been modified")
  ]
}

const seed = Effect.gen(function*() {
  const store = yield* Store.all
  for (let day = 1; day <= 9; day++) {
    yield* store.appendTurns(`s${day}`, session(`s${day}`, APP, day, `request number ${day}: make the widget ${day} faster`))
  }
  yield* store.appendTurns("elsewhere", session("elsewhere", "/work/other", 20, "a task in another folder"))
})

describe("ProjectDigest", () => {
  it.effect("gives the most recent session in full, the four before it in a line, the older ones as an index", () =>
    Effect.gen(function*() {
      yield* seed
      const digest = yield* ProjectDigest.make(`${APP}/`)
      assert.strictEqual(digest.directory, APP)
      assert.deepStrictEqual(digest.sessions, ["s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1"])
      const text = digest.text
      expect(text).toContain("Last session s9 · 2025-01-09 09:00 → 2025-01-09 09:04 · 9 turns · claude-code:")
      expect(text).toContain("Asked: request number 9: make the widget 9 faster [s9-u0]")
      expect(text).toContain("- git commit \"fix s9\" [s9-a2]")
      expect(text).toContain("- Next: document s9 [s9-a4]")
      expect(text).toContain("- pnpm test: FAIL src/a.test.ts [s9-r3]")
      expect(text).not.toContain("[ ] document s9")
      expect(text).toContain("- src/s9.ts (modified)")
      for (const day of [8, 7, 6, 5]) {
        expect(text).toContain(`- 2025-01-0${day} · s${day} · asked: request number ${day}: make the widget ${day} faster → git commit "fix s${day}"`)
      }
      for (const day of [4, 3, 2, 1]) expect(text).toContain(`- 2025-01-0${day} · s${day} · request number ${day}: make the widget ${day}`)
      expect(text).toContain("mcp__precis__describe {\"session\": \"s9\"}")
      expect(text).toContain("mcp__precis__read {\"session\": \"s9\", \"id\": \"s9-a4\"}")
      expect(text).not.toContain("elsewhere")
      // Sections in their order: the last session, what it left, the sessions before it, the index, the look-up line.
      const order = ["Last session s9", "Done:", "Left:", "Files changed:", "Before it:", "Older sessions:", "Look any of it up"]
      const positions = order.map((marker) => text.indexOf(marker))
      assert.deepStrictEqual([...positions].sort((a, b) => a - b), positions)
      assert.isAtMost(TokenEstimator.approximate.estimate(text), ProjectDigest.defaultMaxTokens)
      // The same store, the same digest.
      assert.strictEqual((yield* ProjectDigest.make(APP)).text, text)
    }).pipe(Effect.provide(storeLayer())))

  it.effect("what the user said that still stands is handed over with what the last session left", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("said", session("said", "/work/said", 3, "Make the widget faster. Don't push until the suite passes."))
      const text = (yield* ProjectDigest.make("/work/said")).text
      expect(text).toMatch(/- User said: Don't push until the suite passes\.? \[said-u0\]/)
      assert.isBelow(text.indexOf("User said:"), text.indexOf("Files changed:"))
    }).pipe(Effect.provide(storeLayer())))

  it.effect("leaves out the session starting now; a folder precis has not seen gets nothing", () =>
    Effect.gen(function*() {
      yield* seed
      const digest = yield* ProjectDigest.make(APP, { exclude: "s9" })
      expect(digest.text).toContain("Last session s8 ·")
      assert.notInclude(digest.sessions, "s9")
      assert.deepStrictEqual(yield* ProjectDigest.make("/work/nowhere"), { directory: "/work/nowhere", text: "", sessions: [] })
      assert.strictEqual((yield* ProjectDigest.make("/work")).text, "")
      expect((yield* ProjectDigest.make("/work/other")).text).toContain("Last session elsewhere ·")
    }).pipe(Effect.provide(storeLayer())))

  it.effect("a small cap drops the index first, then the files and the sessions before, saying how many it left out", () =>
    Effect.gen(function*() {
      yield* seed
      const full = (yield* ProjectDigest.make(APP)).text
      for (const maxTokens of [300, 220, 160]) {
        const text = (yield* ProjectDigest.make(APP, { maxTokens })).text
        assert.isAtMost(TokenEstimator.approximate.estimate(text), maxTokens)
        assert.isBelow(text.length, full.length)
        // What is never dropped: the task, the next step and the look-up line.
        for (const kept of ["Asked: request number 9", "- Next: document s9", "Look any of it up"]) expect(text).toContain(kept)
      }
      const mid = (yield* ProjectDigest.make(APP, { maxTokens: 300 })).text
      expect(mid).toMatch(/\(\d older sessions left out: mcp__precis__recent lists them\)/)
      const chars = (yield* ProjectDigest.make(APP, { maxChars: 900 })).text
      assert.isAtMost(chars.length, 900)
      assert.strictEqual((yield* ProjectDigest.make(APP, { maxTokens: 5 })).text, "")
    }).pipe(Effect.provide(storeLayer())))
})
