/**
 * What the leaf pass gives a summarizer, on turns shaped like a Claude Code
 * session's: parallel calls (each call a turn of its own, then the results)
 * and a file read of tens of kilobytes, which is many tokens of turns but one
 * line of material.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConversationTurn, SummaryTask, TokenEstimator } from "@precis/core"
import { Store } from "@precis/store"
import { ScriptedProvider } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as CompactionManager from "../src/CompactionManager.js"
import { managerLayer } from "./helpers.js"

let seq = 0
const stamp = () => `2026-02-11T21:${String(10 + Math.floor(seq / 60)).padStart(2, "0")}:${String(seq % 60).padStart(2, "0")}Z`
const turn = (role: string, content: string, metadata: Record<string, unknown> = {}) => {
  const timestamp = stamp()
  return ConversationTurn.make({ id: `t${seq++}`, role, content, timestamp, metadata: { cwd: "/w", ...metadata } })
}
const read = (id: string, path: string) =>
  turn("assistant", `[tool_call Read] {"file_path":"${path}"}`, {
    toolCalls: [{ id, name: "Read", arguments: JSON.stringify({ file_path: path }) }]
  })
const listing = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `${String(i + 1).padStart(6)}→  def f${i}(x), do: x + ${i}`).join("\n")
const answer = (id: string, body: string) => turn("tool", body, { toolCallId: id, toolName: "Read" })
const say = (text: string) => turn("assistant", text)

// A session: some prose, two parallel reads of mid-sized files, a 39 KB read, more prose and work.
const session = () => {
  seq = 0
  return [
    turn("user", "Implement the review token store and wire it into the hook controller."),
    // Enough words that the parallel reads come at a chunk's end.
    say(Array.from({ length: 40 }, (_, i) => `Point ${i}: tokens are minted per project and consumed once by the hook.`).join("\n")),
    say("I'll start by reading the controller and the router, in parallel."),
    read("c1", "/w/lib/hooks_controller.ex"),
    read("c2", "/w/lib/router.ex"),
    answer("c1", listing(24)),
    answer("c2", listing(60)),
    say("Now the big renderer, to see how messages are keyed."),
    read("c3", "/w/lib/transcript_renderer.ex"),
    answer("c3", listing(900)),
    ...Array.from({ length: 12 }, (_, i) => say(`Step ${i}: the store keeps one-time tokens in ETS with a TTL of ${i + 1} minutes.`)),
    turn("user", "go on")
  ]
}

describe("leaf pass", () => {
  it.effect("pairs parallel calls with their results by call id, and gives no leaf too little material", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      const manager = yield* CompactionManager.CompactionManager
      yield* store.appendTurns("s", session())
      // Chunks of 1,000 tokens of turns: the 39 KB read is a chunk of its own by tokens.
      yield* manager.compact("s", { leafChunkTokens: 1000, freshTailTurns: 1, alsoLine: false })
      const requests = yield* Effect.flatMap(ScriptedProvider.ScriptedProvider, (r) => r.requests)
      const leaves = requests.filter((r) => r.task?.kind === "leaf").map((r) => SummaryTask.material(r.task!))
      expect(leaves.length).toBeGreaterThan(0)
      for (const material of leaves) {
        // Every result is read with its call: no `read ? (24 lines)`.
        expect(material).not.toContain("read ?")
        // A leaf of a few hundred tokens of material or more, unless it is all there is.
        if (leaves.length > 1) expect(TokenEstimator.approximate.estimate(material)).toBeGreaterThanOrEqual(250)
      }
      const all = leaves.join("\n")
      expect(all).toContain("read lib/hooks_controller.ex (24 lines)")
      expect(all).toContain("read lib/router.ex (60 lines)")
      expect(all).toContain("read lib/transcript_renderer.ex (900 lines)")
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.respond(() => ScriptedProvider.reply("ok"))))))
})
