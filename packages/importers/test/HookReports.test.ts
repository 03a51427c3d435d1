/**
 * A check failure a Claude Code hook reported counts wherever the session file
 * holds the report (issue 31 §2): the result of a call a PreToolUse hook
 * refused (as in the shared fixtures, Claude Code 2.1.39), a PostToolUse
 * hook's `hook_blocking_error` attachment line, a Stop hook's meta feedback
 * line. The lines are built on the records' real shapes.
 */
import { describe, expect, it } from "@effect/vitest"
import { SessionState } from "@precis/core"
import { jsonl, ok } from "./helpers.js"

const common = { sessionId: "s-1", cwd: "/home/u/app", gitBranch: "main", version: "2.1.39", isSidechain: false, userType: "external" }
const line = (uuid: string, timestamp: string, rest: Record<string, unknown>) => ({ ...common, uuid, timestamp, ...rest })
const request = line("u-1", "2026-02-12T14:00:00.000Z", { type: "user", message: { role: "user", content: "Commit the tracing work" } })
const call = (uuid: string, id: string, name: string, input: Record<string, unknown>) =>
  line(uuid, "2026-02-12T14:01:00.000Z", {
    type: "assistant",
    message: { role: "assistant", content: [{ type: "tool_use", id, name, input }] }
  })
const result = (uuid: string, id: string, content: string, isError: boolean) =>
  line(uuid, "2026-02-12T14:02:00.000Z", {
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, is_error: isError }] },
    toolUseResult: isError ? `Error: ${content}` : { stdout: content, stderr: "", interrupted: false }
  })
const commit = "git add -A && git commit -m \"feat: trace the hook controllers\""
// What pre-commit-check.sh wrote when it refused the commit (its line breaks escaped, as in the fixture).
const refusal = "Pre-commit validation failed:\\n\\n[CREDO]\\nChecking 88 source files ...\n" +
  "┃ [F] → Function is too complex (cyclomatic complexity is 13, max is 9).\n" +
  "┃       lib/app/hooks_controller.ex:144:7 #(App.HooksController.tool_call)\\n\\n[DIALYZER]\\nFinding suitable PLTs\n" +
  "Total errors: 1, Skipped: 0\nlib/app/otel.ex:57:13:pattern_match\nThe pattern can never match the type.\\n\\nFix these issues before committing."

const stateOf = (text: string) => SessionState.fold(ok(text, "claude-code"))

describe("a check failure a hook reported", () => {
  it("a call a PreToolUse hook refused: each check its report names failed, the commit did not happen", () => {
    const state = stateOf(jsonl(request, call("a-1", "t1", "Bash", { command: commit }), result("u-2", "t1", refusal, true)))
    expect(state.openErrors.map((e) => [e.command, e.detail, e.turnId])).toEqual([
      ["mix credo (hook)", "[F] → Function is too complex (cyclomatic complexity is 13, max is 9). lib/app/hooks_controller.ex:144:7 #(App.HooksController.tool_call)", "u-2"],
      ["mix dialyzer (hook)", "lib/app/otel.ex:57:13:pattern_match The pattern can never match the type.", "u-2"]
    ])
    expect(state.events.map((e) => [e.text, e.failed])).toEqual([["git commit \"feat: trace the hook controllers\"", true]])
  })

  it("the hook refusing again for one check only, then letting the commit through: the others pass, then all", () => {
    const dialyzerOnly = "Pre-commit validation failed:\\n\\n[DIALYZER]\\nlib/app/otel.ex:57:13:pattern_match\nThe pattern can never match the type."
    const lines = [
      request,
      call("a-1", "t1", "Bash", { command: commit }),
      result("u-2", "t1", refusal, true),
      call("a-2", "t2", "Bash", { command: commit }),
      result("u-3", "t2", dialyzerOnly, true)
    ]
    const again = stateOf(jsonl(...lines))
    expect(again.openErrors.map((e) => e.command)).toEqual(["mix dialyzer (hook)"])
    expect(again.checks.map((c) => [c.command, c.passed])).toEqual([["mix credo (hook)", true], ["mix dialyzer (hook)", false]])
    const through = stateOf(jsonl(...lines, call("a-3", "t3", "Bash", { command: commit }), result("u-4", "t3", "[main 1a2b3c4] feat: trace the hook controllers", false)))
    expect(through.openErrors).toEqual([])
    expect(through.fixed.map((f) => [f.text, f.fixedTurnId])).toContainEqual(["mix dialyzer (hook)", "u-4"])
  })

  it("a command's own failure (Exit code N first) is no hook's report", () => {
    const state = stateOf(jsonl(request, call("a-1", "t1", "Bash", { command: commit }), result("u-2", "t1", `Exit code 1\n${refusal}`, true)))
    expect(state.openErrors).toEqual([])
  })

  it("a PostToolUse hook's hook_blocking_error attachment: its command's check failed, cited at the attachment", () => {
    const edit = call("a-1", "t1", "Edit", { file_path: "/home/u/app/src/a.ts", old_string: "a", new_string: "b" })
    const edited = result("u-2", "t1", "The file /home/u/app/src/a.ts has been updated successfully.", false)
    const attachment = line("h-1", "2026-02-12T14:02:01.000Z", {
      type: "attachment",
      parentUuid: "u-2",
      attachment: {
        type: "hook_blocking_error",
        hookName: "PostToolUse:Edit",
        toolUseID: "t1",
        hookEvent: "PostToolUse",
        blockingError: { blockingError: "[npx tsc --noEmit]: src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.", command: "npx tsc --noEmit" }
      }
    })
    const turns = ok(jsonl(request, edit, edited, attachment), "claude-code")
    expect(turns.at(-1)).toMatchObject({
      role: "user",
      id: "h-1",
      content: "PostToolUse:Edit hook blocking error from command: \"npx tsc --noEmit\": [npx tsc --noEmit]: src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      metadata: { meta: true }
    })
    const state = SessionState.fold(turns)
    expect(state.openErrors.map((e) => [e.command, e.kind, e.turnId])).toEqual([["npx tsc --noEmit (hook)", "build", "h-1"]])
    expect(state.latestRequest).toBeUndefined()
    // The agent's own run of the check passing settles it.
    const fixed = SessionState.fold([
      ...turns,
      ...ok(jsonl(call("a-2", "t2", "Bash", { command: "npx tsc --noEmit" }), result("u-3", "t2", "", false)), "claude-code")
    ])
    expect(fixed.openErrors).toEqual([])
  })

  it("a Stop hook's feedback (a meta user line) names the check it ran", () => {
    const feedback = line("u-2", "2026-02-12T14:03:00.000Z", {
      type: "user",
      isMeta: true,
      message: { role: "user", content: "Stop hook feedback:\n[cargo clippy -- -D warnings]: error: unused variable: `x`\n --> src/main.rs:4:9" }
    })
    const state = stateOf(jsonl(request, feedback))
    expect(state.openErrors.map((e) => [e.command, e.detail])).toEqual([["cargo clippy -- -D warnings (hook)", "error: unused variable: `x`"]])
    expect(SessionState.render(state)).toContain("Open errors:\n- cargo clippy -- -D warnings (hook): error: unused variable: `x` [u-2]")
  })
})
