import { describe, expect, it } from "@effect/vitest"
import * as ToolUse from "../src/ToolUse.js"

const assistant = (toolCalls: unknown) => ({ role: "assistant", metadata: { toolCalls } })

describe("ToolUse.calls", () => {
  it("parses each call's JSON arguments into its input and keeps the text", () => {
    const calls = ToolUse.calls(assistant([
      { id: "t1", name: "Bash", arguments: "{\"command\":\"pnpm test\"}" },
      { name: "Read", arguments: { file_path: "src/a.ts" } }
    ]))
    expect(calls).toEqual([
      { id: "t1", name: "Bash", input: { command: "pnpm test" }, arguments: "{\"command\":\"pnpm test\"}" },
      { id: undefined, name: "Read", input: { file_path: "src/a.ts" }, arguments: "{\"file_path\":\"src/a.ts\"}" }
    ])
  })

  it("gives an empty input for arguments that are not a JSON object, and skips nameless entries", () => {
    const calls = ToolUse.calls(assistant([{ name: "edit", arguments: "5:7 <<not json" }, { id: "x" }, "junk"]))
    expect(calls).toEqual([{ id: undefined, name: "edit", input: {}, arguments: "5:7 <<not json" }])
    expect(ToolUse.calls({ role: "assistant" })).toEqual([])
    expect(ToolUse.calls(assistant("not an array"))).toEqual([])
  })
})

describe("ToolUse.result", () => {
  it("reads the call id, the tool's name and the error flag of a tool result", () => {
    expect(ToolUse.result({ role: "tool", metadata: { toolCallId: "t1", toolName: "Bash", isError: true } }))
      .toEqual({ callId: "t1", name: "Bash", isError: true })
    expect(ToolUse.result({ role: "user", metadata: { tool_use_id: "t2" } }))
      .toEqual({ callId: "t2", name: undefined, isError: false })
  })

  it("is undefined for a turn that is not a tool result", () => {
    expect(ToolUse.result({ role: "assistant", metadata: { toolName: "Bash" } })).toBeUndefined()
  })
})

describe("ToolUse.callFor and target", () => {
  const calls = ToolUse.calls(assistant([
    { id: "a", name: "Read", arguments: "{\"file_path\":\"lib/x.ex\"}" },
    { id: "b", name: "Bash", arguments: "{\"command\":\"mix test\",\"description\":\"run\"}" }
  ]))

  it("finds the call by id, then by name, and does not guess when an id matches nothing", () => {
    expect(ToolUse.callFor({ callId: "b", name: undefined, isError: false }, calls)?.name).toBe("Bash")
    expect(ToolUse.callFor({ callId: undefined, name: "Bash", isError: false }, calls)?.id).toBe("b")
    expect(ToolUse.callFor({ callId: undefined, name: undefined, isError: false }, calls)?.id).toBe("a")
    expect(ToolUse.callFor({ callId: "zzz", name: undefined, isError: false }, calls)).toBeUndefined()
  })

  it("names what a call worked on: the command before the path", () => {
    expect(calls.map(ToolUse.target)).toEqual(["lib/x.ex", "mix test"])
    expect(ToolUse.target({ id: undefined, name: "TodoWrite", input: { todos: [] }, arguments: "" })).toBeUndefined()
  })
})
