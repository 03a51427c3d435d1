/**
 * opencode session exports (`opencode export <session>`): `{ info: { id,
 * directory, ... }, messages: [{ info: { id, role, time: { created }, path?:
 * { cwd } }, parts: [...] }] }` (opencode's `MessageV2`). Parts: `text`,
 * `reasoning`, `tool` (`tool`, `callID`, `state: { status, input, output,
 * error }`), `file`, and bookkeeping (`step-start`, `step-finish`, `patch`,
 * `snapshot`, ...).
 *
 * Mapping: a user message is a user turn (its text parts; synthetic parts
 * are the harness's and skipped); an assistant message an assistant turn (its
 * text, `[thinking]` reasoning, a call line per tool part; id the message's
 * `id`), then a `tool` turn per finished tool part (its output, or its error
 * marked so; id the part's `id`), then a `system` turn marked `meta` per
 * `patch` part (the files the step changed, by opencode's snapshot, a shell
 * command's changes too: `[files changed] a, b`; id the part's `id`). Times
 * are epoch milliseconds.
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import { call, Emitter, textOf, timestampOf } from "./agentTurns.js"
import { isRecord, LineFailure, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { elementLines, parseJson } from "./json.js"

type Part = Record<string, unknown>

const partText = (part: Part): string => {
  if (part.synthetic === true) return ""
  switch (part.type) {
    case "text":
      return textOf(part.text)
    case "reasoning":
      return typeof part.text === "string" && part.text.length > 0 ? `[thinking] ${part.text}` : ""
    case "file":
      return `[file] ${textOf(part.filename ?? part.url)}`
    default:
      return ""
  }
}

/** Reads one message (`{ info, parts }`) at `line`. */
const message = (value: unknown, line: number, where: Record<string, unknown>, emit: Emitter, out: Sink): void => {
  if (!isRecord(value) || !isRecord(value.info) || typeof value.info.role !== "string" || !Array.isArray(value.parts)) {
    throw new LineFailure(line, "expected a message { info: { role }, parts: [...] }")
  }
  const { info } = value
  const role = String(info.role)
  const parts = value.parts.filter(isRecord)
  const time = isRecord(info.time) ? info.time : {}
  const path = isRecord(info.path) ? info.path : {}
  const metadata = { ...where, ...ToolMetadata.make({ cwd: typeof path.cwd === "string" ? path.cwd : undefined }) }
  const draft = {
    id: typeof info.id === "string" ? info.id : undefined,
    timestamp: timestampOf(time.created),
    sessionId: typeof info.sessionID === "string" ? info.sessionID : undefined,
    metadata
  }
  const texts = parts.map(partText)
  if (role !== "assistant") return emit.add(out, line, { ...draft, role, content: texts.filter((t) => t.length > 0).join("\n") })
  const tools = parts.filter((p) => p.type === "tool" && typeof p.tool === "string")
  const calls = tools.map((p) => call(typeof p.callID === "string" ? p.callID : undefined, p.tool as string, isRecord(p.state) ? p.state.input : {}))
  emit.assistant(out, line, texts, calls, draft)
  tools.forEach((part, k) => {
    const state = isRecord(part.state) ? part.state : {}
    if (state.status !== "completed" && state.status !== "error") return
    const stateMeta = isRecord(state.metadata) ? state.metadata : {}
    emit.result(out, line, {
      callId: calls[k]!.id,
      toolName: calls[k]!.name,
      content: textOf(state.status === "error" ? state.error : state.output),
      isError: state.status === "error",
      exitCode: typeof stateMeta.exit === "number" ? stateMeta.exit : undefined
    }, { ...draft, id: typeof part.id === "string" ? part.id : undefined, timestamp: timestampOf(isRecord(state.time) ? state.time.end : undefined) ?? draft.timestamp })
  })
  for (const part of parts.filter((p) => p.type === "patch" && Array.isArray(p.files))) {
    const files = (part.files as ReadonlyArray<unknown>).filter((f): f is string => typeof f === "string")
    emit.add(out, line, {
      ...draft,
      id: typeof part.id === "string" ? part.id : undefined,
      role: "system",
      content: files.length === 0 ? "" : `[files changed] ${files.join(", ")}`,
      metadata: { ...metadata, meta: true }
    })
  }
}

/** Reads an opencode export into `out`, or throws a `LineFailure`. */
export const read = (text: string, out: Sink): void => {
  const value = parseJson(text)
  if (!isRecord(value) || !Array.isArray(value.messages)) {
    throw new LineFailure(1, "expected a JSON object with a \"messages\" array (an opencode export)")
  }
  const info = isRecord(value.info) ? value.info : {}
  const where = ToolMetadata.make({ cwd: typeof info.directory === "string" && info.directory.length > 0 ? info.directory : undefined })
  const lines = elementLines(text, "messages")
  const emit = new Emitter()
  value.messages.forEach((m, index) => message(m, lines[index] ?? 1, where, emit, out))
}

// A message of opencode: `{ info: {...}, parts: [...] }`.
const isOpencodeMessage = (m: unknown): boolean => isRecord(m) && isRecord(m.info) && Array.isArray(m.parts)

/** opencode exports: an object whose `messages` hold `{ info, parts }` (pretty-printed: it starts with `info` and has `parts`). */
export const format = {
  name: "opencode",
  title: "opencode export JSON",
  lineBased: false,
  reader: read,
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? Array.isArray(probe.value.messages) && isOpencodeMessage(probe.value.messages[0])
        : probe._tag === "ObjectText" && /^\{\s*"info"\s*:/.test(probe.text) && /"messages"\s*:\s*\[\s*\{\s*"info"\s*:/.test(probe.text)
  }
} as const satisfies Format<"opencode">
