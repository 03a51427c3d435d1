/**
 * OpenAI-style chat messages (`{ role, content, tool_calls?, tool_call_id?,
 * name?, id?, timestamp? }`), the shape both OpenAI chat exports and SWE-agent
 * trajectories hold. Each message becomes one turn, in order:
 *
 * - content: a string, `null` or an array of parts (text parts by their text,
 *   others as `[type]`), followed by one `[tool_call name] arguments` line per
 *   call;
 * - `tool_calls` (and the legacy `function_call`) are kept in
 *   `metadata.toolCalls`;
 * - a tool result (`tool_call_id`, or SWE-agent's `tool_call_ids`) carries
 *   `toolCallId` (`toolCallIds` when there are several) and the `toolName` of
 *   the call it answers; a `function` message's `name` is its `toolName`.
 *
 * Ids are the message's own `id` when it is a string, else derived from the
 * position and content.
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import {
  compact,
  contentText,
  derivedId,
  isRecord,
  joinLines,
  LineFailure,
  openAiToolCalls,
  type Sink,
  type ToolCall
} from "./common.js"
import { elementLines } from "./json.js"

/** Where the messages sit in the file, and how a format names them in errors. */
export interface Source {
  /** The whole text, to find the line where a bad message starts. */
  readonly text: string
  /** The top-level key holding the messages; `undefined` for a top-level array. */
  readonly key?: string | undefined
  /** How an error names the message at `index`, e.g. `message 3` or `history[2]`. */
  readonly label: (index: number) => string
  /** Format-specific metadata of a message, put before the common keys. */
  readonly metadata?: ((message: Record<string, unknown>) => Record<string, unknown>) | undefined
}

const callsOf = (message: Record<string, unknown>): ReadonlyArray<ToolCall> | undefined | "invalid" => {
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    return openAiToolCalls(message.tool_calls) ?? "invalid"
  }
  if (isRecord(message.function_call) && typeof message.function_call.name === "string") {
    const args = message.function_call.arguments
    return [{ name: message.function_call.name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) }]
  }
  return undefined
}

const callIdsOf = (message: Record<string, unknown>): ReadonlyArray<string> =>
  typeof message.tool_call_id === "string"
    ? [message.tool_call_id]
    : Array.isArray(message.tool_call_ids)
    ? message.tool_call_ids.filter((id): id is string => typeof id === "string")
    : []

/**
 * Reads `messages` into `out`, each turn at the line where its message starts,
 * or throws a `LineFailure` at the line where a bad message starts.
 */
export const read = (messages: ReadonlyArray<unknown>, source: Source, out: Sink): void => {
  const lines = elementLines(source.text, source.key)
  const lineOf = (index: number): number => lines[index] ?? 1
  const fail = (index: number, reason: string): never => {
    throw new LineFailure(lineOf(index), `${source.label(index)}: ${reason}`)
  }
  const toolNames = new Map<string, string>()
  messages.forEach((message, index) => {
    if (!isRecord(message) || typeof message.role !== "string") {
      return fail(index, "expected a message object with a string \"role\"")
    }
    const content = contentText(message.content)
    if (content === undefined) return fail(index, "\"content\" must be a string, null or an array of parts")
    const calls = callsOf(message)
    if (calls === "invalid") return fail(index, "\"tool_calls\" must be an array of { id, function: { name, arguments } }")
    for (const call of calls ?? []) if (call.id !== undefined) toolNames.set(call.id, call.name)
    const callIds = callIdsOf(message)
    const toolCallId = callIds[0]
    const name = typeof message.name === "string" ? message.name : undefined
    const toolName = toolCallId !== undefined
      ? toolNames.get(toolCallId) ?? name
      : message.role === "function"
      ? name
      : undefined
    const body = joinLines(content, (calls ?? []).map((c) => ToolMetadata.callLine(c.name, c.arguments)))
    if (message.timestamp !== undefined && typeof message.timestamp !== "string") {
      return fail(index, "\"timestamp\" must be a string when present")
    }
    const timestamp = message.timestamp as string | undefined
    out.add(lineOf(index), {
      role: message.role,
      content: body,
      id: typeof message.id === "string" ? message.id : derivedId(out.format, index, message.role, body, timestamp),
      timestamp,
      metadata: {
        ...source.metadata?.(message),
        ...ToolMetadata.make({ toolCalls: calls, toolCallId, toolCallIds: callIds.length > 1 ? callIds : undefined, toolName }),
        ...compact({ name: toolName === undefined ? name : undefined })
      }
    })
  })
}
