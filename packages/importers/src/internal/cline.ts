/**
 * Cline and Roo Code task histories (`tasks/<id>/api_conversation_history.json`):
 * a JSON array of Anthropic Messages API messages `{ role, content }`, content
 * a string or blocks `text`, `thinking`, `image`, `tool_use { id, name, input }`
 * and `tool_result { tool_use_id, content, is_error }`.
 *
 * Mapping: an assistant message is an assistant turn (text, `[thinking]`
 * lines, a call line per `tool_use`, or, from an older Cline that wrote its
 * calls as XML in its text, per `<read_file><path>...</path></read_file>`). A user message gives a `tool` turn per
 * `tool_result` block (paired by `tool_use_id`) and per text block in which
 * Cline reports a result (`[read_file for 'README.md'] Result: ...`, paired
 * with the oldest unanswered call of that tool), then a user turn for its
 * other text (`<task>` / `<feedback>` unwrapped) and a `meta` turn for what
 * Cline adds itself (`<environment_details>`, progress reminders). Ids are
 * derived from position and content.
 *
 * @internal
 */
import { Emitter, type Result } from "./agentTurns.js"
import { contentText, isRecord, LineFailure, type Sink, type ToolCall } from "./common.js"
import type { Format } from "./format.js"
import { elementLines, parseJson } from "./json.js"

// Cline's report of a tool's result: `[read_file for 'README.md'] Result:` or `[attempt_completion] Result:`.
const RESULT = /^\[(\w+)(?: for '[\s\S]*?')?\] Result:/
// Text Cline writes itself into a user message.
const HARNESS = /^\s*(?:<environment_details>|#+ (?:task_progress|TODO LIST)|# TODO LIST|\[TASK RESUMPTION\])/
const WRAPPED = /^\s*<(task|feedback|answer|user_message)>\n?([\s\S]*?)\n?<\/\1>\s*$/

// The tools of Cline and Roo Code, which older versions call in XML inside the assistant's text.
const XML_TOOLS = [
  "execute_command", "read_file", "write_to_file", "replace_in_file", "apply_diff", "insert_content", "search_and_replace",
  "search_files", "list_files", "list_code_definition_names", "codebase_search", "browser_action", "use_mcp_tool",
  "access_mcp_resource", "ask_followup_question", "attempt_completion", "new_task", "plan_mode_respond", "switch_mode"
]
const XML_CALL = new RegExp(`<(${XML_TOOLS.join("|")})>([\\s\\S]*?)</\\1>`, "g")
const XML_PARAM = /<(\w+)>\n?([\s\S]*?)\n?<\/\1>/g

/** The tool calls an older Cline writes as XML in its text (`<read_file><path>a.ts</path></read_file>`), ids derived from `at`. */
const xmlCalls = (text: string, at: number): Array<ToolCall> =>
  [...text.matchAll(XML_CALL)].map((match, k) => ({
    id: `cline-xml-${at}-${k}`,
    name: match[1]!,
    arguments: JSON.stringify(Object.fromEntries([...match[2]!.matchAll(XML_PARAM)].map((p) => [p[1]!, p[2]!])))
  }))

const blockText = (block: Record<string, unknown>): string =>
  block.type === "text"
    ? String(block.text ?? "")
    : block.type === "thinking"
    ? (typeof block.thinking === "string" && block.thinking.length > 0 ? `[thinking] ${block.thinking}` : "")
    : block.type === "redacted_thinking"
    ? ""
    : `[${String(block.type)}]`

/** Reads a Cline / Roo history into `out`, or throws a `LineFailure`. */
export const read = (text: string, out: Sink): void => {
  const messages = parseJson(text)
  if (!Array.isArray(messages)) throw new LineFailure(1, "expected a JSON array of messages (a Cline task history)")
  const lines = elementLines(text, undefined)
  const emit = new Emitter()
  // Calls not answered yet, oldest first.
  const waiting: Array<ToolCall> = []
  const answer = (line: number, result: Result) => {
    const at = result.callId !== undefined
      ? waiting.findIndex((c) => c.id === result.callId)
      : waiting.findIndex((c) => c.name === result.toolName)
    const call = at === -1 ? undefined : waiting.splice(at, 1)[0]
    emit.result(out, line, { ...result, callId: result.callId ?? call?.id, toolName: result.toolName ?? call?.name }, {})
  }
  messages.forEach((message, index) => {
    const line = lines[index] ?? 1
    if (!isRecord(message) || typeof message.role !== "string") {
      throw new LineFailure(line, `message ${index + 1}: expected a message object with a string "role"`)
    }
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content
    if (!Array.isArray(blocks) || !blocks.every(isRecord)) {
      throw new LineFailure(line, `message ${index + 1}: "content" must be a string or an array of blocks`)
    }
    if (message.role === "assistant") {
      const texts = blocks.filter((b) => b.type !== "tool_use").map(blockText)
      const calls = blocks.filter((b) => b.type === "tool_use" && typeof b.name === "string").map((b): ToolCall => ({
        ...(typeof b.id === "string" ? { id: b.id } : {}),
        name: b.name as string,
        arguments: JSON.stringify(b.input ?? {})
      }))
      // No tool_use blocks: an older Cline's calls are XML in its text.
      if (calls.length === 0) calls.push(...xmlCalls(texts.join("\n"), index))
      waiting.push(...calls)
      return emit.assistant(out, line, texts, calls, {})
    }
    const said: Array<string> = []
    const harness: Array<string> = []
    for (const block of blocks) {
      if (block.type === "tool_result") {
        const content = contentText(block.content) ?? ""
        answer(line, { callId: typeof block.tool_use_id === "string" ? block.tool_use_id : undefined, content, isError: block.is_error === true })
        continue
      }
      const body = blockText(block)
      const reported = RESULT.exec(body)
      if (reported !== null) answer(line, { callId: undefined, toolName: reported[1], content: body })
      else if (HARNESS.test(body)) harness.push(body)
      else if (body.trim().length > 0) said.push(WRAPPED.exec(body)?.[2] ?? body)
    }
    emit.add(out, line, { role: message.role, content: said.join("\n") })
    emit.add(out, line, { role: message.role, content: harness.join("\n"), metadata: { meta: true } })
  })
}

// Anthropic blocks of their own: a tool_use or tool_result, or Cline's first `<task>`.
const ANTHROPIC = /"type"\s*:\s*"tool_(?:use|result)"|^\[\s*\{\s*"role"\s*:\s*"user"\s*,\s*"content"\s*:\s*\[\s*\{\s*"type"\s*:\s*"text"\s*,\s*"text"\s*:\s*"<task>/

/** Cline / Roo histories: a JSON array of role messages holding Anthropic `tool_use` / `tool_result` blocks, or a first `<task>`. */
export const format = {
  name: "cline",
  title: "Cline / Roo API history JSON",
  lineBased: false,
  reader: read,
  detect: {
    claims: (probe) =>
      (probe._tag === "Element" && typeof probe.value.role === "string" && Array.isArray(probe.value.content) ||
        probe._tag === "ArrayHead") && ANTHROPIC.test(probe.head)
  }
} as const satisfies Format<"cline">
