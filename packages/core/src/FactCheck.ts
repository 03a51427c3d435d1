/**
 * The fact check of a summary: the must-survive keys of a material (paths and
 * file names, commands, identifiers in code spans, error names and codes,
 * issue ids, numbers that are results) and which of them a summary dropped.
 * Line numbers and lone numbers are never keys. One pass over the material,
 * so it runs on every summary.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Commands from "./internal/commands.js"
import { containment } from "./internal/containment.js"
import { unfold } from "./internal/text.js"
import * as Escape from "./Escape.js"
import * as OutputDigest from "./OutputDigest.js"
import * as SummaryTask from "./SummaryTask.js"
import * as Transcript from "./Transcript.js"

/**
 * What a key is.
 *
 * @since 0.1.0
 */
export const Kind = Schema.Literal("error", "result", "issue", "command", "path", "identifier")

/**
 * @since 0.1.0
 */
export type Kind = typeof Kind.Type

/**
 * The weight of each kind: the base of a key's importance. An error or a
 * result says where the work stands; an issue id or a command what was done;
 * a path where; an identifier what in it.
 *
 * @since 0.1.0
 */
export const weights: Readonly<Record<Kind, number>> = {
  error: 5,
  result: 5,
  issue: 4,
  command: 4,
  path: 3,
  identifier: 2
}

/**
 * One must-survive key: its kind, its text as first written in the material,
 * and its importance (the kind's {@link weights} plus 0.2 per further mention,
 * at most 0.8, so the kind always dominates).
 *
 * @since 0.1.0
 */
export const Fact = Schema.Struct({
  kind: Kind,
  text: Schema.String,
  importance: Schema.Number,
  /**
   * Where the material says it: `run` for a command the agent ran
   * (a `$ ` line, a call's `command`), `output` for a key only a tool's output
   * mentions; absent for the rest (said in a request or the agent's words).
   */
  source: Schema.optional(Schema.Literal("run", "output"))
})

/**
 * @since 0.1.0
 */
export type Fact = typeof Fact.Type

/**
 * The keys of a material a summary kept and those it dropped (its text does
 * not contain them, case-insensitively), each most important first.
 *
 * @since 0.1.0
 */
export interface Result {
  readonly kept: ReadonlyArray<Fact>
  readonly dropped: ReadonlyArray<Fact>
}

// Commands recognised inside code spans and JSON `command` fields.
const COMMAND_WORDS = new Set([
  "npm", "pnpm", "yarn", "npx", "node", "tsx", "tsc", "deno", "bun", "git", "gh", "pytest", "python", "python3",
  "pip", "pip3", "uv", "poetry", "cargo", "rustc", "go", "mix", "iex", "elixir", "bd", "docker", "kubectl", "helm",
  "terraform", "make", "curl", "wget", "ls", "grep", "rg", "sed", "awk", "find", "cat", "head", "tail", "mkdir", "rm",
  "mv", "cp", "chmod", "bash", "sh", "sudo", "apt-get", "brew", "vitest", "jest", "eslint", "prettier", "ruff", "mypy",
  "bundle", "rake", "rails", "rspec", "mvn", "gradle", "dotnet", "psql", "sqlite3", "precis"
])
// At the start of a plain line, the words that are commands rather than
// English ("find the bug", "make sure", "go on" are prose).
const LINE_COMMAND = new RegExp(
  "^(?:npm|pnpm|yarn|npx|tsc|git|gh|pytest|python3?|pip3?|uv|cargo|mix|bd|docker|kubectl|curl|rg|grep|vitest|" +
    "jest|eslint|ruff|mypy|rspec|mvn|gradle|dotnet|psql) \\S"
)
const MAX_COMMAND = 200

const EXTENSIONS = "tsx?|jsx?|mjs|cjs|py|rs|go|java|kt|rb|ex|exs|erl|php|cs|c|h|cc|cpp|hpp|swift|json|jsonl|ya?ml|" +
  "toml|md|rst|txt|sh|css|scss|html|vue|svelte|sql|lock|cfg|ini|env|xml|gradle|csv|log|db|proto|graphql"

// One pass per line: the first alternative that matches at a position wins,
// so a path is one key (not its parts). The group that matched tells the kind.
const KEY = new RegExp(
  [
    // 1: URLs (paths)
    /(\bhttps?:\/\/[^\s<>"'`)\]}]+)/.source,
    // 2: code spans
    "`([^`\\n]{1,200})`",
    // 3: a command in tool-call JSON
    /"(?:command|cmd)"\s*:\s*"((?:[^"\\\n]|\\.){1,200})"/.source,
    // 4: paths: segments joined by slashes, optionally rooted
    // (only where a path can start, so a long word is not scanned again from each of its letters)
    /((?<![\w.@+~\/-])(?:~\/|\.{1,2}\/|\/)?(?:[\w.@+-]+\/)+[\w.@+-]*\w)/.source,
    // 5: file names with a known extension
    `(\\b[\\w-]+\\.(?:${EXTENSIONS})\\b)`,
    // 6: error names and codes
    /(\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b|\bE(?:NOENT|ACCES|EXIST|ISDIR|NOTDIR|PERM|PIPE|CONNREFUSED|CONNRESET|TIMEDOUT|ADDRINUSE|MFILE|NOTEMPTY)\b|\bERR_[A-Z0-9_]+\b|\bTS\d{4,5}\b)/
      .source,
    // 7: issue ids: #123, PROJ-12, tracker ids such as spotter-4te (a suffix with a digit and a letter)
    /((?<![\w&/#])#\d+\b|(?<![\w-])(?!(?:UTF|ISO|SHA|MD|AES|RSA|HTTP|TLS|SSL)-)[A-Z][A-Z0-9]{1,9}-\d+(?:-\d+)*\b|(?<![\w./-])[a-z][a-z0-9]{1,20}-(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{2,6}(?:\.\d+)*(?![\w-]))/
      .source,
    // 8: results: counts of tests, failures, errors; exit statuses
    /(\b\d+ (?:[Tt]ests?|[Pp]ass(?:ed|ing|es)|[Ff]ail(?:ed|ing|ures?)|[Ee]rrors?|[Ww]arnings?|[Ss]kipped|[Pp]ending|[Ss]uites?|[Ss]pecs?|[Ee]xamples?|[Aa]ssertions?)\b|\b[Ee]xit(?:ed)?(?: with)?(?: code| status)?:? \d+\b)/
      .source,
    // 9, 10: environment variables, where one is set or read (`SPOTTER_OTEL_ENABLED=false`; `$API_KEY`, `getenv("X_Y")`)
    /(\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?==))/.source,
    /(?:\$\{?|\b(?:getenv|get_env|environ\.get)\(["']|\benviron\[["'])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/.source
  ].join("|"),
  "g"
)

const KIND_OF_GROUP: ReadonlyArray<Kind> = ["path", "path", "command", "command", "path", "path", "error", "issue", "result", "identifier", "identifier"]

const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$/
const TRAILING_PUNCTUATION = /[.,;:!?]+$/

const isCommand = (text: string): boolean => COMMAND_WORDS.has(text.split(" ", 1)[0]!)

// A slash-joined candidate is a path unless it reads like prose (`and/or`):
// it has an extension, two slashes or more, or a root.
const isPath = (candidate: string): boolean => {
  if (!/[A-Za-z]/.test(candidate)) return false
  if (/^(?:~\/|\.{1,2}\/|\/)/.test(candidate)) return candidate.length > 2
  return /\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(candidate) || candidate.indexOf("/") !== candidate.lastIndexOf("/")
}

interface Entry {
  readonly kind: Kind
  readonly text: string
  mentions: number
  // Ran as a command; said outside a tool's output.
  ran: boolean
  said: boolean
}

// A tool's output line: a turn of a tool role, or a line continuing one.
const TOOL_ROLE = /^(?:tool|function|observation|environment|ipython)$/i

// The comment Material writes after a command (`$ mix test  # Run the tests`): not part of it.
const withoutComment = (command: string): string => command.replace(/\s{2}# .*$/, "").trim()

// The keys of a command line the agent ran: its simple commands (`Commands.simpleCommands`: no pipe into
// `tail`, no `2>&1`, no `cd`), not those that say nothing (`echo`).
const ranCommands = (line: string): ReadonlyArray<string> =>
  Commands.simpleCommands(line).filter((command) => command.length <= MAX_COMMAND && !Commands.isSilent(command))

// The keys found so far, line by line, with the state the lines before leave.
class Collector {
  private readonly entries = new Map<string, Entry>()
  // Whether the line being read is a tool's output.
  output = false
  // A test runner's line for a file that passed: its count is part of the totals, not a result of its own.
  private passedFile = false

  private add(kind: Kind, text: string, ran = false): void {
    if (text.length < 2) return
    const id = text.toLowerCase()
    const entry = this.entries.get(id)
    if (entry === undefined) this.entries.set(id, { kind, text, mentions: 1, ran, said: !this.output })
    else {
      entry.mentions++
      entry.ran ||= ran
      entry.said ||= !this.output
    }
  }

  private scan(text: string): void {
    KEY.lastIndex = 0
    for (let match = KEY.exec(text); match !== null; match = KEY.exec(text)) {
      let group = 1
      while (match[group] === undefined) group++
      const value = match[group]!
      if (group === 2) {
        const code = value.trim()
        if (isCommand(code)) this.add("command", code)
        else if (IDENTIFIER.test(code) && !/^\d/.test(code)) this.add(/(?:Error|Exception)$/.test(code) ? "error" : "identifier", code)
        else {
          // Not a command nor an identifier: what is inside still counts (a path, an error code).
          const rest = KEY.lastIndex
          this.scan(code)
          KEY.lastIndex = rest
        }
      } else if (group === 3) {
        for (const command of ranCommands(value.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1"))) this.add("command", command, true)
      } else if (group === 1) this.add("path", value.replace(TRAILING_PUNCTUATION, ""))
      else if (group === 4) {
        if (isPath(value)) this.add("path", value)
      } else if (group !== 8 || !this.passedFile) this.add(KIND_OF_GROUP[group]!, value)
    }
  }

  /** One line of content (without a turn head or an indent). */
  line(content: string): void {
    // A listing's line-number prefix is cut (`OutputDigest.stripLineNumber`).
    const line = OutputDigest.stripLineNumber(content)
    const trimmed = line.trim()
    if (trimmed.startsWith("$ ")) {
      for (const command of ranCommands(unfold(withoutComment(trimmed.slice(2))))) this.add("command", command, true)
    } else if (LINE_COMMAND.test(trimmed) && trimmed.length <= MAX_COMMAND) this.add("command", trimmed)
    this.passedFile = OutputDigest.isPassedFileLine(line)
    this.scan(line)
  }

  /** A turn of a leaf: its role says whether its lines are a tool's output. */
  turn(role: string, content: string): void {
    this.output = TOOL_ROLE.test(role.trim())
    for (const line of SummaryTask.lines(content)) this.line(line)
  }

  /**
   * A summary's text (or any text): a line with a turn head (`Transcript.turnHead`)
   * is that turn's content, an indented line continues it, another line is
   * outside any tool's output.
   */
  text(text: string): void {
    for (const raw of text.split("\n")) {
      if (raw.length === 0) continue
      const full = raw.endsWith("\r") ? raw.slice(0, -1) : raw
      // Only a line opening with `[` can have a turn head.
      const head = full.startsWith("[") ? Transcript.turnHead(full) : undefined
      if (head !== undefined) this.output = TOOL_ROLE.test(head.role.trim())
      else if (!full.startsWith("[") && !full.startsWith(Transcript.indent)) this.output = false
      this.line(head?.content ?? (full.startsWith(Transcript.indent) ? full.slice(Transcript.indent.length) : full))
    }
  }

  /** The entries are in order of first appearance and the sort is stable, so equal importance keeps that order. */
  facts(): Array<Fact> {
    const facts: Array<Fact> = Array.from(this.entries.values(), (entry) => {
      const fact = { kind: entry.kind, text: entry.text, importance: importanceOf(entry) }
      return entry.ran ? { ...fact, source: "run" as const } : entry.said ? fact : { ...fact, source: "output" as const }
    })
    return facts.sort((a, b) => b.importance - a.importance)
  }
}

/**
 * The must-survive keys of `text` (a summary's text, or any text: lines with
 * a turn head, `[09:03] tool: ...`, are read as that turn's), distinct
 * case-insensitively, most important first (then in order of first
 * appearance).
 *
 * @example
 * ```ts
 * import { FactCheck } from "@precis/core"
 * FactCheck.keys("[?] tool: $ npm test\n  12 tests, 1 failed: TypeError in src/app.ts line 42")
 * // 12 tests, 1 failed (result), TypeError (error), npm test (command), src/app.ts (path): never 42
 * ```
 * @since 0.1.0
 */
export const keys = (text: string): ReadonlyArray<Fact> => {
  const collector = new Collector()
  collector.text(text)
  return collector.facts()
}

/**
 * The must-survive keys of a summary task's material, read from its items: a
 * leaf's turns (a tool role's lines are its output), a condensation's child
 * summaries (each child's text as {@link keys} reads it). The same keys as
 * {@link keys} of the rendered material, without rendering or parsing it.
 *
 * @example
 * ```ts
 * import { FactCheck } from "@precis/core"
 * FactCheck.keysOf({ kind: "leaf", targetTokens: 100, turns: [
 *   { role: "assistant", content: "$ npm test" },
 *   { role: "tool", content: "1 failed: TypeError in src/app.ts" }
 * ] }) // npm test (run), 1 failed, TypeError, src/app.ts (output)
 * ```
 * @since 0.1.0
 */
export const keysOf = (task: SummaryTask.SummaryTask): ReadonlyArray<Fact> => {
  const collector = new Collector()
  if (SummaryTask.isText(task)) collector.text(task.text)
  else if (SummaryTask.isTurns(task)) {
    for (const turn of task.turns) collector.turn(Escape.line(turn.role), turn.content)
  } else {
    for (const summary of task.summaries) {
      // A child's header says nothing, and ends any count of a passed file's line.
      collector.line("")
      collector.text(summary.content)
    }
  }
  return collector.facts()
}

// A command that only looks around (`Commands.onlyLooks`) weighs less than an identifier: what it found is the fact.
const importanceOf = (entry: Entry): number =>
  (entry.kind === "command" && Commands.onlyLooks(entry.text) ? weights.identifier - 0.5 : weights[entry.kind]) +
  Math.min(entry.mentions - 1, 4) * 0.2

/**
 * Which of `facts` (as {@link keys} returns them) `summary` keeps: those whose
 * text occurs in it, case-insensitively. Both lists keep the order of `facts`.
 *
 * @since 0.1.0
 */
export const checkKeys = (facts: ReadonlyArray<Fact>, summary: string): Result => {
  const text = summary.toLowerCase()
  const contains = containment(text)
  const kept: Array<Fact> = []
  const dropped: Array<Fact> = []
  for (const fact of facts) (contains(fact.text.toLowerCase()) ? kept : dropped).push(fact)
  return { kept, dropped }
}

/**
 * The keys of `material` that `summary` kept and dropped, most important first.
 *
 * @example
 * ```ts
 * import { FactCheck } from "@precis/core"
 * FactCheck.check("[?] tool: $ pnpm test\n  ENOENT: no such file src/config.json", "Tests fail: missing config.")
 * // dropped: ENOENT, pnpm test, src/config.json; kept: none
 * ```
 * @since 0.1.0
 */
export const check = (material: string, summary: string): Result => checkKeys(keys(material), summary)

/**
 * The keys of `task`'s items ({@link keysOf}) that `summary` kept and dropped,
 * most important first: the Summarizer's check of every summary.
 *
 * @since 0.1.0
 */
export const checkTask = (task: SummaryTask.SummaryTask, summary: string): Result => checkKeys(keysOf(task), summary)
