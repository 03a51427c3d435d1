import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Material from "../src/Material.js"
import * as Transcript from "../src/Transcript.js"

// Turns as the Claude Code importer writes them: a call's JSON in
// `metadata.toolCalls` and as a `[tool_call name] json` line; a result with
// its call id and tool name.
let clock = 0
const stamp = () => `2026-02-11T20:${String(10 + Math.floor(clock / 60)).padStart(2, "0")}:${String(clock++ % 60).padStart(2, "0")}Z`
const call = (id: string, name: string, input: Record<string, unknown>, prose = "") => {
  const args = JSON.stringify(input)
  return {
    role: "assistant",
    content: [prose, `[tool_call ${name}] ${args}`].filter((s) => s.length > 0).join("\n"),
    timestamp: stamp(),
    metadata: { toolCalls: [{ id, name, arguments: args }] }
  }
}
const answer = (id: string, name: string, content: string, isError = false) => ({
  role: "tool",
  content,
  timestamp: stamp(),
  metadata: isError ? { toolCallId: id, toolName: name, isError } : { toolCallId: id, toolName: name }
})
const user = (content: string) => ({ role: "user", content, timestamp: stamp() })

// The content of each turn of the material (what a summary task carries).
const contents = (turns: Parameters<typeof Material.render>[0]) => Material.renderContents(turns)

const numbered = (lines: ReadonlyArray<string>, sep = "→") =>
  lines.map((line, i) => `${String(i + 1).padStart(6)}${sep}${line}`).join("\n")

describe("Material.render: tool calls", () => {
  it("renders a call whose JSON holds quotes, newlines and braces as one action line, never the JSON", () => {
    const command = "node -e \"console.log({a: 1})\" && printf '}\\n{' \\\n  && echo \"done\""
    const turns = [
      call("t1", "Bash", { command, description: "print braces" }, "Let me check."),
      call("t2", "Edit", {
        file_path: "lib/foo.ex",
        old_string: "  def bar(x) do\n    {:ok, \"x\"}\n  end",
        new_string: "  def bar(x) do\n    {:ok, \"y\"}\n  end\n\n  def baz, do: \"}{\""
      })
    ]
    const [bash, edit] = contents(turns)
    expect(bash).toBe(
      "Let me check.\n$ node -e \"console.log({a: 1})\" && printf '}\\n{' \\ ↵ && echo \"done\"  # print braces"
    )
    expect(edit).toBe("Edit lib/foo.ex: 3 → 5 lines; touches bar, baz")
    const material = Material.render(turns)
    expect(material).not.toContain("[tool_call")
    expect(material).not.toContain("old_string")
    expect(material.split("\n")).toHaveLength(3)
  })

  it("renders a Write with its size and the names the file defines, not its body", () => {
    const body = "defmodule Foo do\n  @moduledoc false\n  def bar, do: 1\n  defp baz, do: 2\nend\n"
    const [write] = contents([call("w", "Write", { file_path: "lib/foo.ex", content: body })])
    expect(write).toBe("Write lib/foo.ex (5 lines; defines: Foo, bar, baz)")
  })

  it("renders Read, Grep, Glob, Task, WebFetch and TodoWrite by kind", () => {
    expect(contents([
      call("a", "Read", { file_path: "src/a.ts", offset: 100, limit: 50 }),
      call("b", "Grep", { pattern: "with_span", path: "lib", glob: "*.ex", output_mode: "content" }),
      call("c", "Glob", { pattern: "priv/**/*.exs" }),
      call("d", "Task", { description: "Check versions", prompt: "long\nprompt", subagent_type: "general" }),
      call("e", "WebFetch", { url: "https://hexdocs.pm/x", prompt: "what is it?" }),
      call("f", "TodoWrite", {
        todos: [
          { content: "Add schema", status: "completed", activeForm: "Adding schema" },
          { content: "Write migration", status: "in_progress", activeForm: "Writing migration" },
          { content: "Run tests", status: "pending", activeForm: "Running tests" }
        ]
      })
    ])).toEqual([
      "Read src/a.ts lines 100-149",
      "Grep \"with_span\" in lib (*.ex)",
      "Glob \"priv/**/*.exs\"",
      "Task: Check versions (general)",
      "WebFetch https://hexdocs.pm/x",
      "Todo: [x] Add schema / [~] Write migration / [ ] Run tests"
    ])
  })

  it("renders an unknown tool as its name and its short scalar inputs", () => {
    const [line] = contents([
      call("x", "TaskOutput", { task_id: "bd0afab", block: true, timeout: 120000, prompt: "a\nmulti-line\ntext", list: [1] })
    ])
    // How long the harness waits is no part of what the call does.
    expect(line).toBe("TaskOutput task_id=bd0afab")
  })

  it("maps SWE-agent and OpenHands tools onto the same kinds", () => {
    const openhands = {
      role: "assistant",
      content: "Let's run it:\n$ npm test",
      metadata: {
        action: "run",
        toolCalls: [{ id: "o1", name: "execute_bash", arguments: JSON.stringify({ command: "npm test", is_input: false }) }]
      }
    }
    expect(contents([
      call("s1", "str_replace_editor", { command: "create", path: "/repo/a.py", file_text: "def main():\n    pass\n" }),
      call("s2", "str_replace_editor", { command: "view", path: "/repo/a.py" }),
      call("s3", "edit", { search: "return 1", replace: "return 2" }),
      openhands
    ])).toEqual([
      "Write /repo/a.py (2 lines; defines: main)",
      "Read (str_replace_editor) /repo/a.py",
      "Edit (open file): 1 → 1 line (return 2)",
      "Let's run it:\n$ npm test"
    ])
  })
})

describe("Material.render: tool results", () => {
  it("renders a read of 300 numbered lines as `read PATH (300 lines)` with no line numbers", () => {
    const lines = Array.from({ length: 300 }, (_, i) => i === 0 ? "defmodule Big do" : `  x = ${i}`)
    const [, result] = contents([call("r", "Read", { file_path: "lib/big.ex" }), answer("r", "Read", numbered(lines))])
    expect(result).toBe("read lib/big.ex (300 lines)\ndefines: Big")
    expect(result).not.toContain("→")
  })

  it("strips the `12<TAB>`, `12:` and `12  ` prefixes of other viewers, and says which lines a partial read showed", () => {
    const listing = (sep: string) => ["export const a = 1", "", "export function b() {}"].map((l, i) => `${String(i + 40).padStart(4)}${sep}${l}`).join("\n")
    expect(contents([
      call("t", "Read", { file_path: "a.ts" }),
      answer("t", "Read", listing("\t")),
      call("c", "read_file", { path: "b.ts" }),
      answer("c", "read_file", listing(":")),
      call("s", "read_file", { path: "c.ts" }),
      answer("s", "read_file", listing("  "))
    ]).filter((_, i) => i % 2 === 1)).toEqual([
      "read a.ts lines 40-42 (3 lines)\ndefines: a, b",
      "read b.ts lines 40-42 (3 lines)\ndefines: a, b",
      "read c.ts lines 40-42 (3 lines)\ndefines: a, b"
    ])
  })

  it("does not repeat a written file's body in the write confirmation or in a `cat -n` echo", () => {
    const body = Array.from({ length: 40 }, (_, i) => `  line_${i} = "distinctive body text ${i}"`).join("\n")
    const material = Material.render([
      call("w", "Write", { file_path: "lib/foo.ex", content: `defmodule Foo do\n${body}\nend` }),
      answer("w", "Write", "File created successfully at: lib/foo.ex"),
      call("c", "Bash", { command: "cat -n lib/foo.ex" }),
      answer("c", "Bash", numbered(`defmodule Foo do\n${body}\nend`.split("\n"), "\t"))
    ])
    expect(material).not.toContain("distinctive body text")
    expect(material.split("\n[").length).toBe(4)
    expect(contents([
      call("w", "Write", { file_path: "lib/foo.ex", content: `defmodule Foo do\n${body}\nend` }),
      answer("w", "Write", "File created successfully at: lib/foo.ex"),
      call("c", "Bash", { command: "cat -n lib/foo.ex" }),
      answer("c", "Bash", numbered(`defmodule Foo do\n${body}\nend`.split("\n"), "\t"))
    ])).toEqual([
      "Write lib/foo.ex (42 lines; defines: Foo)",
      "wrote lib/foo.ex",
      "$ cat -n lib/foo.ex",
      "printed lib/foo.ex (42 lines)\ndefines: Foo"
    ])
  })

  it("folds a shell output's repeated lines into one with a count and keeps the line among them that differs", () => {
    const failures = (from: number) => Array.from({ length: 20 }, (_, i) => `Iteration ${from + i} failed`)
    const output = ["Exit code 1", ...failures(1), "milestone reached", ...failures(21), "gave up"].join("\n")
    const [, result] = contents([call("r", "Bash", { command: "./retry.sh" }), answer("r", "Bash", output, true)])
    expect(result).toBe(
      "exit 1\nIteration N failed (×20, N = 1..20)\nmilestone reached\nIteration N failed (×20, N = 21..40)\ngave up"
    )
  })

  it("folds a bare exit line that ends an output (`exit status 1`, `(exit 0)`, `exit 101`) into the status after the command", () => {
    const go = "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2\nFAIL\nexit status 1"
    expect(contents([call("t1", "Bash", { command: "go test ./..." }), answer("t1", "Bash", go)])[1])
      .toBe("exit 1\n--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2\nFAIL")
    expect(contents([call("t2", "Bash", { command: "./deploy.sh" }), answer("t2", "Bash", "deployed 3 services\n(exit 0)")])[1])
      .toBe("ok\ndeployed 3 services")
    expect(contents([call("t3", "Bash", { command: "cargo test" }), answer("t3", "Bash", "error: test failed, to rerun pass `--lib`\nexit 101")])[1])
      .toBe("exit 101\nerror: test failed, to rerun pass `--lib`")
  })

  it("keeps the failure count, the error line and the exit status of a failing `mix test`, and marks what it left out", () => {
    // Neighbours differ in more than a number: no run to fold.
    const noise = Array.from({ length: 60 }, (_, i) => `Compiling dependency_${i} (${["ex", "exs", "erl"][i % 3]})`)
    const output = [
      "Exit code 2",
      ...noise,
      "  1) test saves the annotation (SpotterWeb.SessionLiveTest)",
      "     ** (MatchError) no match of right hand side value: {:error, :not_found}",
      ...noise.slice(0, 20),
      "Finished in 2.2 seconds (0.4s async, 1.7s sync)",
      "14 doctests, 297 tests, 1 failure"
    ].join("\n")
    const [, result] = contents([
      call("m", "Bash", { command: "mix test test/x_test.exs" }),
      answer("m", "Bash", output, true)
    ])
    const lines = result!.split("\n")
    expect(lines[0]).toBe("exit 2")
    expect(lines).toContain("14 doctests, 297 tests, 1 failure")
    expect(lines).toContain("     ** (MatchError) no match of right hand side value: {:error, :not_found}")
    expect(lines).toContain("  1) test saves the annotation (SpotterWeb.SessionLiveTest)")
    expect(lines).toContain("[… 58 lines]")
    expect(result).not.toContain("dependency_30")
    expect(lines.length).toBeLessThan(15)
  })

  it("keeps a test run's totals and failures, not the line of each file that passed; those lines only without totals", () => {
    const passed = Array.from({ length: 14 }, (_, i) => ` ✓ test/services/s${i}.test.ts (${10 + i} tests) ${20 + i}ms`)
    const output = [
      "> ledgerline-api@2.7.3 test",
      "> vitest run",
      "",
      ...passed.slice(0, 7),
      " ❯ test/services/pdf.test.ts (4 tests | 1 failed) 187ms",
      "ReferenceError: plainInvoice is not defined",
      ...passed.slice(7),
      " Test Files  1 failed | 14 passed (15)",
      "      Tests  1 failed | 179 passed (180)",
      "   Start at  09:22:04",
      "   Duration  2.31s"
    ].join("\n")
    const [, result] = contents([call("v", "Bash", { command: "npx vitest run" }), answer("v", "Bash", output)])
    const lines = result!.split("\n")
    expect(lines).toContain("      Tests  1 failed | 179 passed (180)")
    expect(lines).toContain(" ❯ test/services/pdf.test.ts (4 tests | 1 failed) 187ms")
    expect(lines).toContain("ReferenceError: plainInvoice is not defined")
    expect(result).not.toMatch(/✓ test\/services\/s\d+\.test\.ts/)
    // Cut before the totals: the files that passed are all the output says.
    const [, cut] = contents([
      call("w", "Bash", { command: "npx vitest run" }),
      answer("w", "Bash", ["> vitest run", ...passed, "Killed"].join("\n"))
    ])
    expect(cut).toContain(passed[5]!.trimEnd())
  })

  it("keeps the source locations a linter or type checker reports in a long output", () => {
    const output = [
      "Pre-commit validation failed:",
      ...Array.from({ length: 30 }, (_, i) => `   ~c"_build/dev/lib/spotter/ebin/Module${i}.beam",`),
      "lib/spotter_web/otel_trace_helpers.ex:57:13:pattern_match",
      "The pattern can never match the type.",
      ...Array.from({ length: 10 }, (_, i) => `  trailing note ${i}`)
    ].join("\n")
    const [, result] = contents([call("d", "Bash", { command: "mix dialyzer" }), answer("d", "Bash", output, true)])
    expect(result!.split("\n")).toContain("lib/spotter_web/otel_trace_helpers.ex: 13:pattern_match")
    expect(result).not.toContain("Module20")
  })

  it("keeps a short shell output whole, without line-number prefixes but with its timestamps", () => {
    const [, grep, , log] = contents([
      call("g", "Grep", { pattern: "port", output_mode: "content" }),
      answer("g", "Grep", "config/dev.exs:13:  http: [ip: {0, 0, 0, 0}, port: 1100],\nlib/a.ex:118:    Port.command(port, data)"),
      call("l", "Bash", { command: "mix ecto.migrate" }),
      answer("l", "Bash", "15:18:53.671 [info] == Running 2026 up\n15:18:53.700 [info] == Migrated in 0.0s")
    ])
    expect(grep).toBe("2 lines\nconfig/dev.exs:   http: [ip: {0, 0, 0, 0}, port: 1100],\nlib/a.ex:     Port.command(port, data)")
    expect(log).toBe("ok\n15:18:53.671 [info] == Running 2026 up\n15:18:53.700 [info] == Migrated in 0.0s")
  })

  it("collapses an edit confirmation to one line and keeps the reason of a refused edit", () => {
    expect(contents([
      call("e1", "Edit", { file_path: "a.ex", old_string: "x", new_string: "y" }),
      answer("e1", "Edit", "The file a.ex has been updated successfully."),
      call("e2", "Edit", { file_path: "a.ex", old_string: "zzz", new_string: "y" }),
      answer("e2", "Edit", "<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>", true)
    ]).filter((_, i) => i % 2 === 1)).toEqual([
      "edited a.ex",
      "edited a.ex failed: String to replace not found in file.\nString: zzz"
    ])
  })

  it("pairs each result with its call by id, whatever the order of the answers", () => {
    const [, , second, first] = contents([
      call("p1", "Read", { file_path: "one.ts" }),
      call("p2", "Bash", { command: "git status" }),
      answer("p2", "Bash", "On branch main"),
      answer("p1", "Read", numbered(["export const one = 1"]))
    ])
    expect(second).toBe("ok\nOn branch main")
    expect(first).toBe("read one.ts (1 line)\ndefines: one")
  })

  it("pairs SWE-agent results without a path with the file the viewer names, and drops its prompt trailer", () => {
    const [, result] = contents([
      call("s", "edit", { search: "a", replace: "b" }),
      answer(
        "s",
        "edit",
        "Text replaced. Please review the changes.\n[File: /testbed/src/fields.py (1998 lines total)]\n(1458 more lines above)\n1459:    x = 1\n(Open file: /testbed/src/fields.py)\n(Current directory: /testbed)\nbash-$"
      )
    ])
    expect(result).toBe("edited /testbed/src/fields.py")
  })
})

describe("Material.render: plain turns and the transcript format", () => {
  it("writes turns without tool structure exactly as Transcript.formatTurns does", () => {
    const plain = [
      user("Fix the failing test in src/app.ts\nIt says `12→ end`."),
      { role: "assistant", content: "[tool_call Bash] {\"command\":\"ls\"}\n  two spaces", timestamp: stamp() },
      { role: "tool", content: "    12→  end\n13\tfoo" },
      { role: "system", content: "", timestamp: "" }
    ]
    expect(Material.render(plain)).toBe(Transcript.formatTurns(plain))
  })

  it("is byte for byte Transcript.formatTurns on any turns without metadata", () => {
    const turn = FastCheck.record({
      role: FastCheck.constantFrom("user", "assistant", "tool", "system", "observation"),
      content: FastCheck.string({ unit: "grapheme", maxLength: 80 }),
      timestamp: FastCheck.option(FastCheck.constant("2025-01-02T03:04:05Z"), { nil: undefined })
    })
    FastCheck.assert(FastCheck.property(FastCheck.array(turn, { maxLength: 8 }), (turns) => {
      expect(Material.render(turns)).toBe(Transcript.formatTurns(turns))
    }))
  })

  it("gives back as many turns, with their roles, for any mix of calls, results and prose", () => {
    const text = FastCheck.string({ unit: "grapheme", maxLength: 60 })
    const input = FastCheck.dictionary(
      FastCheck.constantFrom("command", "file_path", "path", "content", "old_string", "new_string", "todos", "pattern", "x"),
      FastCheck.oneof(text, FastCheck.integer(), FastCheck.boolean(), FastCheck.array(FastCheck.anything(), { maxLength: 3 }))
    )
    const name = FastCheck.constantFrom("Bash", "Read", "Write", "Edit", "Grep", "TodoWrite", "Task", "str_replace_editor", "odd")
    const id = FastCheck.constantFrom("a", "b", "c")
    const turn = FastCheck.oneof(
      FastCheck.record({ role: FastCheck.constantFrom("user", "assistant"), content: text }),
      FastCheck.tuple(id, name, input, text).map(([i, n, args, prose]) => call(i, n, args, prose)),
      FastCheck.tuple(id, name, text, FastCheck.boolean()).map(([i, n, out, failed]) => answer(i, n, out, failed))
    )
    FastCheck.assert(FastCheck.property(FastCheck.array(turn, { maxLength: 12 }), (turns) => {
      const each = Material.renderEach(turns)
      expect(each).toHaveLength(turns.length)
      each.forEach((line, i) => expect(line.startsWith(`${Transcript.turnPrefix(turns[i]!)} `)).toBe(true))
    }))
  })

  it("renders each turn once, under its own role and time, its content by kind", () => {
    const turns = [
      user("Implement spotter-gqc"),
      { role: "assistant", content: "[thinking] Let me look first.\nThe fix is to retry on timeout.", timestamp: stamp() },
      call("r", "Read", { file_path: "lib/a.ex" }, "Reading a.ex"),
      answer("r", "Read", numbered(["defmodule A do", "end"])),
      call("b", "Bash", { command: "mix test\nmix credo" }),
      answer("b", "Bash", "Exit code 1\nerror: boom", true),
      answer("orphan", "Bash", "no call in sight"),
      { role: "assistant", content: "Done.", timestamp: stamp() }
    ]
    const each = Material.renderEach(turns)
    const parsed = Material.renderContents(turns).map((content) => ({ content }))
    each.forEach((line, i) => expect(line.startsWith(`[${turns[i]!.timestamp.slice(0, 19)}] ${turns[i]!.role}: `)).toBe(true))
    expect(Material.render(turns)).toBe(each.join("\n"))
    expect(parsed[0]!.content).toBe("Implement spotter-gqc")
    expect(parsed[1]!.content).toBe("[thinking] The fix is to retry on timeout.")
    expect(parsed[5]!.content).toBe("exit 1\nerror: boom")
    expect(parsed[6]!.content).toBe("ok\nno call in sight")
  })
})

describe("Material.render: what the agent that continues needs, without the noise", () => {
  const cwd = "/home/USER/projects/spotter-worktrees/spotter-gqc"
  const at = (turn: Material.Turn): Material.Turn => ({ ...turn, metadata: { ...turn.metadata, cwd } })

  it("writes paths under the turn's working directory relative to it (the header states the directory)", () => {
    const [read, result, bash, prose] = contents([
      at(call("r", "Read", { file_path: `${cwd}/lib/spotter/transcripts/message.ex` })),
      at(answer("r", "Read", numbered(["defmodule Spotter.Transcripts.Message do", "end"]))),
      at(call("b", "Bash", { command: `cd ${cwd} && mix test ${cwd}/test/a_test.exs`, description: "Run tests" })),
      at({ role: "assistant", content: `Fixed ${cwd}/lib/a.ex; ${cwd}-old/x and /tmp/x stay.`, timestamp: stamp() })
    ])
    expect(read).toBe("Read lib/spotter/transcripts/message.ex")
    expect(result).toBe("read lib/spotter/transcripts/message.ex (2 lines)\ndefines: Spotter.Transcripts.Message")
    // The directory itself stays where a command names it.
    expect(bash).toBe(`$ cd ${cwd} && mix test test/a_test.exs  # Run tests`)
    expect(prose).toBe(`Fixed lib/a.ex; ${cwd}-old/x and /tmp/x stay.`)
    // Without a working directory nothing changes.
    expect(contents([call("r", "Read", { file_path: `${cwd}/lib/a.ex` })])).toEqual([`Read ${cwd}/lib/a.ex`])
  })

  it("keeps of the agent's reasoning only the plan and what carries a decision or a cause", () => {
    // Sentences of a real session's reasoning.
    const [kept, dropped] = contents([
      {
        role: "assistant",
        timestamp: stamp(),
        content: "[thinking] Now I have all the info. Let me implement gqc.7 step by step:\n" +
          "1. **ReviewTokenStore** - ETS-backed GenServer for one-time tokens with TTL\n" +
          "2. **hooks.json** - Add the review hook\n" +
          "The issue is that the sandbox checkout is per-process but the LiveView runs in a different process. " +
          "Let me check the test helper.\nI'll go with setting the sandbox to auto mode since these tests are already non-async."
      },
      { role: "assistant", timestamp: stamp(), content: "[thinking] The user interrupted the wait. Let me check the test output so far." }
    ])
    expect(kept).toBe(
      "[thinking] 1. **ReviewTokenStore** - ETS-backed GenServer for one-time tokens with TTL\n" +
        "2. **hooks.json** - Add the review hook\n" +
        "The issue is that the sandbox checkout is per-process but the LiveView runs in a different process.\n" +
        "I'll go with setting the sandbox to auto mode since these tests are already non-async."
    )
    expect(dropped).toBe("")
  })

  it("leaves out a tool's chatter about itself and a harness's meta text past its first line", () => {
    const [, npm, , credo, skill] = contents([
      call("n", "Bash", { command: "npm install" }),
      answer("n", "Bash", "\nadded 3 packages, and audited 120 packages in 2s\n\n15 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities"),
      call("c", "Bash", { command: "mix credo --strict" }),
      answer("c", "Bash", "326 mods/funs, found no issues.\n\nUse `mix credo explain` to explain issues, `mix credo --help` for options.\nPlease report incorrect results: https://github.com/rrrene/credo/issues"),
      { role: "user", timestamp: stamp(), metadata: { meta: true }, content: "Base directory for this skill: /home/USER/.claude/skills/hex-docs-search\n\n# Hex Documentation Search\nSearch Elixir package documentation." }
    ])
    expect(npm).toBe("ok\nadded 3 packages, and audited 120 packages in 2s\n\nfound 0 vulnerabilities")
    expect(credo).toBe("ok\n326 mods/funs, found no issues.")
    expect(skill).toBe("Base directory for this skill: /home/USER/.claude/skills/hex-docs-search")
  })

  it("gives a harness's notice in a user turn and the frame of a background command's output only what they say", () => {
    // A real session's shapes: a task notification, then TaskOutput's frame around the output.
    const [notice, , output] = contents([
      user(
        "<task-notification>\n<task-id>bd0afab</task-id>\n<output-file>/tmp/claude-1000/x/tasks/bd0afab.output</output-file>\n" +
          "<status>completed</status>\n<summary>Background command \"Run resource and renderer tests\" completed (exit code 0)</summary>\n" +
          "</task-notification>\nRead the output file to retrieve the result: /tmp/claude-1000/x/tasks/bd0afab.output"
      ),
      call("o", "TaskOutput", { task_id: "bd0afab", block: true, timeout: 120000 }),
      answer(
        "o",
        "TaskOutput",
        "<retrieval_status>success</retrieval_status>\n\n<task_id>bd0afab</task_id>\n\n<task_type>local_bash</task_type>\n\n" +
          "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\nFinished in 0.7 seconds\n43 tests, 0 failures\n</output>"
      )
    ])
    expect(notice).toBe("Background command \"Run resource and renderer tests\" completed (exit code 0)")
    expect(output).toBe("<status>completed</status>\n\n<exit_code>0</exit_code>\n\nFinished in 0.7 seconds\n43 tests, 0 failures")
    // The user's own words stay as they are.
    expect(contents([user("check again")])).toEqual(["check again"])
  })

  it("gives harness junk nothing, a harness notice without its terminal escapes, and a subagent's answer without its bookkeeping", () => {
    expect(contents([
      user("<command-name>/rate-limit-options</command-name>\n<command-message>rate-limit-options</command-message>"),
      user("<local-command-stdout>Unknown slash command: frobnicate</local-command-stdout>"),
      user("[REDACTED]"),
      user("<local-command-stdout>\u001b[2mCompacted (ctrl+o to see full summary)\u001b[22m</local-command-stdout>")
    ])).toEqual(["", "", "", "Compacted (ctrl+o to see full summary)"])
    const [, answered] = contents([
      call("t", "Task", { description: "Explore the hooks", prompt: "look" }),
      answer(
        "t",
        "Task",
        "The hooks live in lib/hooks.ex.\nagentId: aac57f5 (for resuming to continue this agent's work if needed)\n" +
          "<usage>total_tokens: 19831\ntool_uses: 12\nduration_ms: 32548</usage>"
      )
    ])
    expect(answered).toBe("The hooks live in lib/hooks.ex.")
  })

  it("keeps an agent's todo list once: a list that a later one repeats item for item is marked updated", () => {
    const todo = (id: string, done: number, extra: ReadonlyArray<string> = []) =>
      call(id, "TodoWrite", {
        todos: [...["Add migration", "Write tests", "Run mix test"], ...extra].map((content, i) => ({
          content,
          status: i < done ? "completed" : "pending",
          activeForm: content
        }))
      })
    const rendered = contents([todo("a", 0), answer("a", "TodoWrite", "ok"), todo("b", 1), answer("b", "TodoWrite", "ok"),
      todo("c", 2, ["Commit"]), answer("c", "TodoWrite", "ok"), todo("d", 0, ["Other task"])])
    expect(rendered[0]).toBe("Todo: (updated below)")
    expect(rendered[2]).toBe("Todo: (updated below)")
    expect(rendered[4]).toBe("Todo: [x] Add migration / [x] Write tests / [ ] Run mix test / [ ] Commit")
    // A list that drops an item is not repeated by it.
    expect(rendered[6]).toBe("Todo: [ ] Add migration / [ ] Write tests / [ ] Run mix test / [ ] Other task")
  })

  it("renders each turn as render does", () => {
    const turns = [at(call("r", "Read", { file_path: `${cwd}/a.ex` })), at(answer("r", "Read", "x")), user("go on")]
    expect(Material.renderEach(turns).join("\n")).toBe(Material.render(turns))
    expect(Material.renderEach(turns)).toHaveLength(3)
  })

  it("gives each turn's rendered content alone, as the transcript reads it back", () => {
    const turns = [
      at(call("b", "Bash", { command: "mix test", description: "Run tests" }, "Running the tests.\nThen the fix.")),
      at(answer("b", "Bash", "Exit code 1\n1 test, 1 failure")),
      user("go on\nplease")
    ]
    const rendered = Material.renderContents(turns)
    expect(rendered).toEqual(contents(turns))
    expect(rendered[0]).toBe("Running the tests.\nThen the fix.\n$ mix test  # Run tests")
    expect(rendered[0]).not.toContain("{")
  })
})

describe("Material.definitions", () => {
  it("finds modules, functions, classes and top-level constants across languages, once each", () => {
    expect(Material.definitions([
      "defmodule Spotter.Repo do",
      "  defp helper(x), do: x",
      "export async function load() {}",
      "export class Store {}",
      "const LIMIT = 3",
      "  const local = 1",
      "class Parser:",
      "    def parse(self): pass",
      "pub fn run() {}",
      "func (s *Server) Serve() {}",
      "  defp helper(y), do: y"
    ].join("\n"))).toEqual(["Spotter.Repo", "helper", "load", "Store", "LIMIT", "Parser", "parse", "run", "Serve"])
  })
})
