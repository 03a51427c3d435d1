/**
 * Reading tool output and transcript text, the rules in one place: which
 * lines of an output are the harness's frame rather than output, a listing's
 * line-number prefixes, which lines carry a result or an error, what of a long
 * output is kept ({@link digest}) and the omission marker that stands for
 * what was left out, and the harness noise of a user turn (command echoes,
 * reminders, interruption notices).
 *
 * The material (`Material`), the session state (`SessionState`), the fact
 * check (`FactCheck`) and the extractive provider read text through it.
 *
 * @since 0.1.0
 */
import { foldRepeats } from "./internal/repeats.js"
import { clip, plural, splitLines, withoutAnsi } from "./internal/text.js"

/**
 * `text` cut to `max` characters, the last one an ellipsis when cut, at a
 * word or path boundary (after a space or a `/`) when one lies in the last
 * quarter: no path or word is left cut inside. What of an output line is
 * kept when it is too long ({@link digest}), and how a summary is cut.
 *
 * @example
 * ```ts
 * import { OutputDigest } from "@precis/core"
 * OutputDigest.clip("read /home/u/projects/app/lib/spotter/services/x.ex", 40) // "read /home/u/projects/app/lib/spotter/…"
 * ```
 * @since 0.1.0
 */
export { clip, withoutAnsi }

export {
  harnessGist,
  isHarnessJunk,
  isHarnessNoise,
  withoutReminders
} from "./internal/harness.js"

// ---------------------------------------------------------------------------
// Output lines

// SWE-agent's prompt trailer after every observation and its viewer's frame.
const SWE_FRAME = /^\((?:Open file|Current directory): .*\)$|^bash-\$\s*$|^\(\d+ more lines (?:above|below)\)$|^\[File: .*\]$/


/**
 * The lines of a tool output: without terminal escape sequences ({@link withoutAnsi}),
 * a tool's chatter about itself ({@link isChatter}), blank lines at either end, Claude Code's
 * `<tool_use_error>` tags, SWE-agent's prompt trailer (`(Open file: ...)`,
 * `(Current directory: ...)`, `bash-$`) and its viewer's frame (`[File: ...]`,
 * `(N more lines above)`), and a subagent's bookkeeping (`<usage>total_tokens: …</usage>`).
 *
 * @since 0.1.0
 */
export const lines = (output: string): Array<string> => {
  const all = splitLines(withoutAnsi(output).replace(/<\/?tool_use_error>/g, "").replace(USAGE, ""))
    .filter((line) => !SWE_FRAME.test(line))
  if (!all.some(isChatter)) return all
  // Chatter leaves no gap of its own: the blank lines around it become one.
  const kept: Array<string> = []
  for (const line of all) {
    if (isChatter(line) || (line.trim().length === 0 && kept.length > 0 && kept[kept.length - 1]!.trim().length === 0)) continue
    kept.push(line)
  }
  return splitLines(kept.join("\n"))
}

// A subagent's bookkeeping after its answer (`<usage>total_tokens: … duration_ms: …</usage>`).
const USAGE = /<usage>[\s\S]*?<\/usage>/g

// What tools print about themselves on every run, never about the work: funding
// appeals, notices, where to report or how to get help.
const CHATTER = [
  /^\s*\d+ packages? (?:is|are) looking for funding\s*$/,
  /^\s*run `npm fund` for details\s*$/,
  /^npm notice\b/,
  /^Use `mix credo explain` to explain issues\b/,
  /^Please report incorrect results: https?:\/\/\S+$/,
  // The frame a harness puts around a background command's output (its status and exit code stay).
  /^\s*<(retrieval_status|task_id|task_type)>[^<]*<\/\1>\s*$/,
  /^\s*<\/?output>\s*$/,
  // How to resume a subagent, after its answer.
  /^agentId: \w+ \(for resuming to continue this agent's work if needed\)$/
]

/**
 * Whether an output line is a tool's chatter about itself (`15 packages are
 * looking for funding`, `npm notice ...`, where to report or get help) or the
 * frame a harness puts around a background command's output
 * (`<retrieval_status>`, `<task_type>`) or a subagent's answer (`agentId: …
 * (for resuming …)`): {@link lines} leaves it out.
 *
 * @since 0.1.0
 */
export const isChatter = (line: string): boolean => CHATTER.some((pattern) => pattern.test(line))

// ---------------------------------------------------------------------------
// Line-number prefixes (internal/lineNumbers.ts)

export {
  /**
   * The lines of a listing without their line-number prefixes: Claude Code's
   * `12→`, `cat -n`'s `12<TAB>`, a viewer's `12:` and `12  ` (each only when
   * most lines carry one), and the number of grep's `path:12:` (the path stays).
   *
   * @example
   * ```ts
   * import { OutputDigest } from "@precis/core"
   * OutputDigest.stripLineNumbers(["     1→import x", "     2→x()"]) // ["import x", "x()"]
   * ```
   * @since 0.1.0
   */
  stripLineNumbers,
  /**
   * The first and last line numbers of a numbered listing, when its lines have them.
   *
   * @since 0.1.0
   */
  numberedRange,
  /**
   * The lines of a listing without their line-number prefixes: Claude Code's
   * `12→`, `cat -n`'s `12<TAB>`, a viewer's `12:` and `12  ` (each only when
   * most lines carry one), and the number of grep's `path:12:` (the path stays).
   *
   * @example
   * ```ts
   * import { OutputDigest } from "@precis/core"
   * OutputDigest.stripLineNumbers(["     1→import x", "     2→x()"]) // ["import x", "x()"]
   * ```
   * @since 0.1.0
   */
  stripLineNumber
} from "./internal/lineNumbers.js"

// ---------------------------------------------------------------------------
// Lines that carry a result or an error

// A file's mark, then its path (a name with an extension), and no word of failure after it.
const PASSED_FILE = /^\s*(?:✓|✔|PASS)\s+[\w.@/+-]*\.\w+(?![\s\S]*\b(?:[Ff]ail(?:s|ed|ing|ures?)?|[Ss]kipped)\b)/

/**
 * Whether a line is a test runner's report of one file that passed
 * (`✓ test/a.test.ts (18 tests) 20ms`, `PASS src/a.test.ts`): its count is part
 * of the run's totals, which the runner gives on a line of their own. The
 * material keeps such lines only when the output has no totals; the fact
 * check takes no result from them.
 *
 * @example
 * ```ts
 * import { OutputDigest } from "@precis/core"
 * OutputDigest.isPassedFileLine(" ✓ test/services/vat.test.ts (21 tests) 73ms") // true
 * OutputDigest.isPassedFileLine("      Tests  130 passed (130)") // false
 * OutputDigest.isPassedFileLine(" ✓ test/a.test.ts (4 tests | 1 failed)") // false
 * ```
 * @since 0.1.0
 */
export const isPassedFileLine = (line: string): boolean => PASSED_FILE.test(line)

const COUNT =
  /\b\d+ (?:tests?|examples?|specs?|passed|passing|failed|failing|failures?|errors?|skipped|pending|todos?|doctests?|properties|suites?|files? changed|insertions?|deletions?)\b/i
// Words inside a path or file name (`errors.test.ts`, `src/errors/`) are not errors.
const ERROR =
  /(?<![\w./-])(?:error|errors|exception|traceback|failed|failing|failure|fatal|panic|cannot|can't|couldn't|unable|denied|refused|segfault|undefined|invalid|conflict|rejected|not found|no such file|timed? ?out|E\d{3,4}|ERR_[A-Z_]+|[A-Z][a-zA-Z]+(?:Error|Exception))(?![\w/-]|\.\w)|exit (?:code|status) [1-9]|✗|✘/i
const OUTCOME = /^\s*(?:\*\*|FAIL|PASS|ok\b|not ok|✓|✗|×|✔|✘|\d+\) |Exit code \d+|\[[\w./-]+ [0-9a-f]{7,}\])/
// A line that starts with a source location (`lib/foo.ex:57:13: ...`, its line
// number already stripped): compilers, linters and type checkers report so.
const LOCATION = /^\s*[\w./-]+\.\w+: ?\d*:?\S/

/**
 * Whether a line counts results: `12 tests`, `3 failed`, `2 files changed`.
 *
 * @since 0.1.0
 */
export const isCountLine = (line: string): boolean => COUNT.test(line)

/**
 * Whether a line reports an error: an error or exception name (`TypeError`),
 * a word such as `error`, `failed`, `fatal`, `denied`, `not found`, `cannot`,
 * `invalid`, `timeout`, `conflict`, `rejected`, a code (`E501`, `ERR_X`), a
 * non-zero exit status or a cross mark (`✗`); not such a word inside a path or
 * file name (`src/errors.test.ts`).
 *
 * @since 0.1.0
 */
export const isErrorLine = (line: string): boolean => ERROR.test(line)

// What in a line says a run failed (a compile error, a crash, a failing test file).
const FAILURE =
  /\*\* \(\w+(?:\.\w+)*Error\)|== Compilation error|\berror(?:\[E\d+\])?:|\berror TS\d+|\bError:|\bFAILED\b|Traceback \(most recent call last\)|failed due to warnings|^FAIL\b|panicked at/

/**
 * Whether a line says the run that wrote it failed, as a compiler, a test
 * runner or a crash writes it (`** (CompileError)`, `error TS2304`, `error:`,
 * `Error:`, `FAILED`, `FAIL file`, a traceback, `panicked at`): stricter than
 * {@link isErrorLine}, which also takes a line that only mentions an error.
 * The session state reads a run as failed by it when no count says otherwise.
 *
 * @since 0.1.0
 */
export const isFailureLine = (line: string): boolean => FAILURE.test(line)

// A shell output's exit status, as harnesses write it (`Exit code 1` first, or `exit code 2` in a sentence).
const EXIT_CODE = /(?:^Exit code |exit code )(-?\d+)/
// A line that is only an exit status: `Exit code 1`, `exit status 2` (go), `exit 101`, `(exit 0)`.
const EXIT_WORDS = "(?:exit code|exit status|exit)[: ]\\s*(-?\\d+)"
const EXIT_LINE = new RegExp(`^\\s*(?:${EXIT_WORDS}|\\(${EXIT_WORDS}\\))\\s*$`, "i")

// The code of a bare exit line (see EXIT_LINE), if `line` is one.
const bareExit = (line: string): number | undefined => {
  const m = EXIT_LINE.exec(line)
  return m === null ? undefined : Number(m[1] ?? m[2])
}

/**
 * The exit code a shell output states (`Exit code 1` as Claude Code writes
 * it first, `... exit code 2` in a sentence, else a bare exit line that ends
 * it: `exit status 2`, `(exit 1)`), or `undefined`.
 *
 * @example
 * ```ts
 * import { OutputDigest } from "@precis/core"
 * OutputDigest.exitCode("Exit code 1\nnpm ERR! test failed") // 1
 * ```
 * @since 0.1.0
 */
export const exitCode = (output: string): number | undefined => {
  const code = EXIT_CODE.exec(output)?.[1]
  if (code !== undefined) return Number(code)
  const last = output.trimEnd().split("\n").at(-1)
  return last === undefined ? undefined : bareExit(last)
}

/**
 * Whether a line is only a shell's exit status (`Exit code 0`, `exit status 2`,
 * `exit 101`, `(exit 0)`), which a digest of the output need not repeat: the
 * status line after the command says it ({@link exitCode}).
 *
 * @since 0.1.0
 */
export const isExitCodeLine = (line: string): boolean => bareExit(line) !== undefined

/**
 * Whether a tool's output says the call failed: a harness's refusal
 * (`<tool_use_error>`) or a nonzero exit status first (`Exit code 1`).
 *
 * @since 0.1.0
 */
export const saysFailed = (output: string): boolean =>
  output.includes("<tool_use_error>") || /^Exit code [1-9]/.test(output)

/**
 * Whether a line carries a result or an error: a count ({@link isCountLine}),
 * an outcome mark (`FAIL`, `PASS`, `ok`, `✓`, `✗`, `Exit code N`, a commit's
 * `[main 1a2b3c4]`), trouble ({@link isErrorLine}), or a source location as
 * compilers and linters report them (`lib/foo.ex:57:13: ...`).
 *
 * @since 0.1.0
 */
export const matters = (line: string): boolean =>
  COUNT.test(line) || OUTCOME.test(line) || ERROR.test(line) || LOCATION.test(line)

// ---------------------------------------------------------------------------
// What of an output is kept, and the mark of what is not

/**
 * The mark of `n` lines left out: `[… N lines]`.
 *
 * @since 0.1.0
 */
export const omitted = (n: number): string => `[… ${plural(n, "line")}]`

/**
 * The mark of a gap of unknown size: `[…]`.
 *
 * @since 0.1.0
 */
export const omission = "[…]"

// Also `[… 3 lines omitted]` and `[… 40 more lines of output cut]`, which stored summaries may hold.
const OMISSION = /^\s*\[…(?: \d+ (?:more )?lines?(?: omitted| of output cut)?)?\]$/

/**
 * Whether a line is an omission mark ({@link omitted}, {@link omission}, and
 * the forms stored summaries may hold): structure, never content.
 *
 * @example
 * ```ts
 * import { OutputDigest } from "@precis/core"
 * OutputDigest.isOmission("[… 40 lines]") // true
 * OutputDigest.isOmission("[…]") // true
 * ```
 * @since 0.1.0
 */
export const isOmission = (line: string): boolean => OMISSION.test(line)

const MAX_LINE = 240
const WHOLE_LINES = 12
const WHOLE_CHARS = 1500
const MAX_MATTERING = 12

/**
 * What matters of an output's lines: runs of three or more lines of one shape
 * folded first into one line with a count (`Iteration N failed (×20, N =
 * 1..20)`); then all of them when short (at most 12 lines and 1,500
 * characters), else the first `head` and last `tail` lines, each folded run
 * and the line beside one (the `milestone reached` among the failures), and
 * up to 12 lines that carry results or errors ({@link matters}), in order,
 * each gap marked with its size ({@link omitted}). A test runner's line for a
 * file that passed ({@link isPassedFileLine}) matters only when no line gives
 * totals. Lines are cut at 240 characters.
 *
 * @example
 * ```ts
 * import { OutputDigest } from "@precis/core"
 * OutputDigest.digest(["Iteration 1 failed", "Iteration 2 failed", "Iteration 3 failed", "milestone reached"])
 * // ["Iteration N failed (×3, N = 1..3)", "milestone reached"]
 * ```
 * @since 0.1.0
 */
export const digest = (output: ReadonlyArray<string>, head = 2, tail = 3): Array<string> => {
  const { folded, lines: clipped } = foldRepeats(output.map((l) => clip(l.trimEnd(), MAX_LINE)))
  if (clipped.length <= WHOLE_LINES && clipped.reduce((n, l) => n + l.length, 0) <= WHOLE_CHARS) return clipped
  const keep = new Array<boolean>(clipped.length).fill(false)
  for (let i = 0; i < Math.min(head, clipped.length); i++) keep[i] = true
  for (let i = Math.max(0, clipped.length - tail); i < clipped.length; i++) keep[i] = true
  for (let i = 0; i < clipped.length; i++) {
    const besideRun = folded[i] === true || folded[i - 1] === true || folded[i + 1] === true
    if (besideRun && clipped[i]!.trim().length > 0) keep[i] = true
  }
  const totals = clipped.some((line) => COUNT.test(line) && !isPassedFileLine(line))
  const seen = new Set<string>()
  let mattering = 0
  for (let i = 0; i < clipped.length && mattering < MAX_MATTERING; i++) {
    const line = clipped[i]!
    const key = line.trim()
    if (keep[i] || key.length === 0 || seen.has(key) || !matters(line) || (totals && isPassedFileLine(line))) continue
    seen.add(key)
    keep[i] = true
    mattering++
  }
  const out: Array<string> = []
  let gap = 0
  for (let i = 0; i < clipped.length; i++) {
    if (keep[i]) {
      if (gap > 0) out.push(omitted(gap))
      gap = 0
      out.push(clipped[i]!)
    } else gap++
  }
  if (gap > 0) out.push(omitted(gap))
  return out
}
