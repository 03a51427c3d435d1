import { assert, describe, expect, it } from "@effect/vitest"
import * as OutputDigest from "../src/OutputDigest.js"

describe("OutputDigest: lines that carry a result", () => {
  it("tells a test runner's line for a file that passed from totals and failures", () => {
    for (const line of [" ✓ test/services/vat.test.ts (21 tests) 73ms", "PASS src/http/index.test.ts (39 tests) 552ms", "✔ lib/a.spec.js"]) {
      expect(OutputDigest.isPassedFileLine(line)).toBe(true)
    }
    for (
      const line of [
        "      Tests  130 passed (130)",
        " ✓ test/a.test.ts (4 tests | 1 failed) 187ms",
        " ❯ test/services/pdf.test.ts (4 tests | 1 failed)",
        "FAIL src/app.test.ts",
        "✓ Closed spotter-gqc.1: Closed",
        "PASS"
      ]
    ) expect(OutputDigest.isPassedFileLine(line)).toBe(false)
  })
})

describe("OutputDigest: lines that report an error", () => {
  it("one vocabulary for the material and the extractive provider: words of failure, not inside a path", () => {
    for (
      const line of [
        "TypeError: cannot read 'x' of undefined",
        "CONFLICT (content): Merge conflict in src/a.ts",
        "Segmentation fault: segfault at 0x0",
        "Process exited: exit code 2",
        "npm ERR_INVALID_ARG",
        " ✗ renders the invoice"
      ]
    ) assert.isTrue(OutputDigest.isErrorLine(line), line)
    for (const line of [" ✓ src/errors.test.ts (3 tests)", "see src/errors/index.ts", "exit code 0"]) {
      assert.isFalse(OutputDigest.isErrorLine(line), line)
    }
  })
})

describe("OutputDigest: lines that say a run failed", () => {
  it("takes a compiler's, a test runner's or a crash's own words, not a mention of an error", () => {
    for (
      const line of [
        "** (CompileError) lib/a.ex:3: undefined function foo/0",
        "src/x.ts(1,1): error TS2304: Cannot find name 'y'.",
        "FAIL src/app.test.ts",
        "Traceback (most recent call last):",
        "thread 'main' panicked at src/main.rs:2:5"
      ]
    ) assert.isTrue(OutputDigest.isFailureLine(line), line)
    for (const line of ["0 errors", "handles the error case", "✓ src/errors.test.ts"]) {
      assert.isFalse(OutputDigest.isFailureLine(line), line)
    }
  })
})

describe("OutputDigest: line numbers", () => {
  it("strips a listing's prefixes only when most lines carry one, a grep match's number always", () => {
    assert.deepStrictEqual(OutputDigest.stripLineNumbers(["12:a", "13:b", "15:18:53 [warning]"]), ["a", "b", "15:18:53 [warning]"])
    assert.deepStrictEqual(OutputDigest.stripLineNumbers(["15:18:53 [warning] x", "plain"]), ["15:18:53 [warning] x", "plain"])
    assert.deepStrictEqual(OutputDigest.stripLineNumbers(["lib/a.ex:12:  def x"]), ["lib/a.ex:   def x"])
    assert.deepStrictEqual(OutputDigest.numberedRange(["    40→a", "    41→b"]), [40, 41])
  })

  it("strips from one line only the prefixes that need no context: N→, N<tab>, grep's path:N:", () => {
    expect(OutputDigest.stripLineNumber("    12→  end")).toBe("  end")
    expect(OutputDigest.stripLineNumber("     7\tdef main():")).toBe("def main():")
    expect(OutputDigest.stripLineNumber("src/app.ts:42:  const port = 3000")).toBe("src/app.ts: const port = 3000")
    expect(OutputDigest.stripLineNumber("lib/a/b.ex-17-  # context")).toBe("lib/a/b.ex: # context")
    expect(OutputDigest.stripLineNumber("  …     18→      msg")).toBe("  …       msg")
    expect(OutputDigest.stripLineNumber("12:30:00 started")).toBe("12:30:00 started")
    expect(OutputDigest.stripLineNumber("3 tests, 0 failures")).toBe("3 tests, 0 failures")
    expect(OutputDigest.stripLineNumber("12: an item")).toBe("12: an item")
  })
})

describe("OutputDigest: what of an output is kept", () => {
  it("keeps a short output whole, else its ends and the lines that matter, each gap marked", () => {
    assert.deepStrictEqual(OutputDigest.digest(["a", "b"]), ["a", "b"])
    // Distinct lines (numbered ones would fold as one run).
    const names = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
    const long = Array.from({ length: 40 }, (_, i) => (i === 20 ? "Error: boom" : `line ${names[i]}`))
    const kept = OutputDigest.digest(long)
    assert.deepStrictEqual(kept, ["line a", "line b", "[… 18 lines]", "Error: boom", "[… 16 lines]", "line L", "line M", "line N"])
    for (const line of kept.filter((l) => l.startsWith("[…"))) assert.isTrue(OutputDigest.isOmission(line))
  })

  it("folds a run of repeated lines into one with its count and keeps the line that differs", () => {
    const failures = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => `Iteration ${from + i} failed`)
    const output = [...failures(1, 20), "milestone reached", ...failures(21, 40), "done"]
    assert.deepStrictEqual(OutputDigest.digest(output), [
      "Iteration N failed (×20, N = 1..20)",
      "milestone reached",
      "Iteration N failed (×20, N = 21..40)",
      "done"
    ])
    assert.deepStrictEqual(OutputDigest.digest(["ok", "retry", "retry", "retry", "ok"]), ["ok", "retry (×3)", "ok"])
    // Two alike lines are not a run.
    assert.deepStrictEqual(OutputDigest.digest(["step 1", "step 2", "end"]), ["step 1", "step 2", "end"])
  })

  it("keeps a line between folded runs even when the output is long", () => {
    const noise = (tag: string) => Array.from({ length: 30 }, (_, i) => `${tag}${"-".repeat(i % 7)} row`)
    const output = [...noise("a"), ...Array.from({ length: 5 }, (_, i) => `tick ${i}`), "milestone reached",
      ...Array.from({ length: 5 }, (_, i) => `tick ${i + 5}`), ...noise("b")]
    const kept = OutputDigest.digest(output)
    expect(kept).toContain("milestone reached")
    expect(kept).toContain("tick N (×5, N = 0..4)")
  })

  it("knows every omission mark precis writes, now and before", () => {
    for (const mark of ["[…]", OutputDigest.omission, OutputDigest.omitted(1), OutputDigest.omitted(40), "[… 3 lines omitted]", "  [… 40 more lines of output cut]"]) {
      assert.isTrue(OutputDigest.isOmission(mark), mark)
    }
    for (const line of ["[… and more]", "text […]", "[…] trailing"]) assert.isFalse(OutputDigest.isOmission(line), line)
  })

  it("drops SWE-agent's frame and Claude Code's error tags from an output's lines", () => {
    assert.deepStrictEqual(
      OutputDigest.lines("\n<tool_use_error>No such file</tool_use_error>\n(Open file: /a.py)\n(Current directory: /w)\nbash-$\n"),
      ["No such file"]
    )
  })
})

describe("OutputDigest: harness noise", () => {
  it("tells what a harness writes into a user turn from the user's words", () => {
    for (
      const text of [
        "<command-name>/compact</command-name>",
        "<local-command-stdout>Compacted</local-command-stdout>",
        "[Request interrupted by user for tool use]",
        "This session is being continued from a previous conversation that ran out of context."
      ]
    ) assert.isTrue(OutputDigest.isHarnessNoise(text), text)
    assert.isFalse(OutputDigest.isHarnessNoise("Fix the <div> layout"))
    expect(OutputDigest.withoutReminders("<system-reminder>Be brief.</system-reminder>\nFix it ")).toBe("Fix it")
  })
})

describe("OutputDigest: a shell's exit status", () => {
  it("reads the exit code first or in a sentence, a status line alone, and a refusal or nonzero exit as failed", () => {
    expect(OutputDigest.exitCode("Exit code 1\nnpm ERR! test failed")).toBe(1)
    expect(OutputDigest.exitCode("Command failed with exit code 2")).toBe(2)
    expect(OutputDigest.exitCode("Exit code -1")).toBe(-1)
    expect(OutputDigest.exitCode("all good\nExit code 0 later")).toBeUndefined()
    assert.isTrue(OutputDigest.isExitCodeLine("Exit code 0"))
    assert.isFalse(OutputDigest.isExitCodeLine("Exit code 0 after 3 retries"))
    for (const bare of ["exit status 2", "exit 137", "(exit 0)", "  Exit code 1  "]) assert.isTrue(OutputDigest.isExitCodeLine(bare), bare)
    for (const not of ["exit", "(exit 0", "exit 2 retries left"]) assert.isFalse(OutputDigest.isExitCodeLine(not), not)
    // A bare exit line ends the output it states; one in its middle ends another command.
    expect(OutputDigest.exitCode("FAIL\texample.com/pkg\nexit status 1\n")).toBe(1)
    expect(OutputDigest.exitCode("exit 3\nretrying\ndone")).toBeUndefined()
    assert.isTrue(OutputDigest.saysFailed("Exit code 1\nboom"))
    assert.isTrue(OutputDigest.saysFailed("<tool_use_error>File does not exist.</tool_use_error>"))
    assert.isFalse(OutputDigest.saysFailed("Exit code 0\nok"))
    assert.isFalse(OutputDigest.saysFailed("the tests said: Exit code 1"))
  })
})
