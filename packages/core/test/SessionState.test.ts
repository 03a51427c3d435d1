import { assert, describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as ConversationTurn from "../src/ConversationTurn.js"
import * as SessionState from "../src/SessionState.js"
import * as TokenEstimator from "../src/TokenEstimator.js"
import { bash, call, edit, fold, result, say, user } from "./stateTurns.js"

describe("SessionState entries", () => {
  it("files: created, modified and read, by Write/Edit/Read, each citing the call's turn", () => {
    const state = fold(
      call("a1", "Read", { file_path: "/repo/src/a.ts" }),
      result("r1", "a1", "     1→export const a = 1"),
      call("a2", "Edit", { file_path: "/repo/src/a.ts", old_string: "1", new_string: "2" }),
      result("r2", "a2", "The file /repo/src/a.ts has been updated."),
      call("a3", "Write", { file_path: "/repo/src/b.ts", content: "export const b = 1" }),
      result("r3", "a3", "File created successfully at: /repo/src/b.ts"),
      call("a4", "Write", { file_path: "/repo/README.md", content: "# x" }),
      result("r4", "a4", "The file /repo/README.md has been updated. Here's the result..."),
      call("a5", "Edit", { file_path: "/repo/src/b.ts", old_string: "1", new_string: "3" }),
      result("r5", "a5", "ok"),
      call("a6", "Read", { file_path: "/repo/docs/c.md" }),
      result("r6", "a6", "text"),
      // A failed edit changed nothing.
      call("a7", "Edit", { file_path: "/repo/src/missing.ts", old_string: "x", new_string: "y" }),
      result("r7", "a7", "<tool_use_error>String to replace not found</tool_use_error>", true)
    )
    assert.deepStrictEqual(state.files, [
      { path: "/repo/src/a.ts", action: "modified", turnId: "a2" },
      { path: "/repo/README.md", action: "modified", turnId: "a4" },
      // Created, then edited: still created, cited by the latest touch.
      { path: "/repo/src/b.ts", action: "created", turnId: "a5" },
      { path: "/repo/docs/c.md", action: "read", turnId: "a6" }
    ])
    assert.deepStrictEqual(state.pending, [])
  })

  it("files: the str_replace_editor commands of OpenHands and SWE-agent", () => {
    const state = fold(
      call("a1", "str_replace_editor", { command: "create", path: "/w/app.py", file_text: "x" }),
      result("r1", "a1", "File created"),
      call("a2", "str_replace_editor", { command: "view", path: "/w/lib.py" }),
      result("r2", "a2", "1\tx"),
      call("a3", "str_replace_editor", { command: "str_replace", path: "/w/lib.py", old_str: "a", new_str: "b" }),
      result("r3", "a3", "edited")
    )
    assert.deepStrictEqual(state.files.map((f) => [f.path, f.action, f.turnId]), [
      ["/w/app.py", "created", "a1"],
      ["/w/lib.py", "modified", "a3"]
    ])
  })

  it("checks: a failing then passing mix test closes the open error; counts from the output", () => {
    const failing = fold(
      bash("b1", "mix test 2>&1 | tail -5", "Finished in 1.0 seconds\n5 tests, 2 failures", true),
      bash("b2", "mix credo --strict", "326 mods/funs, found no issues.")
    )
    assert.deepStrictEqual(failing.openErrors, [
      { kind: "test", family: "mix test", command: "mix test", passed: false, detail: "5 tests, 2 failures", turnId: "b1r" }
    ])
    const passing = SessionState.fold(bash("b3", "mix test", "14 doctests, 65 tests, 0 failures"), failing)
    assert.deepStrictEqual(passing.openErrors, [])
    assert.deepStrictEqual(passing.checks.map((c) => [c.command, c.passed, c.detail, c.turnId]), [
      ["mix credo --strict", true, "326 mods/funs, found no issues.", "b2r"],
      ["mix test", true, "14 doctests, 65 tests, 0 failures", "b3r"]
    ])
  })

  it("checks: a pass closes what it covers: a broader run of the same tool, a whole run of the same kind", () => {
    const state = fold(
      bash("b1", "cd /repo && mix test test/a_test.exs", "** (CompileError) test/a_test.exs:3: undefined function foo/0", true),
      bash("b2", "pnpm exec tsc -b", "src/x.ts(1,1): error TS2304: Cannot find name 'y'.\nFound 1 error in src/x.ts", true),
      // Counts decide even without an error flag.
      bash("b3", "npx vitest run test/services/totals.test.ts", " Tests  1 failed | 3 passed (4)"),
      // A lint pass covers no test or build.
      bash("b4", "mix credo", "found no issues")
    )
    assert.deepStrictEqual(state.openErrors.map((e) => [e.command, e.detail]), [
      ["mix test test/a_test.exs", "** (CompileError) test/a_test.exs:3: undefined function foo/0"],
      ["pnpm exec tsc -b", "Found 1 error in src/x.ts"],
      ["npx vitest run test/services/totals.test.ts", "Tests 1 failed | 3 passed (4)"]
    ])
    // The folder holding the failing file: closes the vitest error only (another tool's file test stays open).
    const broader = SessionState.fold(bash("b5", "npx vitest run test/services", " Tests  12 passed (12)"), state)
    assert.deepStrictEqual(broader.openErrors.map((e) => e.command), ["mix test test/a_test.exs", "pnpm exec tsc -b"])
    // Another file of the same tool covers nothing; the whole suite covers every test.
    const other = SessionState.fold(bash("b6", "mix test test/b_test.exs", "3 tests, 0 failures"), broader)
    assert.deepStrictEqual(other.openErrors, broader.openErrors)
    const whole = SessionState.fold(bash("b7", "mix test --seed 0 2>&1 | tail -5", "20 tests, 0 failures"), other)
    assert.deepStrictEqual(whole.openErrors.map((e) => e.command), ["pnpm exec tsc -b"])
    // A command still running in the background is no result.
    const background = SessionState.fold(bash("b8", "mix test", "Command running in background with ID: x1"), whole)
    assert.deepStrictEqual(background.checks, whole.checks)
  })

  it("issues: bd update --status then bd close, several ids at once, and gh issue close", () => {
    const state = fold(
      bash("b1", "bd update proj-1 --status in_progress && bd update proj-1.2 --status=in_progress", "ok"),
      bash("b2", "bd close proj-1.2 proj-1.3 --reason \"done\" 2>&1", "✓ Closed"),
      bash("b3", "gh issue close 42", "closed"),
      bash("b4", "bd update proj-9 --status in_progress", "Error: not found", true)
    )
    assert.deepStrictEqual(state.issues, [
      { id: "proj-1", status: "in_progress", turnId: "b1" },
      { id: "proj-1.2", status: "closed", turnId: "b2" },
      { id: "proj-1.3", status: "closed", turnId: "b2" },
      { id: "#42", status: "closed", turnId: "b3" }
    ])
  })

  it("git: commits (-m and a here-document), pushes, a new branch; a retried commit replaces the failed one", () => {
    const heredoc = "git add -A && git commit -m \"$(cat <<'EOF'\nfeat: the second change\n\nBody text.\nEOF\n)\""
    const state = fold(
      bash("b1", "git commit -m \"fix: the first change\"", "hook failed", true),
      bash("b2", "git commit -m \"fix: the first change\"", "[main 1a2b3c] fix: the first change"),
      bash("b3", heredoc, "[main 4d5e6f] feat: the second change"),
      bash("b4", "git push 2>&1", "To github.com:o/r.git"),
      bash("b5", "git checkout -b feature-x", "Switched to a new branch 'feature-x'"),
      bash("b6", "git commit -m 'nothing'", "nothing to commit, working tree clean")
    )
    assert.deepStrictEqual(state.events, [
      { text: "git commit \"fix: the first change\"", turnId: "b2" },
      { text: "git commit \"feat: the second change\"", turnId: "b3" },
      { text: "git push", turnId: "b4" },
      { text: "git checkout new branch feature-x", turnId: "b5" }
    ])
    assert.deepStrictEqual(state.branch, { value: "feature-x", turnId: "b5" })
    // A commit a hook refused, not yet redone: an open error with the reason.
    const refused = SessionState.fold(
      bash("b7", "git commit -m \"feat: traces\"", "Pre-commit validation failed:\\n\\n[DIALYZER]\nTotal errors: 2", true),
      state
    )
    assert.deepStrictEqual(refused.events.at(-1), {
      text: "git commit \"feat: traces\"",
      failed: true,
      detail: "Pre-commit validation failed: [DIALYZER]",
      turnId: "b7"
    })
    expect(SessionState.render(refused)).toContain("Open errors:\n- git commit \"feat: traces\" failed: Pre-commit validation failed: [DIALYZER] [b7]")
    // A commit that goes through settles it, whatever its message now; a failed push stays open.
    const settled = SessionState.fold(
      [...bash("b8", "git push", "rejected", true), ...bash("b9", "git commit -m \"feat: traces (fixed)\"", "[b 9] ok")],
      refused
    )
    assert.deepStrictEqual(settled.events.filter((e) => e.failed === true).map((e) => e.text), ["git push"])
  })

  it("plan: TodoWrite's list with its statuses; a numbered plan in prose only without one", () => {
    const prose = say("p1", "Here is the plan:\n1. ✅ Read the code\n2. **Fix the bug**\n3. Run the tests\nLet me start.")
    const fromProse = fold(prose)
    assert.deepStrictEqual(fromProse.plan, {
      source: "prose",
      items: [
        { text: "Read the code", status: "completed" },
        { text: "Fix the bug", status: "pending" },
        { text: "Run the tests", status: "pending" }
      ],
      at: 1,
      turnId: "p1"
    })
    expect(SessionState.render(fromProse)).toContain("Plan (from the assistant [p1]):\n- [x] Read the code\n- [ ] Fix the bug")
    const todos = [
      { content: "Add the schema", status: "completed", activeForm: "Adding" },
      { content: "Wire the route", status: "in_progress", activeForm: "Wiring" },
      { content: "Write tests", status: "pending", activeForm: "Writing" }
    ]
    const state = SessionState.fold([call("t1", "TodoWrite", { todos }), result("t1r", "t1", "Todos have been modified")], fromProse)
    assert.deepStrictEqual(state.todos, {
      source: "todo",
      // The item the agent ticked is its claim until a check or a change confirms it.
      items: todos.map((t) => ({ text: t.content, status: t.status, ...(t.status === "completed" ? { claimed: true } : {}) })),
      at: 2,
      turnId: "t1"
    })
    const text = SessionState.render(state)
    expect(text).toContain("Plan (todo list [t1]):\n- [x] Add the schema (the agent's claim)\n- [~] Wire the route\n- [ ] Write tests")
    assert.notInclude(text, "Read the code")
  })

  it("plan: an item of a prose plan shows the tracker's status of the issue it names, the longest id first", () => {
    const state = fold(
      say("p1", "Plan:\n1. spotter-gqc.1: schema work\n2. spotter-gqc.2: renderer\n3. spotter-gqc.10: later\n4. polish"),
      bash("b1", "bd close spotter-gqc.1 spotter-gqc", "✓ Closed"),
      bash("b2", "bd update spotter-gqc.2 --status in_progress", "ok")
    )
    // The epic's id (spotter-gqc) and gqc.1 do not stand for gqc.10; nothing is stored, only shown.
    expect(SessionState.render(state)).toContain(
      "Plan (from the assistant [p1]):\n- [x] spotter-gqc.1: schema work\n- [~] spotter-gqc.2: renderer\n" +
        "- [ ] spotter-gqc.10: later\n- [ ] polish"
    )
    assert.deepStrictEqual(state.plan?.items.map((i) => i.status), ["pending", "pending", "pending", "pending"])
  })

  it("issues: an issue the session created shows with its id and title, however the title is quoted", () => {
    // As agents write it (`--title="..."`, the form beads documents) and as beads answers.
    const state = fold(
      bash(
        "b1",
        "bd create --title=\"load_session_messages crashes on [uuid] refs\" --description=\"Seen in review\" --type=bug --priority=1",
        "✓ Created issue: spotter-k2p\n  Title: load_session_messages crashes on [uuid] refs\n  Priority: P1\n  Status: open"
      ),
      bash("b2", "bd create 'Add retries' -t task", "✓ Created issue: spotter-x9q"),
      bash("b3", "bd update spotter-x9q --status in_progress", "✓ Updated issue: spotter-x9q"),
      bash("b4", "gh issue create --title \"Flaky upload test\" --body x", "https://github.com/o/r/issues/57")
    )
    assert.deepStrictEqual(state.issues, [
      { id: "spotter-k2p", status: "open", title: "load_session_messages crashes on [uuid] refs", turnId: "b1" },
      { id: "spotter-x9q", status: "in_progress", title: "Add retries", turnId: "b3" },
      { id: "#57", status: "open", title: "Flaky upload test", turnId: "b4" }
    ])
    assert.deepStrictEqual(state.events, [])
    const text = SessionState.render(state)
    expect(text).toContain("Issues:\n- spotter-k2p: open — load_session_messages crashes on [uuid] refs [b1]")
    assert.notInclude(text, "Git:")
    // A create the tracker refused is an open error with its title whole.
    const refused = fold(bash("b5", "bd create --title=\"Fix the loader\"", "Error: no beads database found", true))
    expect(SessionState.render(refused)).toContain("Open errors:\n- bd create \"Fix the loader\" failed: Error: no beads database found [b5]")
  })

  it("plan: an item's state follows the tracker and the commits", () => {
    // A prose plan written while spotter-gqc.7 was in progress (the shape of a real session's plan).
    const plan = say(
      "p1",
      "I need to implement:\n1. **ReviewTokenStore** - ETS-backed GenServer for one-time tokens\n" +
        "2. **hooks.json** - Add the review hook\n3. **Tmux.launch_project_review** - New function\n4. Polish the docs"
    )
    const before = fold(bash("b1", "bd update spotter-gqc.7 --status in_progress 2>&1", "✓ Updated issue: spotter-gqc.7"), plan)
    assert.strictEqual(before.plan?.issue, "spotter-gqc.7")
    // A commit of some of the files: the items that name them (by file or module name) are done.
    const partial = SessionState.fold(
      bash(
        "b2",
        "git add lib/spotter/services/review_token_store.ex spotter-plugin/hooks/hooks.json && git commit -m \"wip: token store\"",
        "[spotter-gqc 1a2b3c4] wip: token store"
      ),
      before
    )
    expect(SessionState.render(partial)).toContain(
      "- [x] ReviewTokenStore - ETS-backed GenServer for one-time tokens\n- [x] hooks.json - Add the review hook\n" +
        "- [ ] Tmux.launch_project_review - New function\n- [ ] Polish the docs"
    )
    // The commit of the plan's issue does the rest.
    const committed = SessionState.fold(
      bash("b3", "git commit -am \"feat: launch project review (spotter-gqc.7)\"", "[spotter-gqc a230dbf] feat: launch project review"),
      partial
    )
    assert.deepStrictEqual(committed.plan?.items.map((i) => i.status), ["completed", "completed", "completed", "completed"])
    // So does closing it, without a commit.
    const closed = SessionState.fold(bash("b4", "bd close spotter-gqc.7", "✓ Closed spotter-gqc.7: Closed"), before)
    assert.deepStrictEqual(closed.plan?.items.map((i) => i.status), ["completed", "completed", "completed", "completed"])
    // A commit of another issue's work leaves the plan open.
    const other = SessionState.fold(bash("b5", "git commit -m \"fix: typo (spotter-abc)\"", "[x 1] fix"), before)
    assert.deepStrictEqual(other.plan?.items.map((i) => i.status), ["pending", "pending", "pending", "pending"])
  })

  it("checks: the newest result of a check wins, and a whole run supersedes a run of some files", () => {
    const state = fold(
      bash("b1", "mix test test/spotter/services/loader_test.exs 2>&1", "  1) test loads (LoaderTest)\n3 tests, 1 failure", true),
      bash("b2", "mix compile --warnings-as-errors", "Compiling 2 files (.ex)"),
      bash("b3", "mix test 2>&1 | tail -3", "Finished in 2.1 seconds\n127 tests, 0 failures"),
      bash("b4", "mix compile --force", "** (CompileError) lib/a.ex:3: undefined function x/0", true)
    )
    assert.deepStrictEqual(state.checks.map((c) => [c.command, c.passed, c.detail]), [
      ["mix test", true, "127 tests, 0 failures"],
      ["mix compile --force", false, "** (CompileError) lib/a.ex:3: undefined function x/0"]
    ])
    const text = SessionState.render(state)
    expect(text).toContain("Last checks:\n- mix test: passed, 127 tests, 0 failures [b3r]")
    // The narrower run's failure is no last check now: an error the whole run fixed.
    assert.notInclude(text.slice(text.indexOf("Last checks:")), "loader_test.exs")
    expect(text).toContain("Errors fixed:\n- mix test test/spotter/services/loader_test.exs: 3 tests, 1 failure [b1r] → fixed [b3r]")
    // A narrower run after a whole one is a result of its own.
    const narrower = SessionState.fold(bash("b5", "mix test test/a_test.exs", "2 tests, 0 failures"), state)
    assert.deepStrictEqual(narrower.checks.map((c) => c.command), ["mix test", "mix compile --force", "mix test test/a_test.exs"])
  })

  it("an error line that ends in a colon keeps what it announces (the next non-blank line)", () => {
    const output = "Compiling 60 files (.ex)\n** (Mix) Could not start application opentelemetry: exited in:\n  ** (BadMapError) expected a map, got:\n\n    [exporter: {:otel_exporter_stdout, []}]\n\n  (erts 16.1.1) :erlang.is_map_key/2"
    const state = fold(bash("b1", "mix test --seed 0 2>&1 | tail -50", output, true))
    assert.deepStrictEqual(state.openErrors.map((e) => e.detail), ["** (BadMapError) expected a map, got: [exporter: {:otel_exporter_stdout, []}]"])
    // A line that announces nothing stays as it is.
    const plain = fold(bash("b1", "mix compile", "** (CompileError) lib/a.ex:3: undefined function x/0\nmore", true))
    assert.deepStrictEqual(plain.openErrors.map((e) => e.detail), ["** (CompileError) lib/a.ex:3: undefined function x/0"])
  })

  it("errors fixed: a failure a later pass covers, or a failed event that goes through, with the files written in between", () => {
    const state = fold(
      bash("b1", "mix test 2>&1 | tail -5", "** (Mix) Could not start application opentelemetry\n** (BadMapError) expected a map", true),
      call("r0", "Read", { file_path: "/repo/config/dev.exs" }),
      result("r0r", "r0", "     1→import Config"),
      edit("e1", "/repo/config/dev.exs"),
      edit("e2", "/repo/config/test.exs"),
      bash("b2", "mix test", "1 test, 1 failure", true),
      edit("e3", "/repo/lib/a.ex"),
      bash("b3", "mix test", "14 tests, 0 failures"),
      bash("g1", "git commit -m \"feat: otel\"", "Pre-commit validation failed:\n[FORMAT] Code is not formatted.", true),
      edit("e4", "/repo/lib/a.ex"),
      bash("g2", "git commit -m \"feat: otel\"", "[main 1a2b3c4] feat: otel")
    )
    assert.deepStrictEqual(state.openErrors, [])
    // Failing twice keeps the files written since the first failure (reads are not edits).
    assert.deepStrictEqual(state.fixed, [
      {
        text: "mix test",
        detail: "1 test, 1 failure",
        edited: ["/repo/config/dev.exs", "/repo/config/test.exs", "/repo/lib/a.ex"],
        turnId: "b2r",
        fixedTurnId: "b3r"
      },
      {
        text: "git commit \"feat: otel\"",
        detail: "Pre-commit validation failed: [FORMAT] Code is not formatted.",
        edited: ["/repo/lib/a.ex"],
        turnId: "g1",
        fixedTurnId: "g2"
      }
    ])
    const text = SessionState.render(state)
    expect(text).toContain(
      "Errors fixed:\n- mix test: 1 test, 1 failure [b2r] → fixed, editing /repo/config/test.exs, /repo/lib/a.ex and 1 more [b3r]\n"
    )
    // Short of room, the passing checks go before the errors fixed.
    for (let tokens = TokenEstimator.approximate.estimate(text); tokens > 0; tokens--) {
      const fitted = SessionState.render(state, tokens)
      if (fitted.includes("Last checks:") && fitted.includes("Errors fixed:")) continue
      expect(fitted).toContain("Errors fixed:")
      break
    }
    // A long session keeps the newest six.
    const many = fold(...Array.from({ length: 12 }, (_, i) => [bash(`f${i}`, "npm test", "1 failed", true), bash(`p${i}`, "npm test", "Tests  3 passed (3)")]).flat())
    assert.deepStrictEqual([many.fixed.length, many.fixed[0]!.turnId, many.fixed[5]!.fixedTurnId], [6, "f6r", "p11r"])
  })

  it("checks: a command run in the background gets its result when its output is read (TaskOutput)", () => {
    const read = (id: string, output: string) => [
      call(id, "TaskOutput", { task_id: "bd0afab", block: true, timeout: 120000 }),
      result(`${id}r`, id, output)
    ]
    // The shapes of a real session: the start, a read that timed out while it ran, the read once it completed.
    const started = fold(
      call("b1", "Bash", { command: "mix test test/a_test.exs test/b_test.exs 2>&1", run_in_background: true }),
      result("b1r", "b1", "Command running in background with ID: bd0afab. Output is being written to: /tmp/x/bd0afab.output"),
      read("o1", "<retrieval_status>timeout</retrieval_status>\n\n<task_id>bd0afab</task_id>\n\n<status>running</status>\n\n<output>\nCompiling 7 files (.ex)\n</output>")
    )
    assert.deepStrictEqual(started.checks, [])
    const done = SessionState.fold(
      read(
        "o2",
        "<retrieval_status>success</retrieval_status>\n\n<task_id>bd0afab</task_id>\n\n<status>completed</status>\n\n" +
          "<exit_code>0</exit_code>\n\n<output>\nFinished in 0.7 seconds\n43 tests, 0 failures\n</output>"
      ),
      started
    )
    expect(SessionState.render(done)).toContain("- mix test test/a_test.exs test/b_test.exs: passed, 43 tests, 0 failures [o2r]")
    assert.deepStrictEqual(done.background, [])
    // A failing run in the background is an open error.
    const failing = SessionState.fold(
      read("o3", "<status>completed</status>\n<exit_code>2</exit_code>\n<output>\n43 tests, 2 failures\n</output>"),
      started
    )
    assert.deepStrictEqual(failing.openErrors.map((e) => [e.command, e.detail]), [["mix test test/a_test.exs test/b_test.exs", "43 tests, 2 failures"]])
  })

  it("checks: counts read through a test runner's colours", () => {
    const coloured = "\u001b[2m Test Files \u001b[22m \u001b[1m\u001b[32m3 passed\u001b[39m\u001b[22m\u001b[90m (3)\u001b[39m\n" +
      "\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[32m24 passed\u001b[39m\u001b[22m\u001b[90m (24)\u001b[39m\n" +
      "\u001b[2m   Duration \u001b[22m 1.52s"
    const state = fold(bash("b1", "npx vitest run", coloured))
    expect(SessionState.render(state)).toContain("- npx vitest run: passed, Tests 24 passed (24) [b1r]")
  })

  it("citations: a long turn id is cited by its first 8 characters, a derived one with its suffix", () => {
    const state = fold(
      user("d35f0cc4-428d-436c-b878-0a1b2c3d4e5f", "Fix the loader"),
      ...bash("9a8b7c6d-1111-2222-3333-444455556666", "mix test", "5 tests, 0 failures").map((turn, i) =>
        i === 1 ? ConversationTurn.make({ ...turn, id: "0f1e2d3c-1111-2222-3333-444455556666#1" }) : turn
      )
    )
    const text = SessionState.render(state)
    expect(text).toContain("Session state (from turns d35f0cc4 … 0f1e2d3c#1, 3 turns):")
    expect(text).toContain("- first request: Fix the loader [d35f0cc4]")
    expect(text).toContain("- mix test: passed, 5 tests, 0 failures [0f1e2d3c#1]")
    assert.notInclude(text, "428d")
    assert.strictEqual(SessionState.shortId("u1"), "u1")
    assert.strictEqual(SessionState.shortId("claude-code:412-1a2b3c4d5e6f"), "claude-code:412")
    assert.strictEqual(SessionState.shortId("a-rather-long-id-of-some-other-source"), "a-rather-long-id-of-some-other-source")
  })

  it("task: the first and the latest real requests, never tool results, meta lines or command noise", () => {
    const state = fold(
      user("u1", "<system-reminder>Be brief.</system-reminder>\nFix the login bug"),
      user("u2", "<command-name>/compact</command-name>\n<command-message>compact</command-message>"),
      user("u3", "<local-command-stdout>Compacted</local-command-stdout>"),
      user("u4", "Base directory for this skill: /x", { meta: true }),
      user("u5", "[Request interrupted by user for tool use]"),
      user("u6", "This session is being continued from a previous conversation that ran out of context."),
      ConversationTurn.make({ role: "user", content: "tool output", id: "u7", metadata: { toolCallId: "c1" } }),
      user("u8", "<system-reminder>only a reminder</system-reminder>"),
      user("u9", "now also add a test")
    )
    assert.deepStrictEqual(state.firstRequest, { text: "Fix the login bug", at: 1, turnId: "u1" })
    assert.deepStrictEqual(state.latestRequest, { text: "now also add a test", at: 9, turnId: "u9" })
  })

  it("where: the latest cwd and git branch of the turns' metadata", () => {
    const state = fold(
      user("u1", "go", { cwd: "/repo", gitBranch: "main" }),
      say("a1", "ok"),
      ConversationTurn.make({ role: "assistant", content: "x", id: "a2", metadata: { cwd: "/repo/sub", gitBranch: "main" } })
    )
    assert.deepStrictEqual([state.cwd, state.branch], [{ value: "/repo/sub", turnId: "a2" }, { value: "main", turnId: "u1" }])
  })
})

// ---------------------------------------------------------------------------- rendering

const session = [
  user("u1", "Implement the export feature", { cwd: "/repo", gitBranch: "feat-export" }),
  call("a1", "Read", { file_path: "/repo/src/export.ts" }),
  result("r1", "a1", "x"),
  call("a2", "Write", { file_path: "/repo/src/csv.ts", content: "y" }),
  result("r2", "a2", "File created successfully at: /repo/src/csv.ts"),
  ...bash("b1", "pnpm test", " Tests  1 failed | 9 passed (10)", true),
  ...bash("b2", "bd update proj-7 --status in_progress", "ok"),
  ...bash("b3", "git commit -m \"feat: csv export\"", "[feat-export 1a2b] feat: csv export"),
  call("t1", "TodoWrite", { todos: [{ content: "Fix the failing test", status: "in_progress" }] }),
  result("t1r", "t1", "ok"),
  user("u2", "also support TSV")
]

describe("SessionState.render", () => {
  it("a heading naming the turns, then sections whose entries cite their turns", () => {
    const text = SessionState.render(SessionState.fold(session))
    assert.strictEqual(
      text,
      [
        "Session state (from turns u1 … u2, 14 turns):",
        "Task:",
        "- first request: Implement the export feature [u1]",
        "- latest request: also support TSV [u2]",
        "Next:",
        "- the latest request, not yet answered [u2]",
        "Where:",
        "- directory: /repo [u1]",
        "- branch: feat-export [u1]",
        "Plan (todo list [t1]):",
        "- [~] Fix the failing test",
        "Open errors:",
        "- pnpm test: Tests 1 failed | 9 passed (10) [b1r]",
        "Last checks:",
        "- pnpm test: FAILED, Tests 1 failed | 9 passed (10) [b1r]",
        "Issues:",
        "- proj-7: in_progress [b2]",
        "Git:",
        "- git commit \"feat: csv export\" [b3]",
        "Files created:",
        "- src/csv.ts [a2]",
        "Files read:",
        "- src/export.ts [a1]"
      ].join("\n")
    )
    assert.strictEqual(SessionState.render(SessionState.empty), "")
  })

  it("is deterministic: the same turns give the same state and text", () => {
    assert.deepStrictEqual(SessionState.fold(session), SessionState.fold(session))
    assert.strictEqual(SessionState.render(SessionState.fold(session), 60), SessionState.render(SessionState.fold(session), 60))
  })

  it("stays within maxTokens, dropping files read and git events before the task", () => {
    const many = [
      ...session,
      ...Array.from({ length: 40 }, (_, i) => [
        call(`ra${i}`, "Read", { file_path: `/repo/src/file-${i}.ts` }),
        result(`rr${i}`, `ra${i}`, "x")
      ]).flat()
    ]
    const state = SessionState.fold(many)
    const estimator = TokenEstimator.approximate
    const full = SessionState.render(state, 100_000)
    for (const max of [15, 40, 80, 120, 200, 400]) {
      const text = SessionState.render(state, max)
      assert.isAtMost(estimator.estimate(text), max, `maxTokens ${max}`)
    }
    const text = SessionState.render(state, 200)
    assert.isBelow(text.length, full.length)
    expect(text).toContain("- first request: Implement the export feature [u1]")
    expect(text).toContain("- pnpm test: Tests 1 failed | 9 passed (10) [b1r]")
    expect(text).toMatch(/\(\d+ older entries left out\)$/)
    // The oldest reads go first, and all reads before the git events.
    assert.notInclude(text, "file-0.ts")
    expect(text).toContain("file-39.ts")
    const tight = SessionState.render(state, 120)
    assert.notInclude(tight, "Files read:")
    assert.notInclude(tight, "Git:")
    expect(tight).toContain("- first request: Implement the export feature [u1]")
    // Not even the heading fits: nothing.
    assert.strictEqual(SessionState.render(state, 5), "")
  })
})

// ---------------------------------------------------------------------------- incremental

const pool: ReadonlyArray<ReadonlyArray<ConversationTurn.ConversationTurn>> = [
  [user("p-u", "do the thing", { cwd: "/w", gitBranch: "b" })],
  bash("p-t", "mix test", "3 tests, 1 failure", true),
  bash("p-p", "mix test", "3 tests, 0 failures"),
  bash("p-c", "bd close x-1", "closed"),
  bash("p-g", "git commit -m \"wip\"", "[b 1] wip"),
  [call("p-r", "Read", { file_path: "/w/a.ts" }), result("p-rr", "p-r", "x")],
  [call("p-w", "Write", { file_path: "/w/b.ts" }), result("p-wr", "p-w", "File created")],
  [call("p-d", "TodoWrite", { todos: [{ content: "one", status: "pending" }] })],
  [say("p-s", "Plan:\n1. a\n2. b")],
  [call("p-o", "Bash", { command: "mix compile" })],
  [result("p-x", "p-o", "== Compilation error in file lib/a.ex ==", true)]
]

const encode = Schema.encodeSync(SessionState.StateFromJson)
const decode = Schema.decodeUnknownSync(SessionState.StateFromJson)

describe("SessionState incremental", () => {
  it.prop(
    "folding a prefix, storing it as JSON, then stepping the rest equals folding all",
    [FastCheck.array(FastCheck.integer({ min: 0, max: pool.length - 1 }), { maxLength: 40 }), FastCheck.nat()],
    ([picks, at]) => {
      const turns = picks.flatMap((i) => pool[i]!)
      const cut = turns.length === 0 ? 0 : at % (turns.length + 1)
      const stored = decode(encode(SessionState.fold(turns.slice(0, cut))))
      assert.deepStrictEqual(SessionState.fold(turns.slice(cut), stored), SessionState.fold(turns))
    }
  )

  it("a state of another version is refused by the Schema", () => {
    const text = encode(SessionState.fold(session)).replace("\"version\":6", "\"version\":5")
    assert.throws(() => decode(text))
  })
})
