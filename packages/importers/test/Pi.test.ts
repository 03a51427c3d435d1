/** pi coding agent sessions (session format version 3: a tree of typed lines). */
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState } from "@precis/core"
import * as Option from "effect/Option"
import * as Importer from "../src/Importer.js"
import { jsonl, ok } from "./helpers.js"

const session = jsonl(
  { type: "session", version: 3, id: "u1", timestamp: "2026-02-03T22:00:00.000Z", cwd: "/home/me/app" },
  { type: "model_change", id: "a1", parentId: null, timestamp: "2026-02-03T22:00:00.000Z", provider: "anthropic", modelId: "m" },
  { type: "message", id: "a2", parentId: "a1", timestamp: "2026-02-03T22:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "Read the config" }], timestamp: 1 } },
  { type: "message", id: "a3", parentId: "a2", timestamp: "2026-02-03T22:00:02.000Z", message: { role: "assistant", content: [{ type: "thinking", thinking: "read it" }, { type: "toolCall", id: "tc1", name: "read", arguments: { path: "config.json" } }] } },
  { type: "message", id: "a4", parentId: "a3", timestamp: "2026-02-03T22:00:03.000Z", message: { role: "toolResult", toolCallId: "tc1", toolName: "read", content: [{ type: "text", text: "{}" }], isError: false } }
)

describe("pi sessions", () => {
  it("are detected by their session line", () => {
    assert.deepStrictEqual(Importer.detect(session), Option.some("pi"))
  })

  it("read messages with the line's id, tool results paired by call id, cwd from the session line", () => {
    const turns = ok(session, "pi")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.id]), [["user", "a2"], ["assistant", "a3"], ["tool", "a4"]])
    assert.strictEqual(turns[0]!.sessionId, "u1")
    expect(turns[1]!.content).toBe("[thinking] read it\n[tool_call read] {\"path\":\"config.json\"}")
    expect(turns[2]!.metadata).toMatchObject({ toolCallId: "tc1", toolName: "read", cwd: "/home/me/app" })
    const header = SessionState.render(SessionState.fold(turns))
    expect(header).toContain("- first request: Read the config")
    expect(header).toContain("- config.json")
  })

  it("read a command the user ran as a call and its result, and a compaction's summary as a note", () => {
    const text = jsonl(
      { type: "session", version: 3, id: "u1", timestamp: "2026-02-03T22:00:00.000Z", cwd: "/app" },
      { type: "message", id: "b1", parentId: null, timestamp: "2026-02-03T22:00:01.000Z", message: { role: "bashExecution", command: "npm test", output: "1 failing", exitCode: 1, cancelled: false, truncated: false, timestamp: 1 } },
      { type: "compaction", id: "c1", parentId: "b1", timestamp: "2026-02-03T22:00:02.000Z", summary: "Tests fail in auth.", firstKeptEntryId: "b1", tokensBefore: 5000 }
    )
    const turns = ok(text, "pi")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.id]), [["assistant", "b1#0"], ["tool", "b1#1"], ["system", "c1"]])
    expect(turns[1]!.metadata).toMatchObject({ toolName: "bash", exitCode: 1, isError: true })
    expect(turns[2]).toMatchObject({ content: "[compaction] Tests fail in auth.", metadata: { meta: true } })
  })
})
