/** opencode exports (`opencode export`: opencode's `MessageV2` info and parts). */
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState } from "@precis/core"
import * as Option from "effect/Option"
import * as Importer from "../src/Importer.js"
import { ok } from "./helpers.js"

const exported = JSON.stringify({
  info: { id: "ses_1", directory: "/work/app", title: "t", time: { created: 1736000000000 } },
  messages: [
    { info: { id: "msg_1", sessionID: "ses_1", role: "user", time: { created: 1736000000000 } }, parts: [{ id: "p1", type: "text", text: "Rename foo to bar" }, { id: "p0", type: "text", text: "reminder", synthetic: true }] },
    {
      info: { id: "msg_2", sessionID: "ses_1", role: "assistant", time: { created: 1736000001000 }, path: { cwd: "/work/app", root: "/work/app" } },
      parts: [
        { id: "p2", type: "step-start" },
        { id: "p3", type: "reasoning", text: "grep first" },
        { id: "p4", type: "tool", callID: "call_a", tool: "edit", state: { status: "completed", input: { filePath: "/work/app/src/x.ts", oldString: "foo", newString: "bar" }, output: "", time: { start: 1736000001500, end: 1736000002000 } } },
        { id: "p5", type: "tool", callID: "call_b", tool: "bash", state: { status: "error", input: { command: "npm test" }, error: "exit 1" } },
        { id: "p6", type: "step-finish", reason: "tool-calls" }
      ]
    }
  ]
}, null, 2)

describe("opencode exports", () => {
  it("are detected (role sits in info), pretty-printed or not", () => {
    assert.deepStrictEqual(Importer.detect(exported), Option.some("opencode"))
    assert.deepStrictEqual(Importer.detect(JSON.stringify(JSON.parse(exported))), Option.some("opencode"))
  })

  it("read messages and a tool turn per finished tool part, times from epoch milliseconds", () => {
    const turns = ok(exported, "opencode")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.id]), [["user", "msg_1"], ["assistant", "msg_2"], ["tool", "p4"], ["tool", "p5"]])
    assert.strictEqual(turns[0]!.content, "Rename foo to bar")
    assert.strictEqual(turns[0]!.timestamp, "2025-01-04T14:13:20.000Z")
    expect(turns[1]!.content).toMatch(/^\[thinking\] grep first\n\[tool_call edit\]/)
    expect(turns[2]).toMatchObject({ timestamp: "2025-01-04T14:13:22.000Z", metadata: { toolCallId: "call_a", toolName: "edit" } })
    expect(turns[3]).toMatchObject({ content: "exit 1", metadata: { toolCallId: "call_b", isError: true } })
    const header = SessionState.render(SessionState.fold(turns))
    expect(header).toContain("- directory: /work/app")
    expect(header).toMatch(/- (?:\/work\/app\/)?src\/x\.ts \[/)
  })
})
