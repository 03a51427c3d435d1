/**
 * OpenAI Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`):
 * one `{ timestamp, type, payload }` per line (codex-rs `protocol`'s
 * `RolloutLine` / `RolloutItem`). `session_meta` gives the session id, `cwd`
 * and git branch; `turn_context` a new `cwd`; `response_item` payloads are
 * the conversation:
 *
 * - `message` (`role`, `content` blocks `input_text` / `output_text`): a turn
 *   of its role (`developer` as `system`); the harness's own user messages
 *   (`<environment_context>`, `AGENTS.md` instructions, `<user_instructions>`)
 *   are marked `meta`;
 * - `function_call` (`name`, `arguments` a JSON string, `call_id`),
 *   `custom_tool_call` (`name`, `input` text: `apply_patch`'s patch) and
 *   `local_shell_call` (`action.command`, an argv array): an assistant turn
 *   with one call; `shell`'s argv becomes its command line, a patch's first
 *   file its `path`, `update_plan`'s steps its todo list;
 * - `function_call_output` / `custom_tool_call_output` (`call_id`, `output`):
 *   a `tool` turn paired by call id, with the exit code the output states;
 * - `reasoning`: its summary as a `[thinking]` assistant turn;
 * - `web_search_call` (`action: { type: "search", query }`): an assistant
 *   turn `[web_search] query` (Codex writes no output item for it).
 *
 * A `compacted` line (Codex's summary of the history it compacted, its
 * `message`) is a `system` turn marked `meta`; an `event_msg` of type
 * `turn_aborted` (the user interrupted the turn: its `reason`) too. Other
 * `event_msg` lines repeat what the items say (`user_message`,
 * `agent_message`, `agent_reasoning`, `exec_command_end`, `patch_apply_end`)
 * or count tokens, and are skipped, as are `ghost_snapshot` items (undo
 * points). Items written bare (older rollouts, without the envelope) are read
 * the same way.
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import { call, Emitter, exitCodeIn, shellInput, textOf } from "./agentTurns.js"
import { isRecord, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { badLine, type LineReader, lineReader } from "./jsonl.js"

// The envelope's line types of a rollout.
const ENVELOPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"])

// User messages Codex writes itself, before the user's request.
const HARNESS = /^\s*(?:<environment_context>|<user_instructions>|# AGENTS\.md instructions|<permissions instructions>)/

const blocksText = (content: unknown): string =>
  Array.isArray(content)
    ? content.flatMap((b) => isRecord(b) && typeof b.text === "string" ? [b.text] : []).join("\n")
    : textOf(content)

// The files an apply_patch patch touches (`*** Update File: path`).
const patchFiles = (patch: string): ReadonlyArray<string> =>
  [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim())

// A call's input as the session state reads it: a shell argv as a command line, a patch's first file as
// its path, a plan's steps (`update_plan`: `{ plan: [{ step, status }] }`) as a todo list's items.
const inputOf = (name: string, input: unknown): unknown => {
  if (name === "update_plan" && isRecord(input) && Array.isArray(input.plan)) {
    return { ...input, todos: input.plan.filter(isRecord).map((p) => ({ content: p.step, status: p.status })) }
  }
  if (typeof input === "string" && name === "apply_patch") {
    const files = patchFiles(input)
    return files.length === 0 ? { input } : { input, path: files[0], paths: files }
  }
  return shellInput(input)
}

const parsedArguments = (args: unknown): unknown => {
  if (typeof args !== "string") return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

// An output as Codex writes it: text, or (older rollouts) `{"output": ..., "metadata": {"exit_code": N}}` in JSON.
const outputOf = (output: unknown): { readonly content: string; readonly exitCode: number | undefined } => {
  const value = parsedArguments(output)
  if (isRecord(value) && typeof value.output === "string") {
    const meta = isRecord(value.metadata) ? value.metadata : {}
    return { content: value.output, exitCode: typeof meta.exit_code === "number" ? meta.exit_code : exitCodeIn(value.output) }
  }
  const content = isRecord(output) && typeof output.content === "string" ? output.content : textOf(output)
  return { content, exitCode: exitCodeIn(content) }
}

/** A reader of one Codex rollout file; it remembers the session's directory and branch. */
export const reader = (): LineReader => {
  const emit = new Emitter()
  let where: Record<string, unknown> = {}
  let sessionId: string | undefined
  const item = (payload: Record<string, unknown>, line: number, timestamp: string | undefined, out: Sink) => {
    const draft = { timestamp, sessionId, metadata: where }
    switch (payload.type) {
      case "message": {
        const role = payload.role === "developer" ? "system" : typeof payload.role === "string" ? payload.role : "assistant"
        const content = blocksText(payload.content)
        const meta = role === "user" && HARNESS.test(content) ? { meta: true } : {}
        return emit.add(out, line, { ...draft, role, content, metadata: { ...where, ...meta } })
      }
      case "function_call":
      case "custom_tool_call":
      case "local_shell_call": {
        const name = typeof payload.name === "string" ? payload.name : payload.type === "local_shell_call" ? "shell" : "tool"
        const action = isRecord(payload.action) ? payload.action : {}
        const raw = payload.type === "local_shell_call" ? { command: action.command } : payload.type === "custom_tool_call" ? payload.input : parsedArguments(payload.arguments)
        const id = typeof payload.call_id === "string" ? payload.call_id : undefined
        return emit.assistant(out, line, [], [call(id, name, inputOf(name, raw))], draft)
      }
      case "function_call_output":
      case "custom_tool_call_output":
      case "local_shell_call_output": {
        const { content, exitCode } = outputOf(payload.output)
        const callId = typeof payload.call_id === "string" ? payload.call_id : undefined
        return emit.result(out, line, { callId, content, exitCode, isError: exitCode !== undefined && exitCode !== 0 }, draft)
      }
      case "reasoning": {
        const summary = blocksText(payload.summary)
        return emit.add(out, line, { ...draft, role: "assistant", content: summary.length > 0 ? `[thinking] ${summary}` : "" })
      }
      case "web_search_call": {
        const action = isRecord(payload.action) ? payload.action : {}
        const query = typeof action.query === "string" ? action.query : ""
        return emit.add(out, line, { ...draft, role: "assistant", content: query.length > 0 ? `[web_search] ${query}` : "" })
      }
    }
  }
  // Codex's own lines that say what happened to the session: its compaction's summary, a turn the user stopped.
  const notice = (type: unknown, payload: Record<string, unknown>, line: number, timestamp: string | undefined, out: Sink) => {
    const text = type === "compacted"
      ? (typeof payload.message === "string" && payload.message.length > 0 ? `[compacted] ${payload.message}` : "")
      : payload.type === "turn_aborted"
      ? `[turn aborted: ${typeof payload.reason === "string" ? payload.reason : "interrupted"}]`
      : ""
    emit.add(out, line, { timestamp, sessionId, role: "system", content: text, metadata: { ...where, meta: true } })
  }
  return lineReader((value, line, out) => {
    if (!isRecord(value)) return badLine(line, "expected a JSON object")
    const timestamp = typeof value.timestamp === "string" ? value.timestamp : undefined
    const payload = ENVELOPES.has(value.type as string) ? value.payload : value
    if (!isRecord(payload)) return badLine(line, `expected "payload" to be an object`)
    if (value.type === "session_meta" || value.type === "turn_context") {
      const git = isRecord(payload.git) ? payload.git : {}
      if (typeof payload.id === "string") sessionId = payload.id
      where = {
        ...where,
        ...ToolMetadata.make({
          cwd: typeof payload.cwd === "string" && payload.cwd.length > 0 ? payload.cwd : undefined,
          gitBranch: typeof git.branch === "string" && git.branch.length > 0 ? git.branch : undefined
        })
      }
      return
    }
    if (value.type === "compacted" || value.type === "event_msg") return notice(value.type, payload, line, timestamp, out)
    if (value.type === "response_item" || !ENVELOPES.has(value.type as string)) item(payload, line, timestamp, out)
  })
}

/** Codex rollouts: a first line of the rollout envelope (`session_meta`, `response_item`, ...) with a `payload` object. */
export const format = {
  name: "codex",
  title: "Codex CLI rollout JSONL",
  lineBased: true,
  lenient: true,
  reader,
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? ENVELOPES.has(probe.value.type as string) && isRecord(probe.value.payload)
        : probe._tag === "ObjectText" && /^\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"session_meta"/.test(probe.firstLine)
  }
} as const satisfies Format<"codex">
