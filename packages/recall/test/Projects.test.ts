/**
 * The recall tools over projects: `recent` lists the sessions held in a
 * folder, the most recent first, with their outcome line; `search` can be
 * limited to a project.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { ConversationTurn, ToolMetadata } from "@precis/core"
import { Store } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PrecisToolkit from "../src/PrecisToolkit.js"

/** A session held in `cwd` on day `day` of January 2025: a request, then a commit that went through. */
const session = (id: string, cwd: string, day: number, words: string) => {
  const at = (minute: number) => new Date(Date.UTC(2025, 0, day, 10, minute)).toISOString()
  const meta = (extra: ToolMetadata.ToolMetadata = {}) => ({ ...ToolMetadata.make({ cwd, sourceFormat: "codex" }), ...extra })
  const args = JSON.stringify({ command: `git commit -m "${id}: ${words}"` })
  return [
    ConversationTurn.make({ role: "user", content: `Please ${words}`, id: `${id}-0`, timestamp: at(0), metadata: meta() }),
    ConversationTurn.make({
      role: "assistant",
      content: ToolMetadata.callLine("Bash", args),
      id: `${id}-1`,
      timestamp: at(1),
      metadata: meta({ toolCalls: [{ id: `${id}-c`, name: "Bash", arguments: args }] })
    }),
    ConversationTurn.make({
      role: "tool",
      content: `[main 1234567] ${id}: ${words}`,
      id: `${id}-2`,
      timestamp: at(2),
      metadata: meta({ toolCallId: `${id}-c`, toolName: "Bash" })
    })
  ]
}

const ToolsLive = PrecisToolkit.layer.pipe(Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie)))

const seed = Effect.gen(function*() {
  const store = yield* Store.all
  yield* store.appendTurns("a1", session("a1", "/w/app", 1, "tune the flux capacitor"))
  yield* store.appendTurns("a2", session("a2", "/w/app", 3, "paint the flux door"))
  yield* store.appendTurns("b1", session("b1", "/w/lib", 2, "polish the flux lens"))
})

describe("recall over projects", () => {
  it.effect("recent lists a project's sessions, the most recent first, with their request and outcome; paged", () =>
    Effect.gen(function*() {
      yield* seed
      const tools = yield* PrecisToolkit.PrecisToolkit
      const page = yield* tools.handle("recent", { project: "/w/app/" })
      assert.isFalse(page.isFailure)
      assert.deepStrictEqual(page.result, {
        project: "/w/app",
        total: 2,
        offset: 0,
        sessions: [
          {
            id: "a2",
            startedAt: "2025-01-03T10:00:00.000Z",
            endedAt: "2025-01-03T10:02:00.000Z",
            turns: 3,
            agent: "codex",
            request: "Please paint the flux door",
            outcome: "git commit \"a2: paint the flux door\""
          },
          {
            id: "a1",
            startedAt: "2025-01-01T10:00:00.000Z",
            endedAt: "2025-01-01T10:02:00.000Z",
            turns: 3,
            agent: "codex",
            request: "Please tune the flux capacitor",
            outcome: "git commit \"a1: tune the flux capacitor\""
          }
        ]
      })
      const second = yield* tools.handle("recent", { project: "/w/app", limit: 1, offset: 1 })
      assert.deepStrictEqual((second.result as typeof PrecisToolkit.RecentPage.Type).sessions.map((s) => s.id), ["a1"])
      const unknown = yield* tools.handle("recent", { project: "/w/none" })
      assert.isTrue(unknown.isFailure)
      expect((unknown.result as PrecisToolkit.RecallError).message).toBe(
        "no session held in \"/w/none\" (a project is the folder a session ran in)"
      )
    }).pipe(Effect.provide(ToolsLive)))

  it.effect("search limited to a project finds only its sessions' turns; with a session too, it says to give one", () =>
    Effect.gen(function*() {
      yield* seed
      const tools = yield* PrecisToolkit.PrecisToolkit
      const everywhere = yield* tools.handle("search", { query: "flux" })
      const hits = (r: typeof everywhere) => (r.result as ReadonlyArray<{ readonly sessionId: string }>).map((h) => h.sessionId)
      assert.deepStrictEqual([...new Set(hits(everywhere))].sort(), ["a1", "a2", "b1"])
      const inApp = yield* tools.handle("search", { query: "flux", project: "/w/app" })
      assert.isFalse(inApp.isFailure)
      assert.deepStrictEqual([...new Set(hits(inApp))].sort(), ["a1", "a2"])
      const one = yield* tools.handle("search", { query: "flux", project: "/w/app", limit: 1 })
      assert.strictEqual(hits(one).length, 1)
      const both = yield* tools.handle("search", { query: "flux", project: "/w/app", session: "a1" })
      assert.isTrue(both.isFailure)
      assert.strictEqual((both.result as PrecisToolkit.RecallError).message, "give session or project, not both")
    }).pipe(Effect.provide(ToolsLive)))
})
