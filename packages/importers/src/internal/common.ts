/**
 * What every importer shares: the failure of one line, turn construction with
 * stable ids, and rendering of content parts and tool calls as text.
 *
 * @internal
 */
import { ConversationTurn } from "@precis/core"
import { createHash } from "node:crypto"

/** The formats an importer reads (everything but `"auto"`). */
export type SourceFormat = "precis" | "openai" | "claude-code" | "swe-agent" | "openhands" | "oasst"

/** Bad input at a 1-based line of the file; turned into an `ImportError` at the module boundary. */
export class LineFailure {
  readonly _tag = "LineFailure"
  constructor(readonly line: number, readonly reason: string) {}
}

/** What an import was asked for, besides the file. */
export interface Context {
  readonly format: SourceFormat
}

/** Accumulates turns. */
export type Sink = Array<ConversationTurn.ConversationTurn>

/** Whether `u` is a plain JSON object (not null, not an array). */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * A stable id for a turn whose source has none: the format, its position in
 * the file and a short hash of its role, timestamp and content. The same file
 * imported twice gives the same ids; two files rarely collide.
 */
export const derivedId = (
  format: SourceFormat,
  index: number,
  role: string,
  content: string,
  timestamp: string | undefined
): string => `${format}:${index}-${contentHash(role, content, timestamp)}`

const HASHED_CHARS = 1024

/**
 * 12 hex digits identifying a turn's role, timestamp and content: the SHA-1 of
 * the role, timestamp, content length and the content's first and last
 * 1,024 characters. Ids also carry the turn's position, so this only has to
 * tell apart turns at the same position of different files; bounding the
 * hashed text keeps multi-megabyte imports fast.
 */
export const contentHash = (role: string, content: string, timestamp: string | undefined): string => {
  const sampled = content.length <= 2 * HASHED_CHARS
    ? content
    : `${content.slice(0, HASHED_CHARS)}\u0000${content.slice(-HASHED_CHARS)}`
  return createHash("sha1")
    .update(`${role}\u0000${timestamp ?? ""}\u0000${content.length}\u0000${sampled}`)
    .digest("hex")
    .slice(0, 12)
}

/** The fields of a turn; `sessionId` only when the source itself names a session. */
export interface TurnFields {
  readonly role: string
  readonly content: string
  readonly id: string
  readonly timestamp?: string | undefined
  readonly sessionId?: string | undefined
  readonly metadata?: Record<string, unknown> | undefined
}

/** Builds a turn from fields already checked by the importer (no second validation). */
export const turn = (context: Context, fields: TurnFields): ConversationTurn.ConversationTurn => {
  const metadata: Record<string, unknown> = fields.metadata === undefined ? {} : Object.assign({}, fields.metadata)
  metadata.sourceFormat = context.format
  const props: { -readonly [K in keyof ConversationTurn.ConversationTurn]: ConversationTurn.ConversationTurn[K] } = {
    role: fields.role,
    content: fields.content,
    id: fields.id,
    metadata
  }
  if (fields.timestamp !== undefined) props.timestamp = fields.timestamp
  if (fields.sessionId !== undefined) props.sessionId = fields.sessionId
  return new ConversationTurn.ConversationTurn(props, true)
}

/** Drops `undefined` values, so metadata stays JSON-clean. */
export const compact = (record: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(record)) if (v !== undefined) out[k] = v
  return out
}

/**
 * Message content as text: a string as is, `null`/absent as `""`, an array of
 * parts joined by newlines (text parts by their text, others as `[type]`).
 * `undefined` when the content has another shape.
 */
export const contentText = (content: unknown): string | undefined => {
  if (typeof content === "string") return content
  if (content === null || content === undefined) return ""
  if (!Array.isArray(content)) return undefined
  const parts: Array<string> = []
  for (const part of content) {
    if (typeof part === "string") parts.push(part)
    else if (!isRecord(part)) return undefined
    else if (typeof part.text === "string") parts.push(part.text)
    else if (typeof part.refusal === "string") parts.push(part.refusal)
    else parts.push(`[${typeof part.type === "string" ? part.type : "part"}]`)
  }
  return parts.join("\n")
}

/** One tool call as a line of text, e.g. `[tool_call bash] {"command":"ls"}`. */
export const toolCallLine = (name: string, args: string): string => `[tool_call ${name}] ${args}`

/** `text` followed by the given lines, skipping empty pieces. */
export const joinLines = (text: string, lines: ReadonlyArray<string>): string =>
  [text, ...lines].filter((s) => s.length > 0).join("\n")

/** A tool call as stored in metadata. */
export interface ToolCall {
  readonly id?: string | undefined
  readonly name: string
  readonly arguments: string
}

/**
 * OpenAI-style `tool_calls` (`[{ id, type, function: { name, arguments } }]`),
 * or `undefined` when the value has another shape.
 */
export const openAiToolCalls = (value: unknown): ReadonlyArray<ToolCall> | undefined => {
  if (!Array.isArray(value)) return undefined
  const calls: Array<ToolCall> = []
  for (const call of value) {
    if (!isRecord(call) || !isRecord(call.function) || typeof call.function.name !== "string") return undefined
    const args = call.function.arguments
    calls.push({
      ...(typeof call.id === "string" ? { id: call.id } : {}),
      name: call.function.name,
      arguments: typeof args === "string" ? args : JSON.stringify(args ?? {})
    })
  }
  return calls
}
