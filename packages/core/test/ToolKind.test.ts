import { assert, describe, expect, it } from "@effect/vitest"
import * as ConversationTurn from "../src/ConversationTurn.js"
import * as Material from "../src/Material.js"
import * as SessionState from "../src/SessionState.js"
import * as ToolKind from "../src/ToolKind.js"
import * as ToolMetadata from "../src/ToolMetadata.js"

// A call and its result, as importers write them.
const pair = (name: string, input: Record<string, unknown>, output: string, isError = false) => {
  const args = JSON.stringify(input)
  return [
    ConversationTurn.make({
      role: "assistant",
      content: ToolMetadata.callLine(name, args),
      id: "call",
      metadata: { toolCalls: [{ id: "c1", name, arguments: args }] }
    }),
    ConversationTurn.make({ role: "tool", content: output, id: "result", metadata: { toolCallId: "c1", isError } })
  ]
}

// What the material says of the pair: the call's action line and the result's short form.
const material = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>) => Material.renderContents(turns)

describe("ToolKind.kindOf", () => {
  it("classifies by the tool's name in any case, a file editor by its command", () => {
    const kind = (name: string, input: Record<string, unknown> = {}) => ToolKind.kindOf({ name, input })
    assert.deepStrictEqual(
      [kind("Bash"), kind("BASH"), kind(" bash "), kind("run_shell_command"), kind("Write"), kind("write"), kind("TodoWrite")],
      ["shell", "shell", "shell", "shell", "write", "write", "todo"]
    )
    assert.deepStrictEqual(
      ["view", "create", "str_replace", "insert", "undo_edit", "frobnicate"].map((command) =>
        kind("str_replace_based_edit_tool", { command })
      ),
      ["read", "write", "edit", "edit", "edit", "other"]
    )
    assert.deepStrictEqual([kind("file_editor", { command: "create" }), kind("str_replace_editor"), kind("mystery")], [
      "write",
      "edit",
      "other"
    ])
  })

  it("finds the path and the command under their keys, trimmed", () => {
    assert.strictEqual(ToolKind.pathOf({ name: "x", input: { path: "", file: " src/a.ts " } }), "src/a.ts")
    assert.strictEqual(ToolKind.commandOf({ name: "x", input: { cmd: "  ls -la\n" } }), "ls -la")
    assert.isUndefined(ToolKind.pathOf({ name: "x", input: { file_path: "   " } }))
  })

  it("reads a todo list's items with one mark per status", () => {
    const items = ToolKind.todoItems({
      todos: [{ content: " a ", status: "completed" }, { activeForm: "b", status: "in_progress" }, { content: "c", status: "?" }, {}]
    })
    assert.deepStrictEqual(items, [
      { text: "a", status: "completed" },
      { text: "b", status: "in_progress" },
      { text: "c", status: "pending" }
    ])
    assert.deepStrictEqual(items?.map((item) => ToolKind.todoMark(item.status)), ["[x]", "[~]", "[ ]"])
  })
})

// The material (what a summary is made from) and the session state (the header) read
// the same call the same way.
describe("the material and the session state agree on what a call did", () => {
  it("str_replace_based_edit_tool view is a read in both", () => {
    const turns = pair("str_replace_based_edit_tool", { command: "view", path: "/w/lib.py" }, "1\tdef f():\n2\t  pass")
    assert.deepStrictEqual(material(turns), [
      "Read (str_replace_based_edit_tool) /w/lib.py",
      "read /w/lib.py (2 lines)\ndefines: f"
    ])
    assert.deepStrictEqual(SessionState.fold(turns).files, [{ path: "/w/lib.py", action: "read", turnId: "call" }])
  })

  it("a failing run_shell_command is a shell in both: its command and exit in the material, FAILED in the header", () => {
    const turns = pair("run_shell_command", { command: "npm test" }, "Exit code 1\nTests: 1 failed, 2 passed, 3 total", true)
    assert.deepStrictEqual(material(turns), ["$ npm test", "exit 1\nTests: 1 failed, 2 passed, 3 total"])
    const state = SessionState.fold(turns)
    assert.deepStrictEqual(state.checks.map((c) => [c.command, c.passed]), [["npm test", false]])
    expect(SessionState.render(state)).toContain("- npm test: FAILED, Tests: 1 failed, 2 passed, 3 total [result]")
  })

  it("file_editor create is a write in both", () => {
    const turns = pair("file_editor", { command: "create", path: "/w/app.py", file_text: "def main():\n    pass\n" }, "File created successfully")
    assert.deepStrictEqual(material(turns), ["Write /w/app.py (2 lines; defines: main)", "wrote /w/app.py"])
    assert.deepStrictEqual(SessionState.fold(turns).files, [{ path: "/w/app.py", action: "created", turnId: "call" }])
  })

  it("a tool's name counts in any case in both", () => {
    for (const [name, verb] of [["write", "Write"], ["WRITE", "Write"], ["Write", "Write"]] as const) {
      const turns = pair(name, { file_path: "/w/a.ts", content: "export const a = 1" }, "File created successfully")
      expect(material(turns)[0]).toMatch(new RegExp(`^${verb} /w/a\\.ts`))
      assert.deepStrictEqual(SessionState.fold(turns).files.map((f) => f.action), ["created"], name)
    }
    const shell = pair("BASH", { command: "pnpm test" }, " Tests  3 passed (3)")
    assert.strictEqual(material(shell)[0], "$ pnpm test")
    assert.deepStrictEqual(SessionState.fold(shell).checks.map((c) => [c.command, c.passed]), [["pnpm test", true]])
  })

  it("a todo item in progress has one mark in both: [~]", () => {
    const todos = [{ content: "Wire the route", status: "in_progress" }]
    const turns = pair("todowrite", { todos }, "ok")
    assert.strictEqual(material(turns)[0], "Todo: [~] Wire the route")
    expect(SessionState.render(SessionState.fold(turns))).toContain("- [~] Wire the route")
  })
})
