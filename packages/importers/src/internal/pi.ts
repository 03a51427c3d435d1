/**
 * pi coding agent sessions (`~/.pi/agent/sessions/<dir>/<time>_<id>.jsonl`,
 * session format version 3): a tree of lines `{ type, id, parentId,
 * timestamp }`. `session` gives the `cwd`; `message` lines hold `message: {
 * role, content }` with role `user`, `assistant` (blocks `text`, `thinking`,
 * `toolCall { id, name, arguments }`) or `toolResult` (`toolCallId`,
 * `toolName`, `content`, `isError`) or `bashExecution` (a command the user
 * ran: `command`, `output`, `exitCode`; a call and its result). `compaction`
 * and `branch_summary` lines keep their summary as a `meta` system turn;
 * `model_change`, `thinking_level_change`, `custom` and other lines are skipped.
 *
 * Lines are read in file order (the branch last written wins nothing: a
 * session that was branched keeps every branch's turns, in the order written).
 * Ids are the line's `id`.
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import { call, Emitter, timestampOf } from "./agentTurns.js"
import { contentText, isRecord, type ToolCall } from "./common.js"
import type { Format } from "./format.js"
import { badLine, type LineReader, lineReader } from "./jsonl.js"

const blocks = (content: unknown): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(content) ? content.filter(isRecord) : typeof content === "string" ? [{ type: "text", text: content }] : []

/** A reader of one pi session file. */
export const reader = (): LineReader => {
  const emit = new Emitter()
  let where: Record<string, unknown> = {}
  let sessionId: string | undefined
  return lineReader((value, line, out) => {
    if (!isRecord(value) || typeof value.type !== "string") return badLine(line, "expected a JSON object with a string \"type\"")
    if (value.type === "session") {
      if (typeof value.id === "string") sessionId = value.id
      where = ToolMetadata.make({ cwd: typeof value.cwd === "string" && value.cwd.length > 0 ? value.cwd : undefined })
      return
    }
    if (value.type === "compaction" || value.type === "branch_summary") {
      // What pi kept of the messages it compacted (or of a branch left): a note, not a request.
      const summary = typeof value.summary === "string" ? value.summary : ""
      return emit.add(out, line, {
        id: typeof value.id === "string" ? value.id : undefined,
        timestamp: timestampOf(value.timestamp),
        sessionId,
        role: "system",
        content: summary.length > 0 ? `[${value.type}] ${summary}` : "",
        metadata: { ...where, meta: true }
      })
    }
    if (value.type !== "message") return
    const message = value.message
    if (!isRecord(message) || typeof message.role !== "string") return badLine(line, "expected \"message\" to be an object with a string \"role\"")
    const draft = {
      id: typeof value.id === "string" ? value.id : undefined,
      timestamp: timestampOf(value.timestamp) ?? timestampOf(message.timestamp),
      sessionId,
      metadata: where
    }
    if (message.role === "bashExecution") {
      // A command the user ran (`!cmd`): its call and its result.
      const id = `${draft.id ?? line}:bash`
      emit.assistant(out, line, [], [call(id, "bash", { command: message.command })], { ...draft, id: draft.id === undefined ? undefined : `${draft.id}#0`, metadata: { ...where, userCommand: true } })
      return emit.result(out, line, {
        callId: id,
        content: typeof message.output === "string" ? message.output : "",
        exitCode: typeof message.exitCode === "number" ? message.exitCode : undefined,
        isError: typeof message.exitCode === "number" && message.exitCode !== 0
      }, { ...draft, id: draft.id === undefined ? undefined : `${draft.id}#1` })
    }
    if (message.role === "toolResult") {
      const content = contentText(message.content)
      if (content === undefined) return badLine(line, "expected toolResult \"content\" to be a string or blocks")
      return emit.result(out, line, {
        callId: typeof message.toolCallId === "string" ? message.toolCallId : undefined,
        toolName: typeof message.toolName === "string" ? message.toolName : undefined,
        content,
        isError: message.isError === true
      }, draft)
    }
    const texts: Array<string> = []
    const calls: Array<ToolCall> = []
    for (const block of blocks(message.content)) {
      if (block.type === "toolCall" && typeof block.name === "string") {
        calls.push(call(typeof block.id === "string" ? block.id : undefined, block.name, block.arguments))
      } else if (block.type === "thinking") {
        if (typeof block.thinking === "string" && block.thinking.length > 0) texts.push(`[thinking] ${block.thinking}`)
      } else {
        texts.push(typeof block.text === "string" ? block.text : `[${String(block.type)}]`)
      }
    }
    if (message.role === "assistant") return emit.assistant(out, line, texts, calls, draft)
    emit.add(out, line, { ...draft, role: message.role, content: texts.join("\n") })
  })
}

/** pi sessions: a first line `{"type": "session", "version": N, "id", "cwd"}`, or a line with a `parentId` and a pi line type. */
export const format = {
  name: "pi",
  title: "pi session JSONL",
  lineBased: true,
  lenient: true,
  reader,
  detect: {
    claims: (probe) =>
      probe._tag === "Object" &&
      ((probe.value.type === "session" && typeof probe.value.version === "number" && "cwd" in probe.value) ||
        ((probe.value.type === "model_change" || probe.value.type === "message") && "parentId" in probe.value && isRecord(probe.value.message ?? {})))
  }
} as const satisfies Format<"pi">
