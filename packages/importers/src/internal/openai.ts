/**
 * OpenAI chat messages: a JSON array of messages, or `{ "messages": [...] }`.
 * Assistant `tool_calls` (and the legacy `function_call`) are kept in
 * metadata and as `[tool_call name] arguments` lines; `tool` results carry
 * their `tool_call_id` and the name of the call they answer.
 *
 * @internal
 */
import {
  compact,
  contentText,
  type Context,
  derivedId,
  isRecord,
  LineFailure,
  openAiToolCalls,
  type Sink,
  type ToolCall,
  toolCallLine,
  joinLines,
  turn
} from "./common.js"
import { elementLines, parseJson } from "./json.js"

/** The messages of an OpenAI chat JSON value, and the key they sit under. */
export const messagesOf = (value: unknown): { readonly messages: ReadonlyArray<unknown>; readonly key?: string } | undefined =>
  Array.isArray(value)
    ? { messages: value }
    : isRecord(value) && Array.isArray(value.messages)
    ? { messages: value.messages, key: "messages" }
    : undefined

/** Reads an OpenAI chat JSON document into `out`, or throws a `LineFailure`. */
export const read = (text: string, context: Context, out: Sink): void => {
  const found = messagesOf(parseJson(text))
  if (found === undefined) {
    throw new LineFailure(1, "expected a JSON array of chat messages or an object with a \"messages\" array")
  }
  let lines: ReadonlyArray<number> | undefined
  const fail = (index: number, reason: string): never => {
    lines ??= elementLines(text, found.key)
    throw new LineFailure(lines[index] ?? 1, `message ${index + 1}: ${reason}`)
  }
  const toolNames = new Map<string, string>()
  found.messages.forEach((message, index) => {
    if (!isRecord(message) || typeof message.role !== "string") {
      return fail(index, "expected a message object with a string \"role\"")
    }
    const content = contentText(message.content)
    if (content === undefined) return fail(index, "\"content\" must be a string, null or an array of parts")
    let calls: ReadonlyArray<ToolCall> | undefined
    if (message.tool_calls !== undefined && message.tool_calls !== null) {
      calls = openAiToolCalls(message.tool_calls)
      if (calls === undefined) return fail(index, "\"tool_calls\" must be an array of { id, function: { name, arguments } }")
    } else if (isRecord(message.function_call) && typeof message.function_call.name === "string") {
      const args = message.function_call.arguments
      calls = [{ name: message.function_call.name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) }]
    }
    for (const call of calls ?? []) if (call.id !== undefined) toolNames.set(call.id, call.name)
    const toolCallId = typeof message.tool_call_id === "string" ? message.tool_call_id : undefined
    const name = typeof message.name === "string" ? message.name : undefined
    const toolName = toolCallId !== undefined ? toolNames.get(toolCallId) ?? name : message.role === "function" ? name : undefined
    const body = joinLines(content, (calls ?? []).map((c) => toolCallLine(c.name, c.arguments)))
    const timestamp = typeof message.timestamp === "string" ? message.timestamp : undefined
    out.push(turn(context, {
      role: message.role,
      content: body,
      id: typeof message.id === "string" ? message.id : derivedId("openai", index, message.role, body, timestamp),
      timestamp,
      metadata: compact({
        toolCalls: calls,
        toolCallId,
        toolName,
        name: toolName === undefined ? name : undefined
      })
    }))
  })
}
