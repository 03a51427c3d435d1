/**
 * Gemini CLI: session files (gemini-cli-core's `ConversationRecord`) and
 * `--output-format stream-json` (the headless mode's documented events).
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState, ToolKind, ToolUse } from "@precis/core"
import * as Option from "effect/Option"
import * as Importer from "../src/Importer.js"
import * as LineParser from "../src/LineParser.js"
import { jsonl, ok } from "./helpers.js"

const session = JSON.stringify({
  sessionId: "a1b2",
  projectHash: "9f8e",
  startTime: "2025-10-01T09:00:00.000Z",
  lastUpdated: "2025-10-01T09:01:00.000Z",
  messages: [
    { id: "m1", timestamp: "2025-10-01T09:00:00.000Z", type: "user", content: "Make the build pass" },
    { id: "m2", timestamp: "2025-10-01T09:00:01.000Z", type: "info", content: "Switched model" },
    {
      id: "m3",
      timestamp: "2025-10-01T09:00:02.000Z",
      type: "gemini",
      content: "Running the build.",
      thoughts: [{ subject: "Plan", description: "build first", timestamp: "2025-10-01T09:00:02.000Z" }],
      toolCalls: [
        { id: "run_shell_command-1", name: "run_shell_command", args: { command: "npm run build" }, status: "error", timestamp: "x", result: [{ functionResponse: { id: "run_shell_command-1", name: "run_shell_command", response: { output: "error TS2322" } } }] },
        { id: "replace-2", name: "replace", args: { file_path: "/p/src/a.ts", old_string: "a", new_string: "b" }, status: "success", timestamp: "x", resultDisplay: "Edited /p/src/a.ts" }
      ]
    }
  ]
}, null, 2)

describe("Gemini CLI session files", () => {
  it("are detected, pretty-printed or not, and not read as OpenAI messages", () => {
    assert.deepStrictEqual(Importer.detect(session), Option.some("gemini"))
    assert.deepStrictEqual(Importer.detect(JSON.stringify(JSON.parse(session))), Option.some("gemini"))
  })

  it("read user and gemini messages, each call followed by its result; the CLI's notices as meta system turns", () => {
    const turns = ok(session, "gemini")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.id]), [["user", "m1"], ["system", "m2"], ["assistant", "m3"], ["tool", "m3#1"], ["tool", "m3#2"]])
    expect(turns[1]).toMatchObject({ content: "[info] Switched model", metadata: { meta: true } })
    expect(turns[2]!.content).toContain("[thinking] Plan: build first\nRunning the build.")
    expect(turns[3]).toMatchObject({ content: "error TS2322", metadata: { toolCallId: "run_shell_command-1", isError: true } })
    expect(turns[4]).toMatchObject({ content: "Edited /p/src/a.ts", metadata: { toolName: "replace" } })
    const header = SessionState.render(SessionState.fold(turns))
    expect(header).toContain("- first request: Make the build pass")
    expect(header).toContain("- /p/src/a.ts")
  })
})

describe("Gemini CLI session recordings (JSONL, since 0.4x)", () => {
  const m = (id: string, type: string, content: string, extra: Record<string, unknown> = {}) => ({ id, timestamp: "2026-05-01T10:00:00.000Z", type, content, ...extra })
  const shell = { id: "s1", name: "run_shell_command", args: { command: "npm test" }, status: "success", timestamp: "x" }
  const recording = jsonl(
    { sessionId: "g1", projectHash: "ab12", startTime: "2026-05-01T10:00:00.000Z", lastUpdated: "2026-05-01T10:00:00.000Z", kind: "main" },
    m("m1", "user", "Run the tests"),
    m("m2", "gemini", "Running.", { toolCalls: [shell] }),
    // The same message written again as its call finished: one turn, with the result.
    m("m2", "gemini", "Running.", { toolCalls: [{ ...shell, result: [{ functionResponse: { id: "s1", name: "run_shell_command", response: { output: "3 passed" } } }] }] }),
    m("m3", "user", "Now lint"),
    m("m4", "gemini", "Linting."),
    { $rewindTo: "m3" },
    m("m5", "user", "Stop here"),
    { $set: { lastUpdated: "2026-05-01T10:01:00.000Z" } }
  )

  it("are detected by their header line and read with rewritten messages and rewinds applied", () => {
    assert.deepStrictEqual(Importer.detect(recording), Option.some("gemini"))
    const turns = ok(recording, "gemini")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.id]), [["user", "m1"], ["assistant", "m2"], ["tool", "m2#1"], ["user", "m5"]])
    expect(turns[2]).toMatchObject({ content: "3 passed", sessionId: "g1", metadata: { toolCallId: "s1" } })
  })

  it("start again from a $set of messages (a checkpoint)", () => {
    const text = jsonl({ sessionId: "g1", projectHash: "ab12", startTime: "2026-05-01T10:00:00.000Z" }, m("m1", "user", "old"), { $set: { messages: [m("m7", "user", "new")] } })
    assert.deepStrictEqual(ok(text, "auto").map((t) => t.content), ["new"])
  })
})

const stream = jsonl(
  { type: "init", timestamp: "2025-10-01T09:00:00.000Z", session_id: "s9", model: "gemini-2.5-pro" },
  { type: "message", timestamp: "2025-10-01T09:00:00.000Z", role: "user", content: "List the files" },
  { type: "message", timestamp: "2025-10-01T09:00:01.000Z", role: "assistant", content: "I will ", delta: true },
  { type: "message", timestamp: "2025-10-01T09:00:01.000Z", role: "assistant", content: "list them.", delta: true },
  { type: "tool_use", timestamp: "2025-10-01T09:00:02.000Z", tool_name: "run_shell_command", tool_id: "t1", parameters: { command: "ls" } },
  { type: "tool_result", timestamp: "2025-10-01T09:00:03.000Z", tool_id: "t1", status: "success", output: "a.ts" },
  { type: "message", timestamp: "2025-10-01T09:00:04.000Z", role: "assistant", content: "Done.", delta: true },
  { type: "result", timestamp: "2025-10-01T09:00:05.000Z", status: "success", stats: { total_tokens: 10 } }
)

describe("Gemini CLI stream-json", () => {
  it("is detected by its init event (no longer read as precis JSONL)", () => {
    assert.deepStrictEqual(Importer.detect(stream), Option.some("gemini-stream"))
  })

  it("joins an assistant's chunks and calls into one turn and pairs the result by tool id", () => {
    const turns = ok(stream, "gemini-stream")
    assert.deepStrictEqual(turns.map((t) => t.role), ["user", "assistant", "tool", "assistant"])
    expect(turns[1]!.content).toBe("I will list them.\n[tool_call run_shell_command] {\"command\":\"ls\"}")
    assert.strictEqual(ToolKind.commandOf(ToolUse.calls(turns[1]!)[0]!), "ls")
    expect(turns[2]!.metadata).toMatchObject({ toolCallId: "t1", toolName: "run_shell_command" })
    assert.strictEqual(turns[3]!.content, "Done.")
    assert.strictEqual(turns[0]!.sessionId, "s9")
  })

  it("reads an error event (what the user saw) as a meta system turn, ending the reply before it", () => {
    const withError = jsonl(
      { type: "init", timestamp: "2025-10-01T09:00:00.000Z", session_id: "s9", model: "gemini-2.5-pro" },
      { type: "message", timestamp: "2025-10-01T09:00:00.000Z", role: "user", content: "List the files" },
      { type: "message", timestamp: "2025-10-01T09:00:01.000Z", role: "assistant", content: "Listing.", delta: true },
      { type: "error", timestamp: "2025-10-01T09:00:02.000Z", severity: "warning", message: "Loop detected, stopping." },
      { type: "result", timestamp: "2025-10-01T09:00:03.000Z", status: "error", stats: { total_tokens: 10 } }
    )
    const turns = ok(withError, "gemini-stream")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.content]), [
      ["user", "List the files"],
      ["assistant", "Listing."],
      ["system", "[warning] Loop detected, stopping."]
    ])
    assert.strictEqual(turns[2]!.metadata?.meta, true)
  })

  it("gives the same turns pushed line by line as read whole", () => {
    const parser = LineParser.make("gemini-stream", "s.jsonl")!
    const pushed = stream.trimEnd().split("\n").flatMap((line) => {
      const r = parser.push([line])
      return r._tag === "Right" ? r.right.flatMap((c) => c.turns) : []
    })
    // The last reply is whole at the `result` event, before the end of the file.
    assert.deepStrictEqual(pushed.map((t) => t.id), ok(stream, "gemini-stream").map((t) => t.id))
  })

  it("reads write_todos' items as the plan in force", () => {
    const text = jsonl(
      { type: "init", timestamp: "2025-10-01T09:00:00.000Z", session_id: "s9", model: "m" },
      { type: "message", timestamp: "2025-10-01T09:00:00.000Z", role: "user", content: "Plan it" },
      { type: "tool_use", timestamp: "2025-10-01T09:00:01.000Z", tool_name: "write_todos", tool_id: "w1", parameters: { todos: [{ description: "Read the spec", status: "completed" }, { description: "Write code", status: "pending" }] } },
      { type: "tool_result", timestamp: "2025-10-01T09:00:02.000Z", tool_id: "w1", status: "success", output: "ok" }
    )
    const header = SessionState.render(SessionState.fold(ok(text, "auto")))
    expect(header).toContain("- [x] Read the spec")
    expect(header).toContain("- [ ] Write code")
  })
})
