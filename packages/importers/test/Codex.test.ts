/**
 * Codex CLI rollouts, from the shapes of codex-rs `protocol` (`RolloutLine`,
 * `ResponseItem`): the envelope, calls paired with outputs by `call_id`.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState, ToolKind, ToolUse } from "@precis/core"
import * as Option from "effect/Option"
import * as Importer from "../src/Importer.js"
import { jsonl, ok } from "./helpers.js"

const at = (timestamp: string, type: string, payload: Record<string, unknown>) => ({ timestamp, type, payload })
const rollout = jsonl(
  at("2025-09-01T10:00:00Z", "session_meta", { id: "s1", cwd: "/repo", git: { branch: "fix-login" }, cli_version: "0.40.0" }),
  at("2025-09-01T10:00:01Z", "response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>" }] }),
  at("2025-09-01T10:00:02Z", "response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "Fix the login test" }] }),
  at("2025-09-01T10:00:03Z", "event_msg", { type: "user_message", message: "Fix the login test" }),
  at("2025-09-01T10:00:04Z", "response_item", { type: "function_call", name: "shell", arguments: "{\"command\":[\"bash\",\"-lc\",\"npm test\"],\"workdir\":\"/repo\"}", call_id: "c1" }),
  at("2025-09-01T10:00:05Z", "response_item", { type: "function_call_output", call_id: "c1", output: "{\"output\":\"1 failed\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":1.2}}" }),
  at("2025-09-01T10:00:06Z", "response_item", { type: "custom_tool_call", name: "apply_patch", call_id: "c2", input: "*** Begin Patch\n*** Update File: src/login.ts\n@@\n-a\n+b\n*** End Patch" }),
  at("2025-09-01T10:00:07Z", "response_item", { type: "custom_tool_call_output", call_id: "c2", output: "{\"output\":\"Success. Updated the following files:\\nM src/login.ts\\n\",\"metadata\":{\"exit_code\":0}}" }),
  at("2025-09-01T10:00:08Z", "response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: "Fixed." }] })
)

describe("Codex CLI rollouts", () => {
  it("are detected by their envelope", () => {
    assert.deepStrictEqual(Importer.detect(rollout), Option.some("codex"))
  })

  it("read messages, calls and outputs paired by call id, skipping the events that repeat them", () => {
    const turns = ok(rollout, "codex")
    assert.deepStrictEqual(turns.map((t) => t.role), ["user", "user", "assistant", "tool", "assistant", "tool", "assistant"])
    assert.strictEqual(turns[0]!.metadata?.meta, true)
    assert.strictEqual(turns[1]!.sessionId, "s1")
    const [shell] = ToolUse.calls(turns[2]!)
    assert.strictEqual(ToolKind.kindOf(shell!), "shell")
    assert.strictEqual(ToolKind.commandOf(shell!), "npm test")
    expect(turns[3]).toMatchObject({ content: "1 failed", metadata: { toolCallId: "c1", toolName: "shell", exitCode: 1, isError: true } })
    const [patch] = ToolUse.calls(turns[4]!)
    assert.strictEqual(ToolKind.pathOf(patch!), "src/login.ts")
    expect(turns[5]!.metadata).toMatchObject({ toolCallId: "c2", toolName: "apply_patch", exitCode: 0 })
  })

  it("give the session state its request, directory, branch and the file the patch changed", () => {
    const header = SessionState.render(SessionState.fold(ok(rollout, "codex")))
    for (const entry of ["- first request: Fix the login test", "- directory: /repo", "- branch: fix-login", "- src/login.ts"]) {
      expect(header).toContain(entry)
    }
  })

  it("read a bare item of an older rollout and exec_command's cmd", () => {
    const text = jsonl(
      at("2025-09-01T10:00:00Z", "session_meta", { id: "s1", cwd: "/repo" }),
      { type: "function_call", name: "exec_command", arguments: "{\"cmd\":\"ls\"}", call_id: "c9" },
      { type: "function_call_output", call_id: "c9", output: "Process exited with code 2\nOutput:\nnope" }
    )
    const turns = ok(text, "auto")
    assert.strictEqual(ToolKind.commandOf(ToolUse.calls(turns[0]!)[0]!), "ls")
    expect(turns[1]!.metadata).toMatchObject({ exitCode: 2, toolName: "exec_command" })
  })

  it("read update_plan's steps as the plan in force", () => {
    const text = jsonl(
      at("2025-09-01T10:00:00Z", "session_meta", { id: "s1", cwd: "/repo" }),
      at("2025-09-01T10:00:01Z", "response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "Ship it" }] }),
      at("2025-09-01T10:00:02Z", "response_item", { type: "function_call", name: "update_plan", arguments: "{\"plan\":[{\"step\":\"Write the test\",\"status\":\"completed\"},{\"step\":\"Fix the bug\",\"status\":\"in_progress\"}]}", call_id: "p1" }),
      at("2025-09-01T10:00:03Z", "response_item", { type: "function_call_output", call_id: "p1", output: "Plan updated" })
    )
    const header = SessionState.render(SessionState.fold(ok(text, "codex")))
    expect(header).toContain("- [x] Write the test")
    expect(header).toContain("- [~] Fix the bug")
  })

  it("read what Codex says happened beside the items: its compaction's summary, a turn stopped, a web search; repeats and token counts skipped", () => {
    const more = jsonl(
      at("2025-09-01T11:00:00Z", "session_meta", { id: "s2", cwd: "/repo" }),
      at("2025-09-01T11:00:01Z", "response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "Find the API docs" }] }),
      at("2025-09-01T11:00:02Z", "response_item", { type: "web_search_call", status: "completed", action: { type: "search", query: "stripe api idempotency" } }),
      at("2025-09-01T11:00:03Z", "event_msg", { type: "token_count", info: null }),
      at("2025-09-01T11:00:04Z", "event_msg", { type: "exec_command_end", call_id: "c9", exit_code: 0, aggregated_output: "ok" }),
      at("2025-09-01T11:00:05Z", "event_msg", { type: "turn_aborted", reason: "interrupted" }),
      at("2025-09-01T11:00:06Z", "compacted", { message: "The user asked for the API docs; found the idempotency page." }),
      at("2025-09-01T11:00:07Z", "response_item", { type: "ghost_snapshot", ghost_commit: { id: "abc" } })
    )
    const turns = ok(more, "codex")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.content]), [
      ["user", "Find the API docs"],
      ["assistant", "[web_search] stripe api idempotency"],
      ["system", "[turn aborted: interrupted]"],
      ["system", "[compacted] The user asked for the API docs; found the idempotency page."]
    ])
    assert.deepStrictEqual(turns.slice(2).map((t) => t.metadata?.meta), [true, true])
    // Codex's notices are not requests.
    expect(SessionState.render(SessionState.fold(turns))).not.toContain("latest request")
  })
})
