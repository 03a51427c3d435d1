/** aider chat histories (`.aider.chat.history.md`, as aider's `io.py` appends them). */
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState, ToolUse } from "@precis/core"
import * as Option from "effect/Option"
import * as Importer from "../src/Importer.js"
import { ok } from "./helpers.js"

const history = [
  "",
  "# aider chat started at 2025-10-20 21:49:17",
  "",
  "> Aider v0.86.1  ",
  "> Main model: gpt-4o  ",
  "",
  "#### Add a --verbose flag  ",
  "#### to the CLI  ",
  "",
  "I will add it to `cli.py`:",
  "",
  "```python",
  "verbose = True",
  "```",
  "",
  "> Applied edit to cli.py  ",
  ""
].join("\n")

describe("aider chat histories", () => {
  it("are detected by their run header or their name", () => {
    assert.deepStrictEqual(Importer.detect(history), Option.some("aider"))
    assert.deepStrictEqual(Importer.detect("#### hi\n", "/p/.aider.chat.history.md"), Option.some("aider"))
    assert.isTrue(Option.isNone(Importer.detect("# Notes\n", "notes.md")))
  })

  it("read the user's lines, aider's own lines and the reply as turns, the run's start on its first", () => {
    const turns = ok(history, "aider")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.content]), [
      ["system", "Aider v0.86.1\nMain model: gpt-4o"],
      ["user", "Add a --verbose flag\nto the CLI"],
      ["assistant", "I will add it to `cli.py`:\n\n```python\nverbose = True\n```"],
      ["system", "Applied edit to cli.py"],
      // The edit aider applied, as a call answered by its line.
      ["assistant", "[tool_call edit_file] {\"file_path\":\"cli.py\"}"],
      ["tool", "Applied edit to cli.py"]
    ])
    assert.strictEqual(turns[0]!.timestamp, "2025-10-20T21:49:17")
    assert.strictEqual(turns[0]!.metadata?.meta, true)
    assert.strictEqual(Importer.parse(history, "auto", "h.md")._tag, "Right")
  })

  it("read aider's own work as calls: /add a read of each file, /run and /git a command, an applied edit an edit", () => {
    const work = [
      "# aider chat started at 2025-10-20 21:49:17",
      "#### /add src/app.py tests/*.py  ",
      "> Added src/app.py to the chat  ",
      "#### Make the tests pass  ",
      "Editing `src/app.py`.",
      "> Applied edit to src/app.py  ",
      "> Commit 1a2b3c fix: tests  ",
      "#### /drop  ",
      "> Dropping all files from the chat session.  ",
      "#### /run pytest -q  ",
      "> 3 passed  ",
      "#### /git status  ",
      "> nothing to commit  ",
      ""
    ].join("\n")
    const turns = ok(work, "aider")
    // Each call answered by aider's line after it; the glob is not a file.
    const calls = turns.flatMap((t) => ToolUse.calls(t)).map((c) => [c.name, c.input])
    assert.deepStrictEqual(calls, [
      ["read_file", { file_path: "src/app.py" }],
      ["edit_file", { file_path: "src/app.py" }],
      ["run", { command: "pytest -q" }],
      ["run", { command: "git status" }]
    ])
    const results = turns.map((t) => ToolUse.result(t)).filter((r) => r !== undefined)
    assert.deepStrictEqual(results.map((r) => r.callId), ["aider:2.1", "aider:6.1", "aider:10.1", "aider:12.1"])
    assert.strictEqual(turns.find((t) => ToolUse.result(t)?.callId === "aider:10.1")?.content, "3 passed")
    const header = SessionState.render(SessionState.fold(turns))
    // Commands are not requests: the task is what the user asked.
    expect(header).toContain("- first request: Make the tests pass")
    expect(header).not.toContain("latest request")
    expect(header).toContain("Files modified:\n- src/app.py")
    expect(header).toContain("- last command: git status")
  })
})
