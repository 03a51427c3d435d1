/**
 * Gemini CLI `--output-format stream-json` (the headless mode's JSONL events,
 * geminicli.com/docs/cli/headless): `init` (`session_id`, `model`),
 * `message` (`role` user or assistant, `content`, `delta: true` for a chunk of
 * a streamed reply), `tool_use` (`tool_name`, `tool_id`, `parameters`),
 * `tool_result` (`tool_id`, `status` success or error, `output`, `error`),
 * `error` (a non-fatal notice) and `result` (the final stats).
 *
 * Mapping: a user message is a user turn; an assistant's chunks and the tool
 * calls that follow them are one assistant turn; each `tool_result` a `tool`
 * turn paired by `tool_id`; an `error` (`severity`, `message`: what the user
 * saw) a `system` turn marked `meta`, as the session file's notices are.
 * `init` and `result` (stats) are no turns.
 *
 * @internal
 */
import { call, Emitter, textOf } from "./agentTurns.js"
import { isRecord, type Sink, type ToolCall } from "./common.js"
import { argsOf } from "./gemini.js"
import type { Format } from "./format.js"
import { badLine, type LineReader, lineReader } from "./jsonl.js"

const EVENTS = new Set(["init", "message", "tool_use", "tool_result", "error", "result"])

/** A reader of one stream-json file: it holds an assistant's reply until the reply and its calls are whole. */
export const reader = (): LineReader => {
  const emit = new Emitter()
  let sessionId: string | undefined
  let reply: { line: number; timestamp: string | undefined; texts: Array<string>; calls: Array<ToolCall> } | undefined
  const flush = (out: Sink) => {
    if (reply === undefined) return
    const { calls, line, texts, timestamp } = reply
    reply = undefined
    emit.assistant(out, line, [texts.join("")], calls, { timestamp, sessionId })
  }
  const replyAt = (line: number, timestamp: string | undefined) => (reply ??= { line, timestamp, texts: [], calls: [] })
  const base = lineReader((value, line, out) => {
    if (!isRecord(value) || typeof value.type !== "string") return badLine(line, "expected a JSON object with a string \"type\"")
    const timestamp = typeof value.timestamp === "string" ? value.timestamp : undefined
    switch (value.type) {
      case "init":
        if (typeof value.session_id === "string") sessionId = value.session_id
        return
      case "message": {
        const content = textOf(value.content)
        if (value.role === "assistant") {
          // A new reply starts after calls were made: the earlier one is whole.
          if (reply !== undefined && reply.calls.length > 0) flush(out)
          replyAt(line, timestamp).texts.push(content)
          return
        }
        flush(out)
        return emit.add(out, line, { role: typeof value.role === "string" ? value.role : "user", content, timestamp, sessionId })
      }
      case "tool_use": {
        const id = typeof value.tool_id === "string" ? value.tool_id : undefined
        const name = typeof value.tool_name === "string" ? value.tool_name : "tool"
        replyAt(line, timestamp).calls.push(call(id, name, argsOf(name, value.parameters)))
        return
      }
      case "tool_result": {
        flush(out)
        const error = isRecord(value.error) ? value.error : undefined
        return emit.result(out, line, {
          callId: typeof value.tool_id === "string" ? value.tool_id : undefined,
          content: textOf(value.output ?? error?.message),
          isError: value.status === "error"
        }, { timestamp, sessionId })
      }
      case "error": {
        flush(out)
        const message = textOf(value.message)
        const severity = typeof value.severity === "string" ? value.severity : "error"
        return emit.add(out, line, { role: "system", content: message.length > 0 ? `[${severity}] ${message}` : "", timestamp, sessionId, metadata: { meta: true } })
      }
      default:
        return flush(out)
    }
  })
  return { ...base, end: flush }
}

/** Gemini stream-json: a first line `{"type": "init", "session_id": ...}` (or another of its events with `tool_id`). */
export const format = {
  name: "gemini-stream",
  title: "Gemini CLI stream-json JSONL",
  lineBased: true,
  lenient: true,
  reader,
  detect: {
    claims: (probe) =>
      probe._tag === "Object" && EVENTS.has(probe.value.type as string) &&
      (typeof probe.value.session_id === "string" || typeof probe.value.tool_id === "string")
  }
} as const satisfies Format<"gemini-stream">
