/** opencode exports (`opencode export`: opencode's `MessageV2` info and parts) and its storage folder. */
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as Importer from "../src/Importer.js"
import { err, ok } from "./helpers.js"

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
        { id: "p6", type: "step-finish", reason: "tool-calls" },
        { id: "p7", type: "patch", hash: "4b825dc", files: ["/work/app/src/x.ts", "/work/app/package-lock.json"] }
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
    assert.deepStrictEqual(turns.map((t) => [t.role, t.id]), [["user", "msg_1"], ["assistant", "msg_2"], ["tool", "p4"], ["tool", "p5"], ["system", "p7"]])
    // The files the step changed by opencode's snapshot, the shell's changes too: said, not a request.
    expect(turns[4]).toMatchObject({ content: "[files changed] /work/app/src/x.ts, /work/app/package-lock.json", metadata: { meta: true } })
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

describe("opencode's storage folder", () => {
  // storage/session/<project>/<session>.json, message/<session>/<message>.json, part/<message>/<part>.json
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), "opencode-storage-"))
  afterAll(() => fs.rmSync(storage, { recursive: true, force: true }))
  const put = (file: string, value: unknown) => {
    fs.mkdirSync(path.dirname(path.join(storage, file)), { recursive: true })
    fs.writeFileSync(path.join(storage, file), JSON.stringify(value, null, 2))
  }
  put("session/prj1/ses_9.json", { id: "ses_9", slug: "s", version: "1.1.13", projectID: "prj1", directory: "/work/app", title: "t", time: { created: 1736000000000, updated: 1736000000000 } })
  put("message/ses_9/msg_a1.json", { id: "msg_a1", sessionID: "ses_9", role: "user", time: { created: 1736000000000 } })
  put("part/msg_a1/prt_1.json", { id: "prt_1", sessionID: "ses_9", messageID: "msg_a1", type: "text", text: "Show the config" })
  put("message/ses_9/msg_a2.json", { id: "msg_a2", sessionID: "ses_9", role: "assistant", time: { created: 1736000001000 } })
  put("part/msg_a2/prt_2.json", { id: "prt_2", messageID: "msg_a2", type: "tool", callID: "c1", tool: "read", state: { status: "completed", input: { filePath: "/work/app/config.json" }, output: "{}" } })
  put("part/msg_a2/prt_3.json", { id: "prt_3", messageID: "msg_a2", type: "text", text: "It is empty." })
  const session = path.join(storage, "session", "prj1", "ses_9.json")

  it.effect("imports a session from its file, gathering its messages and parts from the folder", () =>
    Effect.gen(function*() {
      const imported = yield* Importer.importFile(session)
      assert.strictEqual(imported.format, "opencode-storage")
      const turns = Importer.allTurns(imported)
      assert.deepStrictEqual(turns.map((t) => [t.role, t.id]), [["user", "msg_a1"], ["assistant", "msg_a2"], ["tool", "prt_2"]])
      expect(turns[1]!.content).toBe("It is empty.\n[tool_call read] {\"filePath\":\"/work/app/config.json\"}")
      expect(turns[2]!.metadata).toMatchObject({ toolCallId: "c1", toolName: "read", cwd: "/work/app" })
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it("says where the messages are when the session file is read alone", () => {
    const e = err(fs.readFileSync(session, "utf8"), "auto", "ses_9.json")
    expect(e.message).toMatch(/^ses_9\.json:1: an opencode session file holds no messages: import it from its storage folder/)
  })
})
