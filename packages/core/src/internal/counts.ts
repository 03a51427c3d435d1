/**
 * The pass/fail counts a check's output states: the summary lines of test
 * runners, linters and compilers, read for the session state. Pure and
 * deterministic.
 *
 * @internal
 */
import { clip } from "./commands.js"

/** What a check's output says: its summary line and how many failed, when it says so. */
export interface Counts {
  readonly summary: string
  readonly failed: number
}

const num = (text: string | undefined): number => (text === undefined ? 0 : Number(text))

const COUNTS_CARGO = /^test result: \w+\. \d+ passed; (\d+) failed/

// Summary lines of test runners, linters and compilers (one line each).
const COUNTS: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => number]> = [
  // ExUnit: "14 doctests, 65 tests, 0 failures"
  [/^(?:\d+ doctests?, )?\d+ (?:tests?|propert(?:y|ies))(?:, \d+ \w+)*?, (\d+) failures?/, (m) => num(m[1])],
  // pytest: "==== 3 failed, 10 passed in 0.21s ===="
  [/^=+ ((?:\d+ \w+(?:, )?)+) in [\d.]+s/, (m) => num(/(\d+) failed/.exec(m[1]!)?.[1]) + num(/(\d+) errors?/.exec(m[1]!)?.[1])],
  // vitest: "Tests  2 failed | 76 passed (78)"
  [/^\s*Tests\s+((?:\d+ \w+(?: \| )?)+\s*\(\d+\))/, (m) => num(/(\d+) failed/.exec(m[1]!)?.[1])],
  // jest: "Tests:       1 failed, 5 passed, 6 total"
  [/^Tests:\s+(.*\d+ total)/, (m) => num(/(\d+) failed/.exec(m[1]!)?.[1])],
  // cargo: "test result: FAILED. 5 passed; 1 failed; 0 ignored"
  [COUNTS_CARGO, (m) => num(m[1])],
  // credo: "326 mods/funs, found no issues." / "found 2 code readability issues."
  [/\bfound no issues\b/, () => 0],
  [/\bfound (\d+) [\w ]*?(?:issues?|opportunit(?:y|ies)|warnings?|inconsistenc(?:y|ies))\b/, (m) => num(m[1])],
  // tsc: "Found 3 errors in 2 files."
  [/^Found (\d+) errors?\b/, (m) => num(m[1])],
  // eslint: "✖ 5 problems (3 errors, 2 warnings)"
  [/^✖ \d+ problems? \((\d+) errors?, \d+ warnings?\)/, (m) => num(m[1])]
]

// Longer lines are output, never a summary line.
const MAX_SUMMARY_LINE = 300

// Whether a summary line counts nothing (`0 passed; 0 failed`, `0 tests, 0 failures`): an empty binary or app.
const countsNothing = (line: string): boolean => (line.match(/\d+/g) ?? []).every((n) => Number(n) === 0)

// cargo prints a `test result:` line per test binary (unit tests, each integration test, doc tests).
const CARGO = /^test result: (\w+)\. (\d+) passed; (\d+) failed(?:; (\d+) ignored)?/

// The cargo lines of `lines` summed into one, when there are several.
const cargoTotal = (lines: ReadonlyArray<string>): Counts | undefined => {
  const runs = lines.map((line) => CARGO.exec(line.trim())).filter((m) => m !== null)
  if (runs.length < 2) return undefined
  const sum = (k: number) => runs.reduce((total, m) => total + num(m[k]), 0)
  const failed = sum(3)
  return {
    summary: `test result: ${failed > 0 ? "FAILED" : "ok"}. ${sum(2)} passed; ${failed} failed; ${sum(4)} ignored (${runs.length} binaries)`,
    failed
  }
}

/**
 * The pass/fail counts an output states, if any: its last summary line, the
 * suite's rather than an empty binary's (a line that counts something wins
 * over a later one of the same runner that counts nothing; cargo's lines, one
 * per test binary, summed).
 */
export const countsOf = (output: string): Counts | undefined => {
  const lines = output.split("\n")
  let found: { readonly counts: Counts; readonly pattern: RegExp } | undefined
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!
    if (line.length > MAX_SUMMARY_LINE || !/\d/.test(line) && !line.includes("no issues")) continue
    for (const [pattern, failed] of COUNTS) {
      const m = pattern.exec(line)
      if (m === null || (found !== undefined && found.pattern !== pattern)) continue
      const counts = { summary: clip(line.replace(/^[=\s]+|[=\s]+$/g, ""), 100), failed: failed(m) }
      if (found === undefined && pattern === COUNTS_CARGO) return cargoTotal(lines) ?? counts
      if (!countsNothing(line)) return counts
      found = found ?? { counts, pattern }
      break
    }
  }
  return found?.counts
}
