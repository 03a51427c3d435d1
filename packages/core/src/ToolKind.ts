/**
 * What a tool call does, by the tool's name: the one table of tool names
 * (Claude Code, SWE-agent, OpenHands, Codex, Gemini CLI, opencode, pi, Cline
 * and common names) and their
 * kinds, the input keys that hold a call's path and command, and the marks of
 * a todo list's statuses. The material, the session state and the extractive
 * provider all read calls through it, so a tool is the same thing everywhere.
 *
 * Names are compared after {@link normalizeName} (trimmed, lower case): `Bash`,
 * `bash` and `BASH` are one tool.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * What a tool call does: reads, writes (creates or overwrites) or edits a
 * file, runs a shell command, searches, updates a todo list, starts a
 * sub-agent task, fetches from the web, or something else.
 *
 * @since 0.1.0
 */
export const Kind = Schema.Literal("read", "write", "edit", "shell", "search", "todo", "task", "fetch", "other")

/**
 * @since 0.1.0
 */
export type Kind = typeof Kind.Type

/**
 * The tool names of each kind, as their agents spell them (Claude Code's
 * `Read`, SWE-agent's `open`, OpenHands's `execute_bash`, ...); the table
 * compares them in any case ({@link normalizeName}).
 *
 * @since 0.1.0
 */
export const names: { readonly [K in Exclude<Kind, "other">]: ReadonlyArray<string> } = {
  read: ["Read", "read_file", "view", "open", "cat", "NotebookRead"],
  write: ["Write", "write_file", "create", "create_file", "write_to_file"],
  edit: [
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "edit_file",
    "insert",
    "str_replace",
    "apply_patch",
    "replace",
    "replace_in_file",
    "apply_diff",
    "search_and_replace",
    "insert_content"
  ],
  shell: [
    "Bash",
    "execute_bash",
    "shell",
    "run",
    "run_command",
    "run_shell_command",
    "exec",
    "exec_command",
    "terminal",
    "execute_command",
    "local_shell"
  ],
  search: [
    "Grep",
    "Glob",
    "search_dir",
    "search_file",
    "find_file",
    "ls",
    "list",
    "search_files",
    "list_files",
    "search_file_content",
    "list_directory",
    "codebase_search"
  ],
  todo: ["TodoWrite", "update_plan", "write_todos"],
  task: ["Task", "agent"],
  fetch: ["WebFetch", "WebSearch", "fetch", "webfetch", "web_fetch", "google_web_search"]
}

/**
 * File editors that say what they do in their `command` input (SWE-agent's and
 * OpenHands's `str_replace_editor`, Anthropic's `str_replace_based_edit_tool`).
 *
 * @since 0.1.0
 */
export const editorNames: ReadonlyArray<string> = ["str_replace_editor", "str_replace_based_edit_tool", "file_editor", "edit_tool"]

/**
 * The kind of each command of a file editor ({@link editorNames}).
 *
 * @since 0.1.0
 */
export const editorCommands: { readonly [command: string]: Kind } = {
  view: "read",
  create: "write",
  str_replace: "edit",
  insert: "edit",
  undo_edit: "edit"
}

/**
 * The input keys that hold the path a call works on, the most telling first.
 *
 * @since 0.1.0
 */
export const pathKeys = ["file_path", "filePath", "path", "absolute_path", "notebook_path", "filename", "file"] as const

/**
 * The input keys that hold the command of a shell call, the most telling first.
 *
 * @since 0.1.0
 */
export const commandKeys = ["command", "cmd"] as const

/**
 * Tools that read the output of a command started in the background (Claude
 * Code's `TaskOutput`, formerly `BashOutput`), and the input keys that name
 * the background command (`task_id`, `bash_id`, `shell_id`).
 *
 * @since 0.1.0
 */
export const backgroundReaders = {
  names: ["TaskOutput", "BashOutput"],
  idKeys: ["task_id", "bash_id", "shell_id"]
} as const

const BACKGROUND = new Set<string>(backgroundReaders.names.map((name) => name.trim().toLowerCase()))

/**
 * The id of the background command a call reads the output of
 * ({@link backgroundReaders}), if it is such a call.
 *
 * @example
 * ```ts
 * import { ToolKind } from "@precis/core"
 * ToolKind.backgroundIdOf({ name: "TaskOutput", input: { task_id: "bd0afab", block: true } }) // "bd0afab"
 * ```
 * @since 0.1.0
 */
export const backgroundIdOf = (call: Call): string | undefined =>
  BACKGROUND.has(normalizeName(call.name)) ? firstOf(call.input, backgroundReaders.idKeys) : undefined

/**
 * Input keys that steer how the harness runs a call (wait for it, for how
 * long, in the background, in a sandbox), not what the call does: a summary
 * leaves them out (`TaskOutput task_id=bd0afab`, not `... block=true timeout=120000`).
 *
 * @since 0.1.0
 */
export const controlKeys: ReadonlyArray<string> = ["block", "timeout", "run_in_background", "dangerouslyDisableSandbox", "is_input"]

const CONTROL = new Set(controlKeys)

/**
 * Whether an input key is one of {@link controlKeys}.
 *
 * @since 0.1.0
 */
export const isControlKey = (key: string): boolean => CONTROL.has(key)

/**
 * A tool's name as the table compares it: trimmed, in lower case.
 *
 * @since 0.1.0
 */
export const normalizeName = (name: string): string => name.trim().toLowerCase()

const KIND_BY_NAME = new Map<string, Kind>(
  Object.entries(names).flatMap(([kind, list]) => list.map((name) => [normalizeName(name), kind as Kind] as const))
)
const EDITORS = new Set(editorNames.map(normalizeName))

/**
 * What a call needs to be classified: the tool's name and its input.
 *
 * @since 0.1.0
 */
export interface Call {
  readonly name: string
  readonly input: { readonly [key: string]: unknown }
}

// A string input, trimmed; blank counts as absent.
const inputText = (input: Call["input"], key: string): string | undefined => {
  const value = input[key]
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : undefined
}

const firstOf = (input: Call["input"], keys: ReadonlyArray<string>): string | undefined => {
  for (const key of keys) {
    const value = inputText(input, key)
    if (value !== undefined) return value
  }
  return undefined
}

/**
 * The kind of a call: by its tool's name ({@link names}); a file editor's by
 * its `command` ({@link editorCommands}: an editor without a command edits,
 * one with an unknown command is `other`); an unknown tool is `other`.
 *
 * @example
 * ```ts
 * import { ToolKind } from "@precis/core"
 * ToolKind.kindOf({ name: "str_replace_based_edit_tool", input: { command: "view", path: "a.py" } }) // "read"
 * ToolKind.kindOf({ name: "Bash", input: { command: "ls" } }) // "shell"
 * ```
 * @since 0.1.0
 */
export const kindOf = (call: Call): Kind => {
  const name = normalizeName(call.name)
  if (EDITORS.has(name)) {
    const command = inputText(call.input, "command")
    return command === undefined ? "edit" : editorCommands[command] ?? "other"
  }
  return KIND_BY_NAME.get(name) ?? "other"
}

/**
 * Every tool name of the table (a file editor's included), as its agent spells it.
 *
 * @since 0.1.0
 */
export const allNames: ReadonlyArray<string> = [...Object.values(names).flat(), ...editorNames]

/**
 * The path a call works on: the first of {@link pathKeys} that holds a
 * non-blank string, trimmed.
 *
 * @since 0.1.0
 */
export const pathOf = (call: Call): string | undefined => firstOf(call.input, pathKeys)

/**
 * The command of a call: the first of {@link commandKeys} that holds a
 * non-blank string, trimmed (for a file editor that is its editor command).
 *
 * @since 0.1.0
 */
export const commandOf = (call: Call): string | undefined => firstOf(call.input, commandKeys)

/**
 * The statuses of a todo list's items.
 *
 * @since 0.1.0
 */
export const TodoStatus = Schema.Literal("pending", "in_progress", "completed")

/**
 * @since 0.1.0
 */
export type TodoStatus = typeof TodoStatus.Type

/**
 * The mark of each status when an item is shown: `[x]` done, `[~]` in
 * progress, `[ ]` pending.
 *
 * @since 0.1.0
 */
export const todoMarks: { readonly [S in TodoStatus]: string } = { completed: "[x]", in_progress: "[~]", pending: "[ ]" }

const isTodoStatus = Schema.is(TodoStatus)

/**
 * The mark of a status ({@link todoMarks}); an unknown status is pending.
 *
 * @since 0.1.0
 */
export const todoMark = (status: string): string => todoMarks[isTodoStatus(status) ? status : "pending"]

/**
 * An item of a todo list: its text and status.
 *
 * @since 0.1.0
 */
export interface TodoItem {
  readonly text: string
  readonly status: TodoStatus
}

/**
 * The items of a todo call's input (`todos: [{ content, status, activeForm }]`):
 * each item's text is its `content` (else its `activeForm`), trimmed; items
 * without one are skipped; an unknown status is `pending`. `undefined` when the
 * input has no `todos` list.
 *
 * @since 0.1.0
 */
export const todoItems = (input: Call["input"]): ReadonlyArray<TodoItem> | undefined => {
  if (!Array.isArray(input.todos)) return undefined
  const items: Array<TodoItem> = []
  for (const todo of input.todos) {
    if (!Predicate.isRecord(todo)) continue
    const text = inputText(todo, "content") ?? inputText(todo, "activeForm")
    if (text === undefined) continue
    items.push({ text, status: isTodoStatus(todo.status) ? todo.status : "pending" })
  }
  return items
}
