/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`).
 * Lines of type `user` and `assistant` carry `message: { role, content }`,
 * where content is a string or blocks (`text`, `thinking`, `tool_use`,
 * `tool_result`, images). A `queue-operation` line that enqueues a message
 * the user typed while the agent worked (`operation: "enqueue"` with string
 * `content`, not a `<task-notification>`: those reach the transcript as user
 * lines of their own) is a `user` turn with `metadata.queued`; it waits, when
 * it was typed between a tool call and its results, until the results are
 * read, so a tool pair stays together; when Claude Code later writes the
 * dequeued message as a user line of its own, that line's text is not stored
 * a second time (after a `remove`, the message reached the model without one).
 * An `attachment` line of a hook's blocking error (`hook_blocking_error`: a
 * PostToolUse or Stop hook that exited 2) is a meta `user` turn of the text
 * the agent read, `HOOK hook blocking error from command: "COMMAND": ERROR`.
 * Every other line type (summary, system, progress, file-history-snapshot,
 * the other attachments and queue operations, ...) is skipped.
 *
 * Mapping: an assistant line is one `assistant` turn (text, `[thinking] ...`
 * and `[tool_call name] input` lines; the calls in `metadata.toolCalls`); a
 * user line is split into `tool` turns (one per `tool_result` block, with
 * `toolCallId`, `toolName` and `isError`; `hookRefused` when the error is a
 * PreToolUse hook's refusal, no `Exit code N` first: the call never ran) and a
 * `user` turn for its other blocks. Ids are the line's `uuid` (`uuid#k` when a line yields several turns).
 * Each turn keeps the line's `cwd` and `gitBranch` in its metadata.
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import * as Schema from "effect/Schema"
import { messageTurns, type Pending } from "./claudeCodeMessage.js"
import { derivedId, isRecord, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { badLine, type LineReader, lineReader } from "./jsonl.js"

// The message a queue-operation line enqueues for the user, if it is one.
const queuedMessage = (value: Record<string, unknown>): string | undefined =>
  value.operation === "enqueue" && typeof value.content === "string" && value.content.trim().length > 0 &&
    !value.content.trimStart().startsWith("<task-notification>")
    ? value.content
    : undefined

/** A message the user typed while the agent worked, waiting for its place. */
const Queued = Schema.Struct({
  line: Schema.Int,
  content: Schema.String,
  timestamp: Schema.UndefinedOr(Schema.String),
  sessionId: Schema.UndefinedOr(Schema.String)
})

/**
 * What a reader holds between lines, as it saves it: the turns emitted (for
 * derived ids), the names of the latest calls by id, the calls not answered
 * yet, the queued messages waiting for them and those whose own user line
 * may still come.
 */
const State = Schema.Struct({
  index: Schema.NonNegativeInt,
  toolNames: Schema.Array(Schema.Tuple(Schema.String, Schema.String)),
  unanswered: Schema.Array(Schema.String),
  queued: Schema.Array(Queued),
  awaiting: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})

/** The most call names a saved state keeps besides those of unanswered calls: a result comes soon after its call. */
const SAVED_NAMES = 512

/**
 * A reader of one Claude Code session file; it remembers tool names by call
 * id, the calls not answered yet and the queued user messages waiting for them.
 * `saved` is what an earlier reader's `save` gave, to go on after its last line.
 */
export const reader = (saved?: unknown): LineReader => {
  const initial = saved === undefined ? undefined : Schema.decodeUnknownSync(State)(saved)
  const toolNames = new Map<string, string>(initial?.toolNames)
  const unanswered = new Set<string>(initial?.unanswered)
  const queued: Array<typeof Queued.Type> = [...(initial?.queued ?? [])]
  // The queued messages whose own user line may still come (Claude Code writes one when it dequeues them).
  const awaiting: Array<string> = [...(initial?.awaiting ?? [])]
  let index = initial?.index ?? 0
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
  // A queued message waits while calls are unanswered, so a tool pair stays together.
  const enqueue = (value: Record<string, unknown>, line: number, out: Sink) => {
    const content = queuedMessage(value)
    if (content === undefined) return
    awaiting.push(content.trim())
    if (awaiting.length > MAX_AWAITING) awaiting.shift()
    queued.push({
      line,
      content,
      timestamp: typeof value.timestamp === "string" ? value.timestamp : undefined,
      sessionId: typeof value.sessionId === "string" ? value.sessionId : undefined
    })
    if (unanswered.size === 0) flushQueued(out)
  }
  const base = lineReader((value, line, out: Sink) => {
    if (!isRecord(value)) return badLine(line, "expected a JSON object")
    if (value.type === "queue-operation") {
      // A message removed from the queue reached the model without a user line of its own.
      if (value.operation === "remove") awaiting.shift()
      return enqueue(value, line, out)
    }
    if (value.type === "attachment") {
      const report = hookReport(value)
      if (report === undefined) return
      if (unanswered.size === 0) flushQueued(out)
      const str = (v: unknown) => typeof v === "string" && v.length > 0 ? v : undefined
      const metadata = ToolMetadata.make({ meta: true, cwd: str(value.cwd), gitBranch: str(value.gitBranch) })
      return emit(line, { role: "user", content: report, metadata }, str(value.uuid), str(value.timestamp), str(value.sessionId), out)
    }
    if (value.type !== "user" && value.type !== "assistant") return
    const { context, pending: all } = messageTurns(value, value.type, line, toolNames)
    // The user line of a message already stored as queued is that message: one turn, not two.
    const pending = all.filter((p) => {
      if (p.role !== "user" || p.answers !== undefined) return true
      const at = awaiting.indexOf(p.content.trim())
      if (at !== -1) awaiting.splice(at, 1)
      return at === -1
    })
    const { sessionId, timestamp, uuid } = context
    pending.forEach((p, k) => {
      // A queued message goes before any turn but the results of the calls it interrupted.
      if (p.answers === undefined || !unanswered.has(p.answers)) flushQueued(out)
      const id = uuid === undefined ? undefined : pending.length === 1 ? uuid : `${uuid}#${k}`
      emit(line, p, id, timestamp, sessionId, out)
      if (p.answers !== undefined) unanswered.delete(p.answers)
      for (const callId of p.callIds ?? []) unanswered.add(callId)
      if (unanswered.size === 0) flushQueued(out)
    })
  })
  const save = (): typeof State.Encoded => {
    const names = [...toolNames]
    const kept = names.filter(([id], i) => unanswered.has(id) || i >= names.length - SAVED_NAMES)
    return { index, toolNames: kept, unanswered: [...unanswered], queued: [...queued], awaiting: [...awaiting] }
  }
  return { ...base, end: (out) => flushQueued(out), save }
}

// The text the agent read for a hook's blocking error (an `attachment` line), as Claude Code renders it.
const hookReport = (value: Record<string, unknown>): string | undefined => {
  const attachment = value.attachment
  if (!isRecord(attachment) || attachment.type !== "hook_blocking_error" || !isRecord(attachment.blockingError)) return undefined
  const { blockingError, command } = attachment.blockingError
  if (typeof blockingError !== "string" || blockingError.trim().length === 0) return undefined
  const hook = typeof attachment.hookName === "string" ? attachment.hookName : "A"
  return `${hook} hook blocking error from command: "${typeof command === "string" ? command : ""}": ${blockingError}`
}

// How many queued messages wait for their user line at most.
const MAX_AWAITING = 32

// The line types of a Claude Code session file.
const LINE_TYPES = new Set([
  "user",
  "assistant",
  "summary",
  "system",
  "progress",
  "file-history-snapshot",
  "queue-operation",
  "attachment"
])

/**
 * Claude Code sessions: a line whose `type` is one of its line types (or any
 * string beside a `sessionId` or a `uuid`).
 */
export const format = {
  name: "claude-code",
  title: "Claude Code JSONL",
  lineBased: true,
  lenient: true,
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
