/**
 * SWE-agent trajectories (`.traj`, one JSON object): every message of
 * `history[]` (`{ role, content, agent, message_type?, tool_calls?,
 * tool_call_ids?, is_demo? }`) becomes a turn, in order. There are no
 * timestamps; ids are derived from position and content.
 *
 * @internal
 */
import {
  compact,
  contentText,
  type Context,
  derivedId,
  isRecord,
  joinLines,
  LineFailure,
  openAiToolCalls,
  type Sink,
  toolCallLine,
  turn
} from "./common.js"
import { elementLines, parseJson } from "./json.js"

/** Reads a SWE-agent trajectory into `out`, or throws a `LineFailure`. */
export const read = (text: string, context: Context, out: Sink): void => {
  const value = parseJson(text)
  if (!isRecord(value) || !Array.isArray(value.history)) {
    throw new LineFailure(1, "expected a JSON object with a \"history\" array (a SWE-agent trajectory)")
  }
  let lines: ReadonlyArray<number> | undefined
  const fail = (index: number, reason: string): never => {
    lines ??= elementLines(text, "history")
    throw new LineFailure(lines[index] ?? 1, `history[${index}]: ${reason}`)
  }
  const toolNames = new Map<string, string>()
  value.history.forEach((message, index) => {
    if (!isRecord(message) || typeof message.role !== "string") {
      return fail(index, "expected a message object with a string \"role\"")
    }
    const content = contentText(message.content)
    if (content === undefined) return fail(index, "\"content\" must be a string or an array of parts")
    const calls = message.tool_calls === undefined || message.tool_calls === null
      ? undefined
      : openAiToolCalls(message.tool_calls)
    if (message.tool_calls !== undefined && message.tool_calls !== null && calls === undefined) {
      return fail(index, "\"tool_calls\" must be an array of { id, function: { name, arguments } }")
    }
    for (const call of calls ?? []) if (call.id !== undefined) toolNames.set(call.id, call.name)
    const callIds = Array.isArray(message.tool_call_ids)
      ? message.tool_call_ids.filter((id): id is string => typeof id === "string")
      : []
    const body = joinLines(content, (calls ?? []).map((c) => toolCallLine(c.name, c.arguments)))
    out.push(turn(context, {
      role: message.role,
      content: body,
      id: derivedId("swe-agent", index, message.role, body, undefined),
      metadata: compact({
        agent: typeof message.agent === "string" ? message.agent : undefined,
        messageType: typeof message.message_type === "string" ? message.message_type : undefined,
        isDemo: message.is_demo === true ? true : undefined,
        toolCalls: calls,
        toolCallId: callIds[0],
        toolCallIds: callIds.length > 1 ? callIds : undefined,
        toolName: callIds[0] === undefined ? undefined : toolNames.get(callIds[0])
      })
    }))
  })
}
