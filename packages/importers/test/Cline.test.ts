/**
 * Cline / Roo Code task histories: Anthropic Messages API messages, results as
 * `tool_result` blocks (Roo) or as Cline's `[tool for '...'] Result:` text blocks.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState, ToolKind, ToolUse } from "@precis/core"
import * as Option from "effect/Option"
import * as Importer from "../src/Importer.js"
import { ok } from "./helpers.js"

const history = JSON.stringify([
  { role: "user", content: [{ type: "text", text: "<task>\nAdd a health check\n</task>" }, { type: "text", text: "<environment_details>\n# Current Working Directory (/srv/api)\n</environment_details>" }] },
  { role: "assistant", content: [{ type: "text", text: "Looking." }, { type: "tool_use", id: "tu1", name: "read_file", input: { path: "src/app.ts" } }, { type: "tool_use", id: "tu2", name: "execute_command", input: { command: "npm test", requires_approval: false } }] },
  { role: "user", content: [{ type: "text", text: "[read_file for 'src/app.ts'] Result:\nexport {}" }, { type: "text", text: "[execute_command for 'npm test'] Result:\nCommand failed with exit code 1.\nOutput:\n1 failing" }] },
  { role: "assistant", content: [{ type: "tool_use", id: "tu3", name: "write_to_file", input: { path: "src/health.ts", content: "x" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "tu3", content: [{ type: "text", text: "written" }] }] }
], null, 2)

describe("Cline / Roo histories", () => {
  it("are detected by their Anthropic blocks, not read as OpenAI messages", () => {
    assert.deepStrictEqual(Importer.detect(history), Option.some("cline"))
    // An OpenAI array is still OpenAI's.
    assert.deepStrictEqual(Importer.detect(JSON.stringify([{ role: "user", content: [{ type: "text", text: "hi" }] }])), Option.some("openai"))
  })

  it("pair text-block results with their calls, and tool_result blocks by id", () => {
    const turns = ok(history, "cline")
    assert.deepStrictEqual(turns.map((t) => t.role), ["user", "user", "assistant", "tool", "tool", "assistant", "tool"])
    assert.strictEqual(turns[0]!.content, "Add a health check")
    assert.strictEqual(turns[1]!.metadata?.meta, true)
    expect(turns[3]!.metadata).toMatchObject({ toolCallId: "tu1", toolName: "read_file" })
    expect(turns[4]!.metadata).toMatchObject({ toolCallId: "tu2", toolName: "execute_command", exitCode: 1 })
    expect(turns[6]).toMatchObject({ content: "written", metadata: { toolCallId: "tu3", toolName: "write_to_file" } })
    assert.strictEqual(ToolKind.kindOf(ToolUse.calls(turns[5]!)[0]!), "write")
    const header = SessionState.render(SessionState.fold(turns))
    expect(header).toContain("- first request: Add a health check")
    expect(header).toContain("- src/health.ts")
    expect(header).toContain("- src/app.ts")
  })

  it("read an older Cline's XML tool calls and pair its results with them", () => {
    const older = JSON.stringify([
      { role: "user", content: [{ type: "text", text: "<task>\nRun the tests\n</task>" }] },
      { role: "assistant", content: [{ type: "text", text: "Running.\n<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>" }] },
      { role: "user", content: [{ type: "text", text: "[execute_command for 'npm test'] Result:\nCommand executed.\nExit code: 0\n3 passing" }] }
    ])
    assert.deepStrictEqual(Importer.detect(older), Option.some("cline"))
    const turns = ok(older, "cline")
    const [call] = ToolUse.calls(turns[1]!)
    assert.strictEqual(ToolKind.commandOf(call!), "npm test")
    expect(turns[2]!.metadata).toMatchObject({ toolCallId: call!.id, toolName: "execute_command", exitCode: 0 })
  })
})
