/**
 * The material a summary is made from: turns rendered by kind, so that tool
 * traffic costs a line or two instead of its raw text. Tool calls become one
 * action line each (`Read lib/foo.ex`, `$ mix test`, `Write lib/foo.ex (42
 * lines; defines: Foo.bar)`), tool results a short form (`read lib/foo.ex (300
 * lines)`, the exit status and the lines of a shell output that carry results
 * or errors), with line-number prefixes stripped. Prose is kept as it is.
 *
 * What carries nothing for the agent that continues is left out: paths under
 * a turn's working directory (`metadata.cwd`) are written relative to it (the
 * session-state header states the directory), an agent's reasoning
 * (`[thinking] ...`) keeps only its plan and the sentences that carry a
 * decision or a cause, a harness's meta text (a skill's instructions) only its
 * first line, what a harness wrote into a user's turn (a background task's
 * notice) its gist (`OutputDigest.harnessGist`), a tool's chatter about itself
 * and the frame around a background command's output (`OutputDigest.isChatter`) and
 * the inputs that steer the harness (`ToolKind.controlKeys`) nothing.
 *
 * The output is in the transcript line format of `Transcript.formatTurns`
 * (one turn per `[time] role:` line, continuation lines indented); nothing
 * reads it back: a summary task carries each turn's content
 * ({@link renderContents}) as an item. Other turns without tool structure
 * come out exactly as `formatTurns` writes them.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as ConversationTurn from "./ConversationTurn.js"
import { keepDecisions } from "./internal/reasoning.js"
import { definitions, nameList } from "./internal/definitions.js"
import { supersededTodo, supersededTodos, todoKey } from "./internal/todos.js"
import { clip, countLines, oneLine, plural, relativePaths, splitLines, str } from "./internal/text.js"
import * as OutputDigest from "./OutputDigest.js"
import * as ToolKind from "./ToolKind.js"
import * as ToolMetadata from "./ToolMetadata.js"
import * as ToolUse from "./ToolUse.js"
import * as Transcript from "./Transcript.js"

/**
 * What {@link render} reads of a turn (a `ConversationTurn` fits).
 *
 * @since 0.1.0
 */
export interface Turn {
  readonly role: string
  readonly content: string
  readonly timestamp?: string | undefined
  readonly metadata?: { readonly [key: string]: unknown } | undefined
}

// The viewer's header names the file an edit without a path worked on.
const SWE_FILE = /^\[File: (\S+) \(\d+ lines total\)\]$/m

export {
  /**
   * The names a text defines, in order, deduplicated: modules, functions,
   * classes, interfaces, types and top-level constants, by simple
   * per-language patterns (`definitions("defmodule Foo do")` is `["Foo"]`).
   *
   * @since 0.1.0
   */
  definitions
} from "./internal/definitions.js"

// A shell command that only prints one file (`cat -n lib/foo.ex`): its output is a file body.
const PRINT_FILE = /^(?:cat|head|tail|nl|bat|less|more)(?:\s+-[\w-]+(?:\s+\d+)?)*\s+([^\s|;&<>]+)\s*$/

// ---------------------------------------------------------------------------
// Tool calls: one action line each

const scalarSummary = (input: { readonly [key: string]: unknown }): string => {
  const parts: Array<string> = []
  for (const [key, value] of Object.entries(input)) {
    if (ToolKind.isControlKey(key)) continue
    if (typeof value === "string" && value.length > 0 && value.length <= 120 && !value.includes("\n")) {
      parts.push(`${key}=${clip(value, 60)}`)
    } else if (typeof value === "number" || typeof value === "boolean") {
      parts.push(`${key}=${value}`)
    }
  }
  return clip(parts.join(" "), 200)
}

const editText = (call: ToolUse.Call): { readonly before: string; readonly after: string } | undefined => {
  const input = call.input
  const after = input.new_string ?? input.new_str ?? input.replace ?? input.text ?? input.new_text
  const before = input.old_string ?? input.old_str ?? input.search ?? input.old_text ?? ""
  if (typeof after === "string" && typeof before === "string") return { before, after }
  if (Array.isArray(input.edits)) {
    const befores: Array<string> = []
    const afters: Array<string> = []
    for (const edit of input.edits) {
      if (!Predicate.isRecord(edit)) continue
      if (typeof edit.old_string === "string") befores.push(edit.old_string)
      if (typeof edit.new_string === "string") afters.push(edit.new_string)
    }
    return { before: befores.join("\n"), after: afters.join("\n") }
  }
  return undefined
}

// What an edit changed: lines before and after, the names it touches, else its first new line.
const editSummary = (call: ToolUse.Call): string => {
  const text = editText(call)
  if (text === undefined) return ""
  const names = [...new Set([...definitions(text.after), ...definitions(text.before)])]
  const size = `${countLines(text.before)} → ${plural(countLines(text.after), "line")}`
  const all = call.input.replace_all === true ? ", every occurrence" : ""
  if (names.length > 0) return `: ${size}${all}; touches ${nameList(names)}`
  const old = new Set(text.before.split("\n").map((l) => l.trim()))
  const fresh = text.after.split("\n").map((l) => l.trim()).find((l) => l.length > 0 && !old.has(l))
  return `: ${size}${all}${fresh === undefined ? "" : ` (${clip(fresh, 80)})`}`
}

const writeSummary = (call: ToolUse.Call): string => {
  const content = call.input.content ?? call.input.file_text ?? call.input.text
  if (typeof content !== "string" || content.length === 0) return ""
  const names = definitions(content)
  return ` (${plural(countLines(content), "line")}${names.length > 0 ? `; defines: ${nameList(names)}` : ""})`
}

const todoList = (input: ToolUse.Call["input"]): string =>
  (ToolKind.todoItems(input) ?? []).map((item) =>
    `${ToolKind.todoMark(item.status)} ${clip(item.text.replace(/\s+/g, " "), 100)}`
  ).join(" / ")

const readRange = (call: ToolUse.Call): string => {
  const offset = call.input.offset ?? call.input.line_number
  const limit = call.input.limit
  const range = call.input.view_range
  if (Array.isArray(range) && range.length === 2) return ` lines ${range[0]}-${range[1]}`
  if (typeof offset === "number" && typeof limit === "number") return ` lines ${offset}-${offset + limit - 1}`
  if (typeof offset === "number") return ` from line ${offset}`
  return ""
}

/**
 * One tool call as a single action line: `Read lib/foo.ex`, `Write lib/foo.ex
 * (42 lines; defines: Foo, bar)`, `Edit lib/foo.ex: 3 → 5 lines; touches bar`,
 * `$ mix test  # run the tests`, `Grep "pattern" in lib`, `Todo: [x] a / [~] b
 * / [ ] c`, `Task: description`, `WebFetch url`; another tool as its name and
 * the short scalar inputs (`name key=value ...`). Never the raw JSON.
 *
 * @example
 * ```ts
 * import { Material } from "@precis/core"
 * Material.action({ id: "t1", name: "Bash", input: { command: "mix test" }, arguments: "" }) // "$ mix test"
 * ```
 * @since 0.1.0
 */
export const action = (call: ToolUse.Call): string => {
  const input = call.input
  const path = ToolKind.pathOf(call)
  switch (ToolKind.kindOf(call)) {
    case "read":
      return `${call.name === "Read" ? "Read" : `Read (${call.name})`} ${path ?? "?"}${readRange(call)}`
    case "write":
      return `Write ${path ?? "?"}${writeSummary(call)}`
    case "edit":
      return `Edit ${path ?? "(open file)"}${editSummary(call)}`
    case "shell": {
      const command = ToolKind.commandOf(call)
      const description = str(input.description)
      return `$ ${command === undefined ? `(${call.name})` : oneLine(command, 300)}${
        description === undefined ? "" : `  # ${clip(description, 120)}`
      }`
    }
    case "search": {
      const pattern = str(input.pattern) ?? str(input.query) ?? str(input.search_term) ?? str(input.file_name) ??
        str(input.regex)
      const where = str(input.path) ?? str(input.dir) ?? str(input.directory)
      const glob = str(input.glob)
      return `${call.name}${pattern === undefined ? "" : ` ${JSON.stringify(clip(pattern, 120))}`}${
        where === undefined ? "" : ` in ${where}`
      }${glob === undefined ? "" : ` (${glob})`}`
    }
    case "todo":
      return `Todo: ${todoList(input)}`
    case "task": {
      const description = str(input.description) ?? str(input.prompt) ?? ""
      const agent = str(input.subagent_type)
      return `Task: ${oneLine(description, 200)}${agent === undefined ? "" : ` (${agent})`}`
    }
    case "fetch": {
      const target = str(input.url) ?? str(input.query) ?? ""
      return `${call.name} ${clip(target, 200)}`
    }
    case "other": {
      const scalars = scalarSummary(input)
      return scalars.length === 0 ? call.name : `${call.name} ${scalars}`
    }
  }
}

// ---------------------------------------------------------------------------
// Tool results: a short form by kind

const status = (text: string, isError: boolean): string => {
  const code = OutputDigest.exitCode(text)
  if (code !== undefined) return code === 0 ? "ok" : `exit ${code}`
  return isError ? "failed" : "ok"
}

const fileBody = (label: string, path: string, lines: ReadonlyArray<string>): string => {
  const range = OutputDigest.numberedRange(lines)
  const body = OutputDigest.stripLineNumbers(lines)
  const names = definitions(body.join("\n"))
  const span = range !== undefined && range[0] > 1 ? ` lines ${range[0]}-${range[1]}` : ""
  const head = `${label} ${path}${span} (${plural(body.length, "line")})`
  return names.length > 0 ? `${head}\ndefines: ${nameList(names)}` : head
}

const failure = (lines: ReadonlyArray<string>): string => {
  const kept = OutputDigest.digest(OutputDigest.stripLineNumbers(lines), 3, 1)
  return kept.length === 0 ? "failed" : `failed: ${kept.join("\n")}`
}

// A read that the tool refused says so in words, not as a listing.
const looksFailed = (text: string, isError: boolean): boolean => isError || OutputDigest.saysFailed(text)

/**
 * A tool result in short form, given the call it answers (a call with no
 * input when only the tool's name is known) and its text: a read as `read PATH (N lines)` and the names
 * the file defines; a write or an edit as one line; a shell output as its
 * status and the lines that carry results or errors, `[… N lines]` marking what
 * was left out; line-number prefixes stripped throughout.
 *
 * @since 0.1.0
 */
export const result = (call: ToolUse.Call, answer: ToolUse.Result, text: string): string => {
  const lines = OutputDigest.lines(text)
  const failed = looksFailed(text, answer.isError)
  const path = ToolKind.pathOf(call) ?? SWE_FILE.exec(text)?.[1] ?? "?"
  const kind = ToolKind.kindOf(call)
  switch (kind) {
    case "read":
      return failed ? `read ${path} ${failure(lines)}` : fileBody("read", path, lines)
    case "write":
    case "edit": {
      const verb = kind === "write" ? "wrote" : "edited"
      // A refusal says so first; the code an edit echoes may say anything.
      if (failed || lines.slice(0, 3).some(OutputDigest.isErrorLine)) {
        return `${verb} ${path} ${failure(lines)}`
      }
      const added = lines.filter((l) => /^\+(?!\+\+)/.test(l)).length
      const removed = lines.filter((l) => /^-(?!--)/.test(l)).length
      return added + removed > 0 ? `${verb} ${path} (+${added} -${removed})` : `${verb} ${path}`
    }
    case "shell": {
      const printed = PRINT_FILE.exec(ToolKind.commandOf(call) ?? "")?.[1]
      if (printed !== undefined && !failed) return fileBody("printed", printed, lines)
      const kept = OutputDigest.digest(OutputDigest.stripLineNumbers(lines.filter((l) => !OutputDigest.isExitCodeLine(l))))
      return [status(text, failed), ...kept].join("\n")
    }
    case "search": {
      const stripped = OutputDigest.stripLineNumbers(lines)
      const kept = OutputDigest.digest(stripped, 8, 0)
      return [`${plural(stripped.length, "line")}`, ...kept].join("\n")
    }
    case "todo":
      return failed ? failure(lines) : "ok"
    case "task":
    case "fetch":
    case "other": {
      if (failed) return failure(lines)
      return OutputDigest.digest(OutputDigest.stripLineNumbers(lines), 20, 3).join("\n")
    }
  }
}

// ---------------------------------------------------------------------------
// Turns

// The prose of an assistant turn that makes calls: its text without the
// `[tool_call name] arguments` lines importers add (and OpenHands's
// `$ command` / `[action] path` detail line), which the action lines replace.
const prose = (turn: Turn, calls: ReadonlyArray<ToolUse.Call>): string => {
  let text = turn.content
  for (const call of calls) text = text.replace(ToolMetadata.callLine(call.name, call.arguments), "")
  const lines = text.split("\n").filter((l) => !ToolMetadata.isCallLine(l))
  const action = ToolMetadata.read(turn.metadata).action
  if (action !== undefined && lines.length > 0) {
    const last = lines[lines.length - 1]!
    const command = calls.length === 1 ? ToolKind.commandOf(calls[0]!) : undefined
    if (last.startsWith(`[${action}] `)) lines.pop()
    else if (command !== undefined && text.trimEnd().endsWith(`$ ${command}`)) {
      return text.trimEnd().slice(0, -(command.length + 2)).trimEnd()
    }
  }
  return lines.join("\n").trim()
}

// A turn's working directory when its metadata gives one (the root says nothing).
const cwdOf = (turn: Turn): string | undefined => {
  const cwd = ToolMetadata.read(turn.metadata).cwd
  return cwd === undefined || cwd === "/" ? undefined : cwd
}

// The words of a turn without tool calls: an agent's reasoning only where it
// carries a decision; a harness's meta line (a skill's text, say) by its first
// line; what a harness wrote into a user's turn (a background task's notice) by its gist.
const words = (turn: Turn): string => {
  if (ToolMetadata.read(turn.metadata).meta === true) return clip(splitLines(turn.content)[0] ?? "", 160)
  if (ConversationTurn.isUserRole(turn.role)) {
    const text = OutputDigest.withoutReminders(turn.content)
    if (OutputDigest.isHarnessJunk(text)) return ""
    return OutputDigest.isHarnessNoise(text) ? OutputDigest.harnessGist(text) : turn.content
  }
  return keepDecisions(turn.content)
}

// How many answered-or-not calls are kept to pair results with: a result
// answers a recent call, and the bound keeps rendering linear.
const MAX_PENDING = 256

/**
 * The material for summarizing `turns`: each turn in the transcript line
 * format (`[YYYY-MM-DDTHH:MM:SS] role: ...`), its content rendered by kind.
 * An assistant turn's tool calls become one {@link action} line each after its
 * prose; a tool result becomes its {@link result} short form, paired with its
 * call among the calls of the turns before it (`ToolUse.callFor`); other turns,
 * and every turn of a transcript without tool structure, are written exactly
 * as `Transcript.formatTurns` writes them. Pure, deterministic, linear in the
 * input.
 *
 * @example
 * ```ts
 * import { ConversationTurn, Material } from "@precis/core"
 * Material.render([
 *   ConversationTurn.make({
 *     role: "assistant", content: "[tool_call Bash] {\"command\":\"mix test\"}",
 *     metadata: { toolCalls: [{ id: "t1", name: "Bash", arguments: "{\"command\":\"mix test\"}" }] }
 *   }),
 *   ConversationTurn.make({ role: "tool", content: "12 tests, 0 failures", metadata: { toolCallId: "t1" } })
 * ])
 * // "[?] assistant: $ mix test\n[?] tool: ok\n  12 tests, 0 failures"
 * ```
 * @since 0.1.0
 */
export const render = (turns: Iterable<Turn>): string => renderEach(turns).join("\n")

/**
 * The material of each of `turns`, as {@link render} writes it (`render` joins
 * them with line breaks): what a turn costs a summary, to size the chunks
 * summaries are made from.
 *
 * @since 0.1.0
 */
export const renderEach = (turns: Iterable<Turn>): Array<string> => {
  const list = [...turns]
  return renderContents(list).map((content, i) =>
    Transcript.formatTurn({ role: list[i]!.role, timestamp: list[i]!.timestamp, content })
  )
}

/**
 * What {@link renderEach} writes of each of `turns`, without the transcript
 * line format: a turn's content rendered by kind (tool calls as {@link action}
 * lines after the prose, a tool result as its {@link result} short form), for
 * a reader that shows the role and time itself (`precis serve`). An agent's
 * todo list that a later one among `turns` lists again, item for item, is
 * written `Todo: (updated below)`: the newest list is kept once.
 *
 * @example
 * ```ts
 * import { Material } from "@precis/core"
 * Material.renderContents([{
 *   role: "assistant", content: "Running the tests.",
 *   metadata: { toolCalls: [{ id: "t1", name: "Bash", arguments: "{\"command\":\"mix test\"}" }] }
 * }])
 * // ["Running the tests.\n$ mix test"]
 * ```
 * @since 0.1.0
 */
export const renderContents = (turns: Iterable<Turn>): Array<string> => {
  const list = [...turns]
  const out: Array<string> = []
  const superseded = supersededTodos(list)
  // Calls not yet answered, nearest first.
  let pending: Array<ToolUse.Call> = []
  list.forEach((turn, i) => out.push(relativePaths(renderContent(turn, i), cwdOf(turn))))
  return out

  function renderContent(turn: Turn, index: number): string {
    const answer = ToolUse.result(turn)
    if (answer !== undefined) {
      const call = ToolUse.callFor(answer, pending)
      if (call !== undefined) {
        pending = pending.filter((c) => c !== call)
        return result(call, answer, turn.content)
      }
      // A result whose call is out of sight is rendered by its tool's name, if known.
      return answer.name === undefined
        ? turn.content
        : result({ id: answer.callId, name: answer.name, input: {}, arguments: "" }, answer, turn.content)
    }
    const calls = ToolUse.calls(turn)
    if (calls.length === 0) return words(turn)
    pending = [...[...calls].reverse(), ...pending].slice(0, MAX_PENDING)
    const said = prose(turn, calls)
    const actions = calls.map((call, j) => superseded.has(todoKey(index, j)) ? supersededTodo : action(call))
    return said.length === 0 ? actions.join("\n") : `${said}\n${actions.join("\n")}`
  }
}
