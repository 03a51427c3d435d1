import * as Prompt from "@effect/ai/Prompt"
import { describe, expect, it } from "@effect/vitest"
import { ToolMetadata, ToolUse } from "@precis/core"
import * as Schema from "effect/Schema"
import * as ChatTurns from "../src/ChatTurns.js"

const conversation = Prompt.make([
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Fix the failing test in src/db.ts" },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Look at the file first." },
      { type: "text", text: "Reading it." },
      { type: "tool-call", id: "c1", name: "read_file", params: { path: "src/db.ts" }, providerExecuted: false },
      { type: "tool-call", id: "c2", name: "run_command", params: { command: "npm test" }, providerExecuted: false }
    ]
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", id: "c1", name: "read_file", isFailure: false, result: "const db = open()", providerExecuted: false },
      {
        type: "tool-result",
        id: "c2",
        name: "run_command",
        isFailure: true,
        result: { exitCode: 1, output: "TypeError: x" },
        providerExecuted: false
      }
    ]
  },
  { role: "assistant", content: [{ type: "text", text: "Fixed." }] }
])

const encode = Schema.encodeSync(Prompt.Prompt)

describe("ChatTurns", () => {
  it("writes a message per turn, tool calls and results with the importers' ToolMetadata, paired by id", () => {
    const turns = ChatTurns.fromPrompt(conversation, "2026-01-01T00:00:00.000Z")
    expect(turns.map((t) => t.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"])
    const [, , said, read, run] = turns
    expect(said!.content).toBe(
      `[thinking] Look at the file first.\nReading it.\n${ToolMetadata.callLine("read_file", "{\"path\":\"src/db.ts\"}")}\n` +
        ToolMetadata.callLine("run_command", "{\"command\":\"npm test\"}")
    )
    // What the session state and the material read: the calls, their kinds' keys, and the answers by id.
    expect(ToolUse.calls(said!).map((c) => [c.id, c.name, c.input])).toEqual([
      ["c1", "read_file", { path: "src/db.ts" }],
      ["c2", "run_command", { command: "npm test" }]
    ])
    expect(ToolMetadata.read(read!.metadata)).toEqual({ toolCallId: "c1", toolName: "read_file" })
    expect(ToolMetadata.read(run!.metadata)).toEqual({ toolCallId: "c2", toolName: "run_command", isError: true })
    expect(run!.content).toBe("{\"exitCode\":1,\"output\":\"TypeError: x\"}")
    expect(turns.every((t) => t.timestamp === "2026-01-01T00:00:00.000Z")).toBe(true)
  })

  it("gives back the messages the turns came from (texts joined), a fixpoint after one round", () => {
    const once = ChatTurns.toPrompt(ChatTurns.fromPrompt(conversation))
    const twice = ChatTurns.toPrompt(ChatTurns.fromPrompt(once))
    expect(encode(twice)).toEqual(encode(once))
    const [, , assistant, tool] = once.content
    expect(assistant!.role === "assistant" && assistant.content.map((p) => p.type)).toEqual(["text", "tool-call", "tool-call"])
    expect(tool!.role === "tool" && tool.content.map((p) => [p.id, p.isFailure, p.result])).toEqual([
      ["c1", false, "const db = open()"],
      ["c2", true, { exitCode: 1, output: "TypeError: x" }]
    ])
  })

  it("skips messages that say nothing and names files", () => {
    const turns = ChatTurns.fromPrompt(Prompt.make([
      { role: "user", content: [{ type: "text", text: "" }] },
      { role: "assistant", content: [] },
      { role: "user", content: [{ type: "file", mediaType: "image/png", fileName: "shot.png", data: "AAAA" }] }
    ]))
    expect(turns.map((t) => [t.role, t.content])).toEqual([["user", "[file image/png shot.png]"]])
  })
})
