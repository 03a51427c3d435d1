/** aider chat histories (`.aider.chat.history.md`, as aider's `io.py` appends them). */
import { assert, describe, it } from "@effect/vitest"
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
      ["system", "Applied edit to cli.py"]
    ])
    assert.strictEqual(turns[0]!.timestamp, "2025-10-20T21:49:17")
    assert.strictEqual(turns[0]!.metadata?.meta, true)
    assert.strictEqual(Importer.parse(history, "auto", "h.md")._tag, "Right")
  })
})
