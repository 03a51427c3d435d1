/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`).
 * Lines of type `user` and `assistant` carry `message: { role, content }`,
 * where content is a string or blocks (`text`, `thinking`, `tool_use`,
 * `tool_result`, images). A `queue-operation` line that enqueues a message
 * the user typed while the agent worked (`operation: "enqueue"` with string
 * `content`, not a `<task-notification>`: those reach the transcript as user
 * lines of their own) is a `user` turn with `metadata.queued`; it waits, when
 * it was typed between a tool call and its results, until the results are
 * read, so a tool pair stays together. Every other line type (summary,
 * system, progress, file-history-snapshot, the other queue operations, ...)
 * is skipped.
 *
 * Mapping: an assistant line is one `assistant` turn (text, `[thinking] ...`
 * and `[tool_call name] input` lines; the calls in `metadata.toolCalls`); a
 * user line is split into `tool` turns (one per `tool_result` block, with
 * `toolCallId`, `toolName` and `isError`) and a `user` turn for its other
 * blocks. Ids are the line's `uuid` (`uuid#k` when a line yields several turns).
 * Each turn keeps the line's `cwd` and `gitBranch` in its metadata.
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import { compact, contentText, derivedId, isRecord, joinLines, type Sink, type ToolCall } from "./common.js"
import type { Format } from "./format.js"
import { badLine, type LineReader, lineReader } from "./jsonl.js"

const MESSAGE_SHAPE = "expected \"message\" to be an object with string or array \"content\""

const blockText = (block: Record<string, unknown>): string => {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text : ""
    case "thinking":
      return typeof block.thinking === "string" && block.thinking.length > 0 ? `[thinking] ${block.thinking}` : ""
    case "redacted_thinking":
      return ""
    default:
      return `[${typeof block.type === "string" ? block.type : "block"}]`
  }
}

// The message a queue-operation line enqueues for the user, if it is one.
const queuedMessage = (value: Record<string, unknown>): string | undefined =>
  value.operation === "enqueue" && typeof value.content === "string" && value.content.trim().length > 0 &&
    !value.content.trimStart().startsWith("<task-notification>")
    ? value.content
    : undefined

type Pending = { role: string; content: string; metadata: Record<string, unknown> }

/**
 * A reader of one Claude Code session file; it remembers tool names by call
 * id, the calls not answered yet and the queued user messages waiting for them.
 */
export const reader = (): LineReader => {
  const toolNames = new Map<string, string>()
  const unanswered = new Set<string>()
  const queued: Array<{ line: number; content: string; timestamp: string | undefined; sessionId: string | undefined }> = []
  let index = 0
  const emit = (line: number, p: Pending, id: string | undefined, timestamp: string | undefined, sessionId: string | undefined, out: Sink) => {
    out.add(line, {
      role: p.role,
      content: p.content,
      id: id ?? derivedId("claude-code", index, p.role, p.content, timestamp),
      timestamp,
      sessionId,
      metadata: p.metadata
    })
    index++
  }
  const flushQueued = (out: Sink) => {
    for (const q of queued.splice(0)) {
      emit(q.line, { role: "user", content: q.content, metadata: { queued: true } }, undefined, q.timestamp, q.sessionId, out)
    }
  }
  const base = lineReader((value, line, out: Sink) => {
    if (!isRecord(value)) return badLine(line, "expected a JSON object")
    if (value.type === "queue-operation") {
      const content = queuedMessage(value)
      if (content === undefined) return
      queued.push({
        line,
        content,
        timestamp: typeof value.timestamp === "string" ? value.timestamp : undefined,
        sessionId: typeof value.sessionId === "string" ? value.sessionId : undefined
      })
      if (unanswered.size === 0) flushQueued(out)
      return
    }
    if (value.type !== "user" && value.type !== "assistant") return
    const message = value.message
    if (!isRecord(message) || (typeof message.content !== "string" && !Array.isArray(message.content))) {
      return badLine(line, MESSAGE_SHAPE)
    }
    const uuid = typeof value.uuid === "string" ? value.uuid : undefined
    if (value.timestamp !== undefined && typeof value.timestamp !== "string") {
      return badLine(line, "\"timestamp\" must be a string when present")
    }
    const timestamp = value.timestamp as string | undefined
    const sessionId = typeof value.sessionId === "string" ? value.sessionId : undefined
    const base = {
      ...compact({
        parentUuid: typeof value.parentUuid === "string" ? value.parentUuid : undefined,
        model: typeof message.model === "string" ? message.model : undefined
      }),
      ...ToolMetadata.make({
        sidechain: value.isSidechain === true ? true : undefined,
        meta: value.isMeta === true ? true : undefined,
        // Where the agent worked when it wrote the line: the session state reads them.
        cwd: typeof value.cwd === "string" && value.cwd.length > 0 ? value.cwd : undefined,
        gitBranch: typeof value.gitBranch === "string" && value.gitBranch.length > 0 ? value.gitBranch : undefined
      })
    }
    const pending: Array<Pending> = []
    if (typeof message.content === "string") {
      pending.push({ role: value.type, content: message.content, metadata: base })
    } else if (value.type === "assistant") {
      const texts: Array<string> = []
      const calls: Array<ToolCall> = []
      for (const block of message.content) {
        if (!isRecord(block)) return badLine(line, "expected content blocks to be objects")
        if (block.type === "tool_use") {
          const name = typeof block.name === "string" ? block.name : "tool"
          const id = typeof block.id === "string" ? block.id : undefined
          const args = JSON.stringify(block.input ?? {})
          if (id !== undefined) toolNames.set(id, name)
          calls.push({ ...(id === undefined ? {} : { id }), name, arguments: args })
          texts.push(ToolMetadata.callLine(name, args))
        } else {
          const text = blockText(block)
          if (text.length > 0) texts.push(text)
        }
      }
      const content = joinLines("", texts)
      if (content.length > 0) {
        pending.push({ role: "assistant", content, metadata: { ...base, ...ToolMetadata.make({ toolCalls: calls.length > 0 ? calls : undefined }) } })
      }
    } else {
      const texts: Array<string> = []
      const flush = () => {
        if (texts.length > 0) pending.push({ role: "user", content: texts.splice(0).join("\n"), metadata: base })
      }
      for (const block of message.content) {
        if (!isRecord(block)) return badLine(line, "expected content blocks to be objects")
        if (block.type === "tool_result") {
          flush()
          const result = contentText(block.content)
          if (result === undefined) return badLine(line, "expected \"tool_result\" content to be a string or blocks")
          const toolCallId = typeof block.tool_use_id === "string" ? block.tool_use_id : undefined
          pending.push({
            role: "tool",
            content: result,
            metadata: {
              ...base,
              ...ToolMetadata.make({
                toolCallId,
                toolName: toolCallId === undefined ? undefined : toolNames.get(toolCallId),
                isError: block.is_error === true ? true : undefined
              })
            }
          })
        } else {
          const text = blockText(block)
          if (text.length > 0) texts.push(text)
        }
      }
      flush()
    }
    pending.forEach((p, k) => {
      const callId = p.role === "tool" && typeof p.metadata.toolCallId === "string" ? p.metadata.toolCallId : undefined
      // A queued message goes before any turn but the results of the calls it interrupted.
      if (callId === undefined || !unanswered.has(callId)) flushQueued(out)
      const id = uuid === undefined ? undefined : pending.length === 1 ? uuid : `${uuid}#${k}`
      emit(line, p, id, timestamp, sessionId, out)
      if (callId !== undefined) unanswered.delete(callId)
      const calls = p.metadata.toolCalls
      if (Array.isArray(calls)) {
        for (const call of calls) if (isRecord(call) && typeof call.id === "string") unanswered.add(call.id)
      }
      if (unanswered.size === 0) flushQueued(out)
    })
  })
  return { ...base, end: (out) => flushQueued(out) }
}

// The line types of a Claude Code session file.
const LINE_TYPES = new Set(["user", "assistant", "summary", "system", "progress", "file-history-snapshot", "queue-operation"])

/**
 * Claude Code sessions: a line whose `type` is one of its line types (or any
 * string beside a `sessionId` or a `uuid`).
 */
export const format = {
  name: "claude-code",
  title: "Claude Code JSONL",
  lineBased: true,
  reader,
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? typeof probe.value.type === "string" &&
          (LINE_TYPES.has(probe.value.type) || "sessionId" in probe.value || "uuid" in probe.value)
        : probe._tag === "ObjectText" &&
          /"type"\s*:\s*"(?:user|assistant|summary|system|progress|file-history-snapshot)"/.test(probe.firstLine)
  }
} as const satisfies Format<"claude-code">
