/**
 * The session state as a hand-off an agent can act on: stale checks, the
 * agent's claims, the suite's count, what fixed an error, the next step and
 * what the user said.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as SessionState from "../src/SessionState.js"
import { bash, call, edit, fold, result, say, user } from "./stateTurns.js"

describe("SessionState tells the truth", () => {
  it("checks: a result older than a write to what it covers is stale (every file, unless the command names paths)", () => {
    const state = fold(
      bash("b1", "mix compile", "Compiling 3 files (.ex)"),
      bash("b2", "mix test test/a_test.exs:12", "3 tests, 0 failures"),
      bash("b3", "npx vitest run test/services", " Tests  4 passed (4)"),
      edit("e1", "/repo/lib/a.ex"),
      edit("e2", "/repo/test/services/totals.test.ts"),
      edit("e3", "/repo/test/a_test.exs")
    )
    assert.deepStrictEqual(state.checks.map((c) => [c.command, c.editsSince]), [
      ["mix compile", 3],
      ["mix test test/a_test.exs:12", 1],
      ["npx vitest run test/services", 1]
    ])
    const text = SessionState.render(state)
    expect(text).toContain("- mix compile: passed before 3 edits [b1r]")
    expect(text).toContain("- mix test test/a_test.exs:12: passed before 1 edit, 3 tests, 0 failures [b2r]")
    // Run again, the check is fresh.
    const again = SessionState.render(SessionState.fold(bash("b4", "mix compile", "Compiling 1 file (.ex)"), state))
    expect(again).toContain("- mix compile: passed [b4r]")
  })

  it("plan: an item the agent ticked is its claim until a check passes; a step failing after it undoes it", () => {
    const todos = (...done: ReadonlyArray<string>) =>
      ["Run the migration", "Seed the data"].map((content) => ({ content, status: done.includes(content) ? "completed" : "pending", activeForm: content }))
    const ticked = fold(call("t1", "TodoWrite", { todos: todos("Run the migration") }), result("t1r", "t1", "ok"))
    expect(SessionState.render(ticked)).toContain("- [x] Run the migration (the agent's claim)\n- [ ] Seed the data")
    // A passing check confirms it, and the next list keeps it confirmed.
    const checked = SessionState.fold([
      ...bash("b1", "mix test", "3 tests, 0 failures"),
      call("t2", "TodoWrite", { todos: todos("Run the migration", "Seed the data") }),
      result("t2r", "t2", "ok")
    ], ticked)
    expect(SessionState.render(checked)).toContain("- [x] Run the migration\n- [x] Seed the data (the agent's claim)")
    // A step that fails after the tick undoes it; a look that fails does not.
    const failed = SessionState.fold([
      ...bash("b2", "ls /nope", "ls: cannot access '/nope'", true),
      ...bash("b3", "mix run priv/repo/seeds.exs", "** (Postgrex.Error) password authentication failed for user \"app\"", true)
    ], checked)
    expect(SessionState.render(failed)).toContain("- [x] Run the migration\n- [ ] Seed the data (ticked, then mix run priv/repo/seeds.exs failed [b3r])")
  })

  it("plan: a plan whose items are all done gives way to a later request, or to a todo list still open", () => {
    const prose = say("p1", "Plan:\n1. ✅ Add the schema\n2. ✅ Wire the route")
    const done = fold(user("u0", "build the invoices API"), prose)
    expect(SessionState.render(done)).toContain("- [x] Add the schema")
    const asked = SessionState.fold([user("u1", "now the CSV export")], done)
    const text = SessionState.render(asked)
    assert.notInclude(text, "Add the schema")
    expect(text).toContain("- latest request: now the CSV export [u1]")
    // An open todo list wins over a done prose plan, however new.
    const todos = [{ content: "Write the exporter", status: "in_progress", activeForm: "Writing" }]
    const listed = fold(call("t1", "TodoWrite", { todos }), result("t1r", "t1", "ok"), say("p2", "Done:\n1. ✅ a\n2. ✅ b"))
    expect(SessionState.render(listed)).toContain("Plan (todo list [t1]):\n- [~] Write the exporter")
  })

  it("checks: the suite's count, not an empty binary's: cargo's lines summed, an empty app's line passed over", () => {
    const cargo = [
      "running 7 tests", "test result: ok. 7 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "     Running tests/api.rs", "test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out",
      "   Doc-tests app", "running 0 tests", "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out"
    ].join("\n")
    const umbrella = "==> core\n14 doctests, 65 tests, 0 failures\n==> web\n0 tests, 0 failures"
    const state = fold(bash("b1", "cargo test", cargo), bash("b2", "mix test", umbrella))
    assert.deepStrictEqual(state.checks.map((c) => c.detail), [
      "test result: ok. 9 passed; 0 failed; 1 ignored (3 binaries)",
      "14 doctests, 65 tests, 0 failures"
    ])
    const failing = fold(bash("b1", "cargo test", cargo.replace("2 passed; 0 failed", "1 passed; 1 failed"), true))
    assert.deepStrictEqual(failing.openErrors.map((e) => e.detail), ["test result: FAILED. 8 passed; 1 failed; 1 ignored (3 binaries)"])
  })

  it("errors fixed: say what fixed them: the command that went through instead, the commands run in between", () => {
    const state = fold(
      bash("g1", "git push 2>&1", "fatal: The current branch x has no upstream branch.", true),
      bash("g2", "git push --set-upstream origin x 2>&1", "branch 'x' set up to track 'origin/x'."),
      bash("g3", "git add -A && git commit -m \"feat: otel\"", "Pre-commit validation failed:\n[FORMAT] Code is not formatted.", true),
      // Looks, checks and the retry's own git add are not what fixed it.
      bash("s1", "git status", "M lib/a.ex"),
      bash("s2", "mix format", ""),
      // A failure again keeps what ran since the first one.
      bash("g3b", "git add -A && git commit -m \"feat: otel\"", "Pre-commit validation failed:\n[FORMAT] Code is not formatted.", true),
      bash("s3", "mix compile", "Compiling 1 file (.ex)"),
      bash("g4", "git add -A && git commit -m \"feat: otel\"", "[x 1a2b3c4] feat: otel")
    )
    const text = SessionState.render(state)
    expect(text).toContain("- git push: fatal: The current branch x has no upstream branch. [g1] → fixed by git push --set-upstream origin x [g2]")
    expect(text).toContain("- git commit \"feat: otel\": Pre-commit validation failed: [FORMAT] Code is not formatted. [g3b] → fixed, running mix format [g4]")
  })
})

describe("SessionState next step and what the user said", () => {
  it("next: the request not yet answered, else the plan's first open item, else the agent's last stated intent", () => {
    const asked = fold(user("u1", "Add CSV export"), say("a1", "Let me look at the routes first."), call("a2", "Read", { file_path: "/r/x.ts" }))
    expect(SessionState.render(asked)).toContain("Next:\n- the first request, not yet answered [u1]")
    // Answered (a turn without a call), with a plan: its first open item, citing the plan.
    const planned = SessionState.fold([result("a2r", "a2", "x"), say("a3", "Done:\n1. ✅ Export route\n2. Export tests\n3. Docs")], asked)
    expect(SessionState.render(planned)).toContain("Next:\n- plan: Export tests [a3]\n")
    // No open item: the agent's last stated intent.
    const stated = fold(user("u1", "Add CSV export"), say("a1", "The route is done. Now I'll write the tests for it. Then done."), say("a2", "All good."))
    expect(SessionState.render(stated)).toContain("Next:\n- the agent's last stated intent: Now I'll write the tests for it [a1]")
    assert.notInclude(SessionState.render(fold(user("u1", "hi"), say("a1", "Hello."))), "Next:")
  })

  it("user said: constraints and decisions, newest last; an answer to the agent's question; dropped before the errors", () => {
    const state = fold(
      user("u1", "Add CSV export. Don't push until I review it.\nUse pnpm instead of npm."),
      say("a1", "Should the export use semicolons or commas?"),
      user("u2", "commas, and quote every field"),
      call("q1", "AskUserQuestion", { questions: [{ question: "Which date format?" }] }),
      result("q1r", "q1", "User has answered your questions: \"Which date format?\"=\"ISO 8601\". You can now continue with the user's answers in mind."),
      user("u3", "looks fine so far")
    )
    const text = SessionState.render(state)
    expect(text).toContain([
      "User said:",
      "- Don't push until I review it. [u1]",
      "- Use pnpm instead of npm. [u1]",
      "- commas, and quote every field [u2]",
      "- \"Which date format?\"=\"ISO 8601\" [q1r]"
    ].join("\n"))
    // A question the agent went on from without waiting is not what the next request answers.
    const wentOn = fold(user("u1", "Add CSV export"), say("a1", "Commas or semicolons?"), call("a2", "Read", { file_path: "/r/x.ts" }), user("u2", "also TSV"))
    assert.notInclude(SessionState.render(wentOn), "User said:")
    // A request that neither constrains nor answers a question says nothing that stands.
    assert.notInclude(text, "- looks fine so far [u3]")
    // Short of room, the oldest goes first, before the task and the next step.
    const budgets = Array.from({ length: 200 }, (_, i) => i + 40)
    const short = budgets.map((n) => SessionState.render(state, n)).find((t) => t.includes("User said:"))!
    expect(short).toContain("ISO 8601")
    assert.notInclude(short, "- Don't push until I review it. [u1]")
    expect(short).toContain("- the latest request, not yet answered [u3]")
  })
})
