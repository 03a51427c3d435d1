/**
 * Gemini CLI session files (`~/.gemini/tmp/<project>/chats/session-*.json`,
 * gemini-cli-core's `ChatRecordingService`; since 0.4x the same records as
 * JSONL, `session-*.jsonl`, read too): one JSON object `{ sessionId,
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
 * `error` messages are the CLI's own notices (a failed request, a model
 * switched, a loop stopped): `system` turns marked `meta`, as the user saw them.
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

/**
 * A Gemini tool call's arguments as the session state reads them: `write_todos`'s items
 * (`{ description, status }`) with their text as `content`, as a todo list's.
 */
export const argsOf = (name: string, args: unknown): unknown =>
  name === "write_todos" && isRecord(args) && Array.isArray(args.todos)
    ? { ...args, todos: args.todos.map((t) => isRecord(t) && t.content === undefined ? { ...t, content: t.description } : t) }
    : args

const thoughtLines = (thoughts: unknown): ReadonlyArray<string> =>
  Array.isArray(thoughts)
    ? thoughts.flatMap((t) => {
      if (!isRecord(t)) return []
      const text = [t.subject, t.description].filter((s) => typeof s === "string" && s.length > 0).join(": ")
      return text.length > 0 ? [`[thinking] ${text}`] : []
    })
    : []

// The CLI's own notices in a session.
const NOTICES = new Set(["info", "warning", "error"])

/** Adds the turns of one message record (the `index`-th, read at `line`). */
const message = (value: unknown, line: number, index: number, sessionId: string | undefined, emit: Emitter, out: Sink): void => {
  if (!isRecord(value) || typeof value.type !== "string") {
    throw new LineFailure(line, `message ${index + 1}: expected a message object with a string "type"`)
  }
  const content = contentText(value.content)
  if (content === undefined) throw new LineFailure(line, `message ${index + 1}: "content" must be a string or parts`)
  const id = typeof value.id === "string" ? value.id : undefined
  const draft = { timestamp: typeof value.timestamp === "string" ? value.timestamp : undefined, sessionId }
  if (value.type === "user") return emit.add(out, line, { ...draft, id, role: "user", content })
  if (NOTICES.has(value.type)) {
    return emit.add(out, line, { ...draft, id, role: "system", content: `[${value.type}] ${content}`, metadata: { meta: true } })
  }
  if (value.type !== "gemini") return
  const records = Array.isArray(value.toolCalls) ? value.toolCalls.filter(isRecord) : []
  const calls = records.map((r) => {
    const name = typeof r.name === "string" ? r.name : "tool"
    return call(typeof r.id === "string" ? r.id : undefined, name, argsOf(name, r.args))
  })
  emit.assistant(out, line, [...thoughtLines(value.thoughts), content], calls, { ...draft, id })
  records.forEach((record, k) => {
    if (record.result === undefined && record.resultDisplay === undefined) return
    emit.result(out, line, {
      callId: calls[k]!.id,
      toolName: calls[k]!.name,
      content: resultText(record),
      isError: record.status === "error" || record.status === "cancelled"
    }, { ...draft, id: id === undefined ? undefined : `${id}#${k + 1}` })
  })
}

/**
 * The messages of a session recorded as JSONL (Gemini CLI since 0.4x): a
 * header line, then message records, a record written again as it grows
 * (the last one of an id wins, in the place of the first), `{"$set":
 * {"messages": [...]}}` (a checkpoint: the list starts again from it) and
 * `{"$rewindTo": id}` (the messages from `id` on are dropped).
 */
const recorded = (text: string): { readonly sessionId: string | undefined; readonly messages: Array<{ value: unknown; line: number }> } => {
  let messages: Array<{ value: unknown; line: number }> = []
  let sessionId: string | undefined
  const at = (id: unknown) => messages.findIndex((m) => isRecord(m.value) && m.value.id === id)
  text.split("\n").forEach((raw, index) => {
    if (raw.trim().length === 0) return
    const line = index + 1
    const value = parseJson(raw, line)
    if (!isRecord(value)) throw new LineFailure(line, "expected a JSON object")
    if (isRecord(value.$set)) {
      if (Array.isArray(value.$set.messages)) messages = value.$set.messages.map((m) => ({ value: m, line }))
    } else if ("$rewindTo" in value) {
      const from = at(value.$rewindTo)
      if (from !== -1) messages = messages.slice(0, from)
    } else if (typeof value.type === "string") {
      const same = at(value.id)
      if (same === -1 || value.id === undefined) messages.push({ value, line })
      else messages[same] = { value, line }
    } else if (typeof value.sessionId === "string") {
      sessionId = value.sessionId
    }
  })
  return { sessionId, messages }
}

// Whether the text is the JSONL recording: its first line a whole object without `messages`.
const isRecording = (text: string): boolean => {
  const first = text.trimStart().split("\n", 1)[0] ?? ""
  try {
    const value: unknown = JSON.parse(first)
    return isRecord(value) && !Array.isArray(value.messages)
  } catch {
    return false
  }
}

/** Reads a Gemini CLI session (a JSON file, or the JSONL recording) into `out`, or throws a `LineFailure`. */
export const read = (text: string, out: Sink): void => {
  const emit = new Emitter()
  if (isRecording(text)) {
    const { messages, sessionId } = recorded(text)
    return messages.forEach((m, index) => message(m.value, m.line, index, sessionId, emit, out))
  }
  const value = parseJson(text)
  if (!isRecord(value) || !Array.isArray(value.messages)) {
    throw new LineFailure(1, "expected a JSON object with a \"messages\" array (a Gemini CLI session)")
  }
  const lines = elementLines(text, "messages")
  const sessionId = typeof value.sessionId === "string" ? value.sessionId : undefined
  value.messages.forEach((m, index) => message(m, lines[index] ?? 1, index, sessionId, emit, out))
}

/**
 * Gemini CLI sessions: an object with `projectHash` (and `sessionId`) beside its `messages`, or the
 * recording's header line (`sessionId`, `projectHash`, `startTime`, no `messages`).
 */
export const format = {
  name: "gemini",
  title: "Gemini CLI session JSON / JSONL",
  lineBased: false,
  reader: read,
  // Its chats, rewritten whole at each turn: `~/.gemini/tmp/<project hash>/chats/session-*.json`.
  watch: { follows: (file) => /[\\/]chats[\\/]session-[^\\/]*\.json$/.test(file) },
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? typeof probe.value.projectHash === "string" && (Array.isArray(probe.value.messages) || typeof probe.value.startTime === "string")
        : probe._tag === "ObjectText" && /^\{\s*"sessionId"\s*:/.test(probe.text) && /"projectHash"\s*:/.test(probe.text)
  }
} as const satisfies Format<"gemini">
