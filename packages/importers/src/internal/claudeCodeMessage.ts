/**
 * A Claude Code `user` or `assistant` line decoded into the turns it holds
 * (the mapping is `claudeCode.ts`'s): its context (uuid, time, session, the
 * metadata every turn of the line carries) and its content, an assistant
 * line as one turn with its tool calls, a user line as a `tool` turn per
 * `tool_result` block and a `user` turn for the blocks between them.
 *
 * @internal
 */
import { OutputDigest, ToolMetadata } from "@precis/core"
import { compact, contentText, isRecord, joinLines, type ToolCall } from "./common.js"
import { badLine } from "./jsonl.js"

const MESSAGE_SHAPE = "expected \"message\" to be an object with string or array \"content\""

/** A turn read from a line, before it gets its id and its place among the queued messages. */
export interface Pending {
  readonly role: string
  readonly content: string
  readonly metadata: Record<string, unknown>
  /** The id of the call a `tool` turn answers (its `metadata.toolCallId`). */
  readonly answers?: string | undefined
  /** The ids of the calls an `assistant` turn makes (those of its `metadata.toolCalls` with one). */
  readonly callIds?: ReadonlyArray<string> | undefined
}

/** What a `user` or `assistant` line says about itself, for every turn it yields. */
export interface Context {
  readonly uuid: string | undefined
  readonly timestamp: string | undefined
  readonly sessionId: string | undefined
  /** The metadata every turn of the line carries. */
  readonly base: Record<string, unknown>
}

/**
 * The context and the turns of a line of type `role` (`value`, an object),
 * at 1-based `line`; `toolNames` learns the names of the calls an assistant
 * line makes and gives those of the calls a user line answers. Throws a
 * `LineFailure` for a line of another shape.
 */
export const messageTurns = (
  value: Record<string, unknown>,
  role: "user" | "assistant",
  line: number,
  toolNames: Map<string, string>
): { readonly context: Context; readonly pending: ReadonlyArray<Pending> } => {
  const message = value.message
  if (!isRecord(message) || (typeof message.content !== "string" && !Array.isArray(message.content))) {
    return badLine(line, MESSAGE_SHAPE)
  }
  const context = contextOf(value, message, line)
  const pending = typeof message.content === "string"
    ? [{ role, content: message.content, metadata: context.base }]
    : role === "assistant"
    ? assistantTurns(message.content, { base: context.base, line, toolNames })
    : userTurns(message.content, { base: context.base, line, toolNames })
  return { context, pending }
}

/** The {@link Context} of a line whose `message` is `message`. */
const contextOf = (value: Record<string, unknown>, message: Record<string, unknown>, line: number): Context => {
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
  return { uuid, timestamp, sessionId, base }
}

/** What decoding the blocks of a line needs: its base metadata, its number and the tool names by call id. */
interface Scope {
  readonly base: Record<string, unknown>
  readonly line: number
  readonly toolNames: Map<string, string>
}

/** The text of a content block that is no tool call or result (`""`: none). */
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

/** An assistant line's blocks as one turn (none when it says nothing): its texts and a call line per `tool_use`. */
const assistantTurns = (blocks: ReadonlyArray<unknown>, { base, line, toolNames }: Scope): Array<Pending> => {
  const texts: Array<string> = []
  const calls: Array<ToolCall> = []
  for (const block of blocks) {
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
  if (content.length === 0) return []
  return [{
    role: "assistant",
    content,
    metadata: { ...base, ...ToolMetadata.make({ toolCalls: calls.length > 0 ? calls : undefined }) },
    callIds: calls.flatMap((call) => call.id === undefined ? [] : [call.id])
  }]
}

/** A user line's blocks as turns: a `tool` turn per `tool_result`, a `user` turn for the other blocks between them. */
const userTurns = (blocks: ReadonlyArray<unknown>, scope: Scope): Array<Pending> => {
  const { base, line } = scope
  const pending: Array<Pending> = []
  const texts: Array<string> = []
  const flush = () => {
    if (texts.length > 0) pending.push({ role: "user", content: texts.splice(0).join("\n"), metadata: base })
  }
  for (const block of blocks) {
    if (!isRecord(block)) return badLine(line, "expected content blocks to be objects")
    if (block.type === "tool_result") {
      flush()
      pending.push(toolResult(block, scope))
    } else {
      const text = blockText(block)
      if (text.length > 0) texts.push(text)
    }
  }
  flush()
  return pending
}

/** The `tool` turn of a `tool_result` block, named after the call it answers. */
const toolResult = (block: Record<string, unknown>, { base, line, toolNames }: Scope): Pending => {
  const result = contentText(block.content)
  if (result === undefined) return badLine(line, "expected \"tool_result\" content to be a string or blocks")
  const toolCallId = typeof block.tool_use_id === "string" ? block.tool_use_id : undefined
  const isError = block.is_error === true
  return {
    role: "tool",
    content: result,
    metadata: {
      ...base,
      ...ToolMetadata.make({
        toolCallId,
        toolName: toolCallId === undefined ? undefined : toolNames.get(toolCallId),
        isError: isError ? true : undefined,
        hookRefused: isError && hookRefusal(result) ? true : undefined
      })
    },
    answers: toolCallId
  }
}

/**
 * Whether an error result is a PreToolUse hook's refusal (the hook's stderr or
 * reason, the call never ran): not a command's failure (Claude Code writes
 * `Exit code N` first), nor a refusal of the harness (`<tool_use_error>`), of
 * the user, of a permission, nor a timeout or an interruption.
 */
const hookRefusal = (result: string): boolean =>
  result.trim().length > 0 && OutputDigest.exitCode(result) === undefined &&
  !/^\s*(?:<tool_use_error>|The user doesn't want to proceed|Permission to use |Command timed out|\[Request interrupted)/.test(result)
