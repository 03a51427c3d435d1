/**
 * Gemini CLI session files (`~/.gemini/tmp/<project hash>/chats/session-*.json`,
 * gemini-cli-core's `ChatRecordingService`): one JSON object `{ sessionId,
 * projectHash, startTime, lastUpdated, messages }`, each message `{ id,
 * timestamp, type, content }` with, for `type: "gemini"`, `toolCalls: [{ id,
 * name, args, result, status, resultDisplay }]` and `thoughts: [{ subject,
 * description }]`.
 *
 * Mapping: a `user` message is a user turn; a `gemini` message an assistant
 * turn (its thoughts as `[thinking]` lines, its text, a call line per tool
 * call; id the message's `id`), then a `tool` turn per call with a result
 * (the `functionResponse`'s output or error, else `resultDisplay`; `status:
 * "error"` marks it an error; id `<message id>#<k>`). `info`, `warning` and
 * `error` messages are the CLI's own notices and are skipped.
 *
 * @internal
 */
import { call, Emitter, textOf } from "./agentTurns.js"
import { contentText, isRecord, LineFailure, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { elementLines, parseJson } from "./json.js"

// A result as the model was given it: `[{ functionResponse: { response: { output | error } } }]`, else the display text.
const resultText = (record: Record<string, unknown>): string => {
  const parts = Array.isArray(record.result) ? record.result : [record.result]
  const texts: Array<string> = []
  for (const part of parts) {
    const response = isRecord(part) && isRecord(part.functionResponse) && isRecord(part.functionResponse.response)
      ? part.functionResponse.response
      : undefined
    if (response !== undefined) texts.push(textOf(response.output ?? response.error ?? response.content ?? response))
    else if (isRecord(part) && typeof part.text === "string") texts.push(part.text)
  }
  return texts.length > 0 ? texts.join("\n") : textOf(record.resultDisplay)
}

const thoughtLines = (thoughts: unknown): ReadonlyArray<string> =>
  Array.isArray(thoughts)
    ? thoughts.flatMap((t) => {
      if (!isRecord(t)) return []
      const text = [t.subject, t.description].filter((s) => typeof s === "string" && s.length > 0).join(": ")
      return text.length > 0 ? [`[thinking] ${text}`] : []
    })
    : []

/** Reads a Gemini CLI session file into `out`, or throws a `LineFailure`. */
export const read = (text: string, out: Sink): void => {
  const value = parseJson(text)
  if (!isRecord(value) || !Array.isArray(value.messages)) {
    throw new LineFailure(1, "expected a JSON object with a \"messages\" array (a Gemini CLI session)")
  }
  const lines = elementLines(text, "messages")
  const sessionId = typeof value.sessionId === "string" ? value.sessionId : undefined
  const emit = new Emitter()
  value.messages.forEach((message, index) => {
    const line = lines[index] ?? 1
    if (!isRecord(message) || typeof message.type !== "string") {
      throw new LineFailure(line, `message ${index + 1}: expected a message object with a string "type"`)
    }
    const content = contentText(message.content)
    if (content === undefined) throw new LineFailure(line, `message ${index + 1}: "content" must be a string or parts`)
    const id = typeof message.id === "string" ? message.id : undefined
    const draft = { timestamp: typeof message.timestamp === "string" ? message.timestamp : undefined, sessionId }
    if (message.type === "user") return emit.add(out, line, { ...draft, id, role: "user", content })
    if (message.type !== "gemini") return
    const records = Array.isArray(message.toolCalls) ? message.toolCalls.filter(isRecord) : []
    const calls = records.map((r) => call(typeof r.id === "string" ? r.id : undefined, typeof r.name === "string" ? r.name : "tool", r.args))
    emit.assistant(out, line, [...thoughtLines(message.thoughts), content], calls, { ...draft, id })
    records.forEach((record, k) => {
      if (record.result === undefined && record.resultDisplay === undefined) return
      emit.result(out, line, {
        callId: calls[k]!.id,
        toolName: calls[k]!.name,
        content: resultText(record),
        isError: record.status === "error" || record.status === "cancelled"
      }, { ...draft, id: id === undefined ? undefined : `${id}#${k + 1}` })
    })
  })
}

/** Gemini CLI sessions: an object with `projectHash` (and `sessionId`) beside its `messages`. */
export const format = {
  name: "gemini",
  title: "Gemini CLI session JSON",
  lineBased: false,
  reader: read,
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? Array.isArray(probe.value.messages) && typeof probe.value.projectHash === "string"
        : probe._tag === "ObjectText" && /^\{\s*"sessionId"\s*:/.test(probe.text) && /"projectHash"\s*:/.test(probe.text)
  }
} as const satisfies Format<"gemini">
