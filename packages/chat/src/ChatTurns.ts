/**
 * An `@effect/ai` conversation as precis turns, and back: what a chat sends
 * and receives (its `Prompt` messages, and a response's parts through
 * `Prompt.fromResponseParts`) becomes `ConversationTurn`s with the same
 * `ToolMetadata` the importers write, so the session-state header, search,
 * `read` and the viewer read an Effect agent's session as they read Claude
 * Code's:
 *
 * - a system message is a `system` turn, a user message a `user` turn (its
 *   text parts, a file as `[file MEDIA-TYPE NAME]`);
 * - an assistant message is one `assistant` turn: its text (reasoning as
 *   `[thinking] ...`) followed by a `ToolMetadata.callLine` per tool call,
 *   the calls in `metadata.toolCalls` (id, name, arguments as JSON);
 * - each tool result is a `tool` turn answering its call by id
 *   (`toolCallId`, `toolName`, `isError` when it failed), in the order of
 *   the message; a result that is not a string is written as JSON (and
 *   marked so with `metadata.resultFormat: "json"`).
 *
 * {@link toPrompt} is the way back, for a chat's export: the turns the chat
 * wrote give the messages they came from (texts joined, reasoning as text),
 * and turns of other sources the nearest message.
 *
 * @since 0.1.0
 */
import * as Prompt from "@effect/ai/Prompt"
import { ConversationTurn, ToolMetadata } from "@precis/core"

/** The metadata key that says a tool turn's content is its result as JSON. */
const RESULT_FORMAT = "resultFormat"

const turn = (role: string, content: string, timestamp: string | undefined, metadata?: Record<string, unknown>) =>
  ConversationTurn.make({
    role,
    content,
    ...(timestamp === undefined ? {} : { timestamp }),
    ...(metadata === undefined || Object.keys(metadata).length === 0 ? {} : { metadata })
  })

const fileText = (part: Prompt.FilePart): string =>
  `[file ${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`}]`

// A JSON text of `value` (`""` for undefined), so every result is stored as text.
const json = (value: unknown): string => JSON.stringify(value) ?? ""

const toolTurn = (part: Prompt.ToolResultPart, timestamp: string | undefined) =>
  turn("tool", typeof part.result === "string" ? part.result : json(part.result), timestamp, {
    ...ToolMetadata.make({ toolCallId: part.id, toolName: part.name, isError: part.isFailure ? true : undefined }),
    ...(typeof part.result === "string" ? {} : { [RESULT_FORMAT]: "json" })
  })

const assistantTurns = (message: Prompt.AssistantMessage, timestamp: string | undefined) => {
  const texts: Array<string> = []
  const calls: Array<ToolMetadata.ToolCall & { readonly arguments: string }> = []
  const results: Array<ConversationTurn.ConversationTurn> = []
  for (const part of message.content) {
    switch (part.type) {
      case "text":
        if (part.text.length > 0) texts.push(part.text)
        break
      case "reasoning":
        if (part.text.length > 0) texts.push(`[thinking] ${part.text}`)
        break
      case "file":
        texts.push(fileText(part))
        break
      case "tool-call":
        calls.push({ id: part.id, name: part.name, arguments: json(part.params) })
        break
      case "tool-result":
        results.push(toolTurn(part, timestamp))
    }
  }
  const lines = [...texts, ...calls.map((call) => ToolMetadata.callLine(call.name, call.arguments))]
  const said = lines.length === 0
    ? []
    : [turn("assistant", lines.join("\n"), timestamp, ToolMetadata.make({ toolCalls: calls.length > 0 ? calls : undefined }))]
  return [...said, ...results]
}

/**
 * The turns of one message, in order (none for a message that says nothing).
 *
 * @since 0.1.0
 */
export const fromMessage = (
  message: Prompt.Message,
  timestamp?: string | undefined
): Array<ConversationTurn.ConversationTurn> => {
  switch (message.role) {
    case "system":
      return message.content.length === 0 ? [] : [turn("system", message.content, timestamp)]
    case "user": {
      const text = message.content.map((part) => (part.type === "text" ? part.text : fileText(part)))
        .filter((t) => t.length > 0).join("\n")
      return text.length === 0 ? [] : [turn("user", text, timestamp)]
    }
    case "assistant":
      return assistantTurns(message, timestamp)
    case "tool":
      return message.content.map((part) => toolTurn(part, timestamp))
  }
}

/**
 * The turns of a prompt's messages, in order, each stamped with `timestamp`.
 *
 * @example
 * ```ts
 * import { Prompt } from "@effect/ai"
 * import { ChatTurns } from "@precis/chat"
 * ChatTurns.fromPrompt(Prompt.make("Fix the failing test")) // [ user: "Fix the failing test" ]
 * ```
 * @since 0.1.0
 */
export const fromPrompt = (
  prompt: Prompt.Prompt,
  timestamp?: string | undefined
): Array<ConversationTurn.ConversationTurn> => prompt.content.flatMap((message) => fromMessage(message, timestamp))

// An assistant turn's text: its content before the call lines it was given (none: all of it).
const assistantText = (content: string, calls: ReadonlyArray<ToolMetadata.ToolCall>): string => {
  if (calls.length === 0) return content
  const suffix = calls.map((call) =>
    ToolMetadata.callLine(call.name, typeof call.arguments === "string" ? call.arguments : json(call.arguments))
  ).join("\n")
  if (content === suffix) return ""
  return content.endsWith(`\n${suffix}`) ? content.slice(0, content.length - suffix.length - 1) : content
}

const parseParams = (args: ToolMetadata.ToolCall["arguments"]): unknown => {
  if (typeof args !== "string") return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

const assistantMessage = (t: ConversationTurn.ConversationTurn, tool: ToolMetadata.ToolMetadata): Prompt.Message => {
  const calls = tool.toolCalls ?? []
  const text = assistantText(t.content, calls)
  return Prompt.makeMessage("assistant", {
    content: [
      ...(text.length === 0 ? [] : [Prompt.makePart("text", { text })]),
      ...calls.map((call, i) =>
        Prompt.makePart("tool-call", {
          id: call.id ?? `${t.id ?? "call"}#${i}`,
          name: call.name,
          params: parseParams(call.arguments),
          providerExecuted: false
        })
      )
    ]
  })
}

const resultPart = (t: ConversationTurn.ConversationTurn, tool: ToolMetadata.ToolMetadata): Prompt.ToolResultPart =>
  Prompt.makePart("tool-result", {
    id: tool.toolCallId ?? t.id ?? "result",
    name: tool.toolName ?? "tool",
    isFailure: tool.isError === true,
    result: t.metadata?.[RESULT_FORMAT] === "json" ? parseParams(t.content) : t.content,
    providerExecuted: false
  })

/**
 * Turns as a Prompt: the messages a chat's turns came from (consecutive tool
 * results in one tool message, as a response gives them); a turn of another
 * role (an imported `observation`, say) as a user message `[role] content`.
 *
 * @since 0.1.0
 */
export const toPrompt = (turns: Iterable<ConversationTurn.ConversationTurn>): Prompt.Prompt => {
  const messages: Array<Prompt.Message> = []
  let results: Array<Prompt.ToolResultPart> = []
  const flush = () => {
    if (results.length > 0) messages.push(Prompt.makeMessage("tool", { content: results }))
    results = []
  }
  for (const t of turns) {
    const tool = ToolMetadata.read(t.metadata)
    if (t.role === "tool" && tool.toolCallId !== undefined) {
      results.push(resultPart(t, tool))
      continue
    }
    flush()
    switch (t.role) {
      case "system":
        messages.push(Prompt.makeMessage("system", { content: t.content }))
        break
      case "assistant":
        messages.push(assistantMessage(t, tool))
        break
      default:
        messages.push(Prompt.makeMessage("user", {
          content: [Prompt.makePart("text", { text: t.role === "user" ? t.content : `[${t.role}] ${t.content}` })]
        }))
    }
  }
  flush()
  return Prompt.fromMessages(messages)
}
