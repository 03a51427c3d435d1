/**
 * Reading shell commands and their output for the session state: a command
 * line cut into its simple commands, which of them are test / lint / build
 * checks, the pass/fail counts their output states, and the task-tracker
 * (`bd`, `gh issue`) and git state changes they make. Pure and
 * deterministic.
 *
 * @internal
 */
import * as OutputDigest from "../OutputDigest.js"

/** What a check command is. */
export type CheckKind = "test" | "lint" | "build"

/** A check found in a command line: its kind, its family (`mix test`) and the command as shown. */
export interface Check {
  readonly kind: CheckKind
  /** The tool without its arguments (`mix test`, `pytest`, `tsc`): a pass of the bare family closes its errors. */
  readonly family: string
  readonly command: string
}

/** A tracker or git change a command makes. */
export type Change =
  | { readonly _tag: "Issue"; readonly id: string; readonly status: string }
  | { readonly _tag: "Git"; readonly text: string }
  | { readonly _tag: "Branch"; readonly name: string }
  | { readonly _tag: "Created"; readonly title: string | undefined; readonly text: string }

const MAX_COMMAND = 120

/** `text` cut to `max` characters with an ellipsis. */
export const clip = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/**
 * The simple commands of a command line: split at `&&`, `||`, `;` and line
 * breaks (outside quotes), each cut at its first pipe (what follows, `tail`
 * or `grep`, only filters the output), without redirections (`2>&1`,
 * `>/dev/null`), a leading `cd DIR`, `time` or environment assignments. A
 * here-document's body is dropped (a commit message is read by
 * {@link commitMessage} from the whole line).
 */
export const simpleCommands = (line: string): ReadonlyArray<string> => {
  const body = line.replace(/<<-?\s*['"]?(\w+)['"]?[^\n]*\n[\s\S]*?\n\s*\1\s*(?:\n|$)/g, "<<$1\n")
  const out: Array<string> = []
  let current = ""
  let quote: string | undefined
  let piped = false
  const push = () => {
    const cleaned = clean(current)
    if (cleaned.length > 0) out.push(cleaned)
    current = ""
    piped = false
  }
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (quote !== undefined) {
      if (c === "\\" && quote === "\"") {
        if (!piped) current += c + (body[i + 1] ?? "")
        i++
        continue
      }
      if (c === quote) quote = undefined
      if (!piped) current += c
      continue
    }
    if (c === "'" || c === "\"") {
      quote = c
      if (!piped) current += c
      continue
    }
    const two = body.slice(i, i + 2)
    if (two === "&&" || two === "||") {
      push()
      i++
      continue
    }
    if (c === ";" || c === "\n") {
      push()
      continue
    }
    if (c === "|" && body[i - 1] !== ">") {
      piped = true
      continue
    }
    if (!piped) current += c
  }
  push()
  return out
}

const clean = (command: string): string =>
  command
    .replace(/\s\d?>>?\s*&?\S+/g, " ") // 2>&1, >/dev/null, > out.txt
    .replace(/\s&>\s*\S+/g, " ")
    .replace(/^\s*(?:time\s+|(?:[A-Z_][A-Z0-9_]*=\S*\s+)+)*/, "")
    .replace(/^\s*cd\s+\S+\s*$/, "")
    .replace(/\s+/g, " ")
    .trim()

// First words of commands that say nothing once run (`echo "==="`), and of those that only look around: what
// a look found matters, not that it ran.
const SILENT = /^(?:echo|printf|sleep|true|false|clear|exit|wait|:)(?:\s|$)/
const LOOKS = new RegExp(
  "^(?:ls|ll|cat|head|tail|less|more|grep|egrep|fgrep|rg|ag|find|fd|tree|wc|stat|file|which|whereis|type|pwd|du|df|" +
    "ps|env|printenv|curl|wget|jq|diff|cmp|date|whoami|id|uname|realpath|readlink|basename|dirname|nl|sort|uniq|cut|" +
    "od|xxd|hexdump|sed -n|awk|git (?:status|log|diff|show|remote|rev-parse|blame|ls-files))(?:\\s|$)"
)

/** Whether a simple command says nothing once run (`echo`, `sleep`, `true`). */
export const isSilent = (command: string): boolean => SILENT.test(command)

/** Whether a simple command only looks around (`ls`, `cat`, `grep`, `git status`, `curl`): it changes nothing. */
export const onlyLooks = (command: string): boolean => LOOKS.test(command)

// The check families: a pattern over a simple command and the family it names.
const CHECKS: ReadonlyArray<readonly [RegExp, CheckKind, string]> = [
  [/^mix test\b/, "test", "mix test"],
  [/^mix compile\b/, "build", "mix compile"],
  [/^mix credo\b/, "lint", "mix credo"],
  [/^mix dialyzer\b/, "lint", "mix dialyzer"],
  [/^mix format --check-formatted\b/, "lint", "mix format"],
  [/^(?:python3? -m )?pytest\b/, "test", "pytest"],
  [/^(?:uv run |poetry run )(?:python3? -m )?pytest\b/, "test", "pytest"],
  [/^(?:python3? -m )?(?:ruff|flake8|mypy|pylint)\b/, "lint", "python lint"],
  [/^(?:pnpm|npm|yarn|bun)(?: run)? test\b/, "test", "package test"],
  [/^(?:pnpm|npm|yarn|bun)(?: run)? lint\b/, "lint", "package lint"],
  [/^(?:pnpm|npm|yarn|bun)(?: run)? (?:build|check|typecheck)\b/, "build", "package build"],
  [/^(?:npx |pnpm exec |pnpm dlx |yarn |bunx )?vitest\b/, "test", "vitest"],
  [/^(?:npx |pnpm exec |yarn )?jest\b/, "test", "jest"],
  [/^(?:npx |pnpm exec |yarn )?tsc\b/, "build", "tsc"],
  [/^(?:npx |pnpm exec |yarn )?(?:eslint|biome|prettier --check)\b/, "lint", "eslint"],
  [/^cargo test\b/, "test", "cargo test"],
  [/^cargo (?:build|check)\b/, "build", "cargo build"],
  [/^cargo clippy\b/, "lint", "cargo clippy"],
  [/^go test\b/, "test", "go test"],
  [/^go (?:build|vet)\b/, "build", "go build"],
  [/^(?:bundle exec )?rspec\b/, "test", "rspec"],
  [/^(?:\.\/gradlew|gradle|mvn) (?:test|check)\b/, "test", "jvm test"],
  [/^(?:\.\/gradlew|gradle|mvn) (?:build|compile|package)\b/, "build", "jvm build"],
  [/^make(?: (?:test|check))\b/, "test", "make test"],
  [/^make\b/, "build", "make"]
]

/** The check a simple command runs, if it is one. */
export const checkOf = (command: string): Check | undefined => {
  for (const [pattern, kind, family] of CHECKS) {
    if (pattern.test(command)) return { kind, family, command: clip(command, MAX_COMMAND) }
  }
  return undefined
}

// Family names too generic to name one tool (`[TEST]` says which kind, not which check).
const GENERIC_NAMES = new Set(["test", "lint", "build", "make"])

/**
 * The check a tool's name stands for (`credo` is `mix credo`, `tsc` is
 * `tsc`): the family whose last word it is, shown as the family; none for a
 * kind's name (`test`).
 */
export const checkNamed = (name: string): Check | undefined => {
  const word = name.toLowerCase()
  if (GENERIC_NAMES.has(word)) return undefined
  const found = CHECKS.find(([, , family]) => family.split(" ").at(-1) === word)
  return found === undefined ? undefined : { kind: found[1], family: found[2], command: found[2] }
}

// Arguments that narrow a run to some files or tests: a path, a file name, a name filter.
const NARROWING = /\/|\.\w+$|^-[tkgp]$|^--(?:filter|grep|testNamePattern|only|project)\b/

/** Whether a check runs a whole suite: none of its arguments narrows it (`mix test --seed 0`, `npm test`). */
export const isWholeRun = (check: Check): boolean => words(check.command).slice(1).every((arg) => !NARROWING.test(arg))

/**
 * Whether a write to `path` may change what the check `command` said: every
 * write does, unless the command names paths (`mix test test/a_test.exs:12`,
 * `vitest run test/services`), when only a write to one of them or under it does.
 */
export const coversPath = (command: string, path: string): boolean => {
  const named = words(command).slice(1)
    .filter((arg) => !arg.startsWith("-") && (arg.includes("/") || /\.\w+(?::\d+)*$/.test(arg)))
    .map((arg) => arg.replace(/(?::\d+)+$/, "").replace(/^\.\//, "").replace(/\/+$/, ""))
  return named.length === 0 ||
    named.some((n) => path === n || path.endsWith(`/${n}`) || path.startsWith(`${n}/`) || path.includes(`/${n}/`))
}

/**
 * Whether a pass of `passing` shows that `failing` passes now: the same
 * command; the same tool over a broader selection (`vitest run test/services`
 * covers `vitest run test/services/totals.test.ts`); or a whole run of the
 * same kind (`npm test` covers every test command, `mix compile` every build),
 * of the same tool for a lint (each linter checks its own rules: a pass of
 * `mix credo` says nothing of `mix dialyzer`).
 */
export const covers = (passing: Check, failing: Check): boolean =>
  passing.command === failing.command ||
  (passing.family === failing.family && failing.command.startsWith(`${passing.command} `)) ||
  (passing.family === failing.family && failing.command.startsWith(`${passing.command}/`)) ||
  (passing.kind === failing.kind && isWholeRun(passing) && (passing.kind !== "lint" || passing.family === failing.family))

/**
 * The first line of `output` that says the run failed (`OutputDigest.isFailureLine`), if any, with
 * the next non-blank line when it ends in a colon, which announces it (`** (BadMapError) expected a
 * map, got:` and what it got).
 */
export const errorLine = (output: string): string | undefined => {
  const lines = output.split("\n")
  const at = lines.findIndex(OutputDigest.isFailureLine)
  return at === -1 ? undefined : clip(announced(lines, at), 160)
}

// Line `at` of `lines`, with the next non-blank line when it ends in a colon (which announces it).
const announced = (lines: ReadonlyArray<string>, at: number): string => {
  const line = lines[at]!.trimEnd()
  const next = line.endsWith(":") ? lines.slice(at + 1).find((l) => l.trim().length > 0) : undefined
  return next === undefined ? line : `${line} ${next.trim()}`
}

/**
 * Why a command failed, from its output: its first error line, else its first
 * line (with the next when it ends in a colon, which announces it), cut to 120
 * characters; `undefined` for a blank output.
 */
export const failureDetail = (output: string): string | undefined => {
  // Some tools escape line breaks in the output they report.
  const lines = output.replace(/\\n/g, "\n").split("\n").map((l) => l.trim()).filter((l) => l.length > 0)
  if (lines.length === 0) return undefined
  return clip(errorLine(lines.join("\n")) ?? announced(lines, 0), 120)
}

/** Outputs that are no result yet: the command went on in the background. */
export const isDeferred = (output: string): boolean => /^Command running in background\b/.test(output)

/** The id a command that went on in the background gets (`Command running in background with ID: bd0afab`). */
export const deferredId = (output: string): string | undefined =>
  /^Command running in background with ID: ([\w-]+)/.exec(output)?.[1]

/**
 * What a read of a background command's output says once the command ended
 * (`<status>completed</status>`, `<exit_code>0</exit_code>`, `<output>...</output>`):
 * its output and exit code; `undefined` while it still runs.
 */
export const backgroundResult = (output: string): { readonly output: string; readonly exitCode: number | undefined } | undefined => {
  const status = /<status>(\w+)<\/status>/.exec(output)?.[1]
  if (status === undefined || status === "running" || status === "pending") return undefined
  const code = /<exit_code>(-?\d+)<\/exit_code>/.exec(output)?.[1]
  const body = /<output>\n?([\s\S]*?)\n?<\/output>/.exec(output)?.[1] ?? ""
  return { output: body, exitCode: code === undefined ? (status === "completed" ? 0 : 1) : Number(code) }
}

const ISSUE_ID = /^[A-Za-z][\w-]*(?:\.\d+)*$|^#?\d+$/

// A word of a command line: runs of quoted and unquoted parts (`--title="a b"` is one word, `--title=a b`).
const WORD = /(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']+)+/g
const QUOTED = /"((?:[^"\\]|\\.)*)"|'([^']*)'/g

const words = (command: string): ReadonlyArray<string> =>
  Array.from(
    command.matchAll(WORD),
    (m) => m[0].replace(QUOTED, (_, double: string | undefined, single: string | undefined) =>
      double !== undefined ? double.replace(/\\(.)/g, "$1") : single ?? "")
  )

const optionValue = (args: ReadonlyArray<string>, name: string): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === name) return args[i + 1]
    if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1)
  }
  return undefined
}

// The positional arguments before the first option.
const positional = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const arg of args) {
    if (arg.startsWith("-")) break
    out.push(arg)
  }
  return out
}

/**
 * The message of a `git commit` in a command line: `-m "..."` or `-am "..."` (the first
 * one), or the first line of a here-document fed to it; `undefined` when the
 * line commits nothing it names.
 */
export const commitMessage = (line: string): string | undefined => {
  if (!/\bgit\s+commit\b/.test(line)) return undefined
  const heredoc = /<<-?\s*['"]?(\w+)['"]?[^\n]*\n([\s\S]*?)\n\s*\1\b/.exec(line)
  const text = heredoc?.[2] ?? /\s(?:-[a-zA-Z]*m|--message)(?:=|\s+)("(?:[^"\\]|\\.)*"|'[^']*'|\S+)/.exec(line)?.[1]
  if (text === undefined) return undefined
  const first = text.replace(/^["']|["']$/g, "").split("\n").map((l) => l.trim()).find((l) => l.length > 0)
  return first === undefined ? undefined : clip(first, 100)
}

// What a tracker prints for an issue it created: beads' `✓ Created issue: spotter-k2p`,
// GitHub's URL of the new issue or pull request.
const CREATED_BD = /\bCreated issue:?\s+([A-Za-z][\w.-]*\w)/
const CREATED_GH = /\bgithub\.com\/[^\s/]+\/[^\s/]+\/(issues|pull)\/(\d+)\b/

/** The id of the issue (or pull request) a `bd create` / `gh issue create` output names, if it names one. */
export const createdId = (output: string): string | undefined => {
  const bd = CREATED_BD.exec(output)
  if (bd !== null) return bd[1]
  const gh = CREATED_GH.exec(output)
  return gh === null ? undefined : gh[1] === "pull" ? `PR ${gh[2]}` : `#${gh[2]}`
}

/**
 * What a command line stages for its commit: the paths its `git add`s name,
 * and whether it stages every change (`git add -A`, `git add .`, `git commit -a`).
 */
export const stagedPaths = (commands: ReadonlyArray<string>): { readonly all: boolean; readonly paths: ReadonlyArray<string> } => {
  let all = false
  const paths: Array<string> = []
  for (const command of commands) {
    const [tool, sub, ...rest] = words(command)
    if (tool !== "git") continue
    if (sub === "add") {
      for (const arg of rest) {
        if (arg === "." || arg === "-A" || arg === "--all" || arg === "-u" || arg === "--update") all = true
        else if (!arg.startsWith("-")) paths.push(arg)
      }
    } else if (sub === "commit" && rest.some((arg) => arg === "--all" || /^-[a-zA-Z]*a/.test(arg))) all = true
  }
  return { all, paths }
}

/** The tracker and git changes of one simple command (the commit message comes from {@link commitMessage}). */
export const changesOf = (command: string): ReadonlyArray<Change> => {
  const [tool, sub, ...rest] = words(command)
  if (tool === "bd" || tool === "beads") {
    const ids = positional(rest).filter((id) => ISSUE_ID.test(id))
    switch (sub) {
      case "close":
        return ids.map((id) => ({ _tag: "Issue", id, status: "closed" }))
      case "reopen":
        return ids.map((id) => ({ _tag: "Issue", id, status: "open" }))
      case "update": {
        const status = optionValue(rest, "--status") ?? optionValue(rest, "-s")
        return status === undefined ? [] : ids.map((id) => ({ _tag: "Issue", id, status }))
      }
      case "create":
      case "new": {
        const title = positional(rest)[0] ?? optionValue(rest, "--title") ?? optionValue(rest, "-t")
        return [{ _tag: "Created", title: title === undefined ? undefined : clip(title, 100), text: "bd create" }]
      }
      default:
        return []
    }
  }
  if (tool === "gh" && (sub === "issue" || sub === "pr")) {
    const [action, id] = rest
    if (action === "close" || action === "reopen" || action === "merge") {
      const status = action === "reopen" ? "open" : action === "merge" ? "merged" : "closed"
      return id === undefined ? [] : [{ _tag: "Issue", id: `${sub === "pr" ? "PR " : "#"}${id.replace(/^#/, "")}`, status }]
    }
    if (action === "create") {
      const title = optionValue(rest, "--title") ?? optionValue(rest, "-t")
      return [{ _tag: "Created", title: title === undefined ? undefined : clip(title, 100), text: `gh ${sub} create` }]
    }
    return []
  }
  if (tool === "git") {
    switch (sub) {
      case "push":
        return [{ _tag: "Git", text: clip(command, 80) }]
      case "checkout":
      case "switch": {
        const name = optionValue(rest, "-b") ?? optionValue(rest, "-c") ?? optionValue(rest, "-B")
        return name === undefined ? [] : [{ _tag: "Branch", name }, { _tag: "Git", text: `git ${sub} new branch ${name}` }]
      }
      case "merge":
      case "rebase":
      case "tag":
        return [{ _tag: "Git", text: clip(command, 80) }]
      default:
        return []
    }
  }
  return []
}
