/**
 * What every importer shares: the failure of one line, the sink that checks
 * and collects turns by conversation, stable ids, content parts as text and
 * OpenAI-style tool calls.
 *
 * @internal
 */
import { ConversationTurn, type ToolMetadata } from "@precis/core"
import { type Mended, visibleNul } from "../SkipReport.js"
import * as Predicate from "effect/Predicate"
import { createHash } from "node:crypto"

/** Bad input at a 1-based line of the file; turned into an `ImportError` at the module boundary. */
export class LineFailure {
  readonly _tag = "LineFailure"
  constructor(readonly line: number, readonly reason: string) {}
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

/** One conversation being read: its turns and the line each comes from. */
export interface Conversation {
  readonly suffix: string | undefined
  readonly turns: Array<ConversationTurn.ConversationTurn>
  readonly lines: Array<number>
}

/** How deep metadata may nest (the metadata object itself is level 1). */
const MAX_METADATA_DEPTH = 32

// Whether `value` nests deeper than `limit` levels of objects and arrays; stops
// looking at the limit, so absurd nesting costs nothing and overflows no stack.
const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  if (typeof value !== "object" || value === null) return false
  if (limit === 0) return true
  for (const child of Object.values(value)) if (nestsDeeperThan(child, limit - 1)) return true
  return false
}

/**
 * Where an importer puts the turns it reads, in conversations. Every turn is
 * checked here, whatever its format, by the rule the stores apply too
 * (`ConversationTurn.problem`: its role, content without NUL, ids without
 * control characters, an ISO-8601 timestamp), and the conversation's own id;
 * then its metadata's depth, and its id against the earlier turns of its
 * conversation (a repeat must be identical).
 * A failed check is a {@link LineFailure} at the turn's line.
 */
export class Sink {
  /** The conversations read so far, in the order they started. */
  readonly conversations: Array<Conversation> = []
  private readonly bySuffix = new Map<string | undefined, { readonly conversation: Conversation; readonly ids: Map<string, number> }>()
  private suffix: string | undefined = undefined

  /** The turns stored with a NUL made visible (only when `showNul`). */
  readonly mended: Array<Mended> = []

  /**
   * `format`: the name of the format read, recorded as `metadata.sourceFormat`;
   * `showNul`: a NUL in a turn's content is shown as `␀` (and reported in
   * {@link mended}) instead of failing the line, for a lenient import.
   */
  constructor(readonly format: string, readonly showNul = false) {}

  /** The turns added from now on belong to the conversation `suffix` (for files that hold several). */
  startConversation(suffix: string): void {
    this.suffix = suffix
  }

  /**
   * Checks the fields of a turn read at `line` (core's one rule,
   * `ConversationTurn.problem`, and the depth of its metadata) and adds it to
   * the current conversation.
   */
  add(line: number, given: TurnFields): void {
    const fields = this.showNul && given.content.includes("\u0000") ? this.withVisibleNul(line, given) : given
    const timestamp = fields.timestamp === undefined ? undefined : ConversationTurn.isoTimestamp(fields.timestamp)
    const problem = ConversationTurn.problem(fields) ??
      (this.suffix === undefined ? undefined : ConversationTurn.sessionIdProblem(this.suffix))
    if (problem !== undefined) throw new LineFailure(line, problem)
    if (nestsDeeperThan(fields.metadata, MAX_METADATA_DEPTH)) {
      throw new LineFailure(line, `"metadata" nests deeper than ${MAX_METADATA_DEPTH} levels`)
    }
    let entry = this.bySuffix.get(this.suffix)
    if (entry === undefined) {
      entry = { conversation: { suffix: this.suffix, turns: [], lines: [] }, ids: new Map() }
      this.bySuffix.set(this.suffix, entry)
      this.conversations.push(entry.conversation)
    }
    const { conversation, ids } = entry
    const earlier = ids.get(fields.id)
    if (earlier !== undefined) {
      const first = conversation.turns[earlier]!
      if (first.role !== fields.role || first.content !== fields.content) {
        throw new LineFailure(
          line,
          `turn id ${ConversationTurn.shown(fields.id)} repeats the turn of line ${conversation.lines[earlier]} with a different ` +
            (first.role !== fields.role ? "role" : "content")
        )
      }
    } else {
      ids.set(fields.id, conversation.turns.length)
    }
    conversation.turns.push(this.turn(fields, timestamp))
    conversation.lines.push(line)
  }

  // The fields with each NUL of the content shown as `␀`, reported.
  private withVisibleNul(line: number, fields: TurnFields): TurnFields {
    this.mended.push({ line, reason: `NUL (U+0000) in the content shown as ${visibleNul}` })
    return { ...fields, content: fields.content.replaceAll("\u0000", visibleNul) }
  }

  // Builds a turn from fields checked above (no second validation).
  private turn(fields: TurnFields, timestamp: string | undefined): ConversationTurn.ConversationTurn {
    const metadata: Record<string, unknown> = fields.metadata === undefined ? {} : Object.assign({}, fields.metadata)
    metadata.sourceFormat = this.format
    const props: { -readonly [K in keyof ConversationTurn.ConversationTurn]: ConversationTurn.ConversationTurn[K] } = {
      role: fields.role,
      content: fields.content,
      id: fields.id,
      metadata
    }
    if (timestamp !== undefined) props.timestamp = timestamp
    if (fields.sessionId !== undefined) props.sessionId = fields.sessionId
    return new ConversationTurn.ConversationTurn(props, true)
  }
}

/** Whether `u` is a plain JSON object (not null, not an array). */
export const isRecord: (u: unknown) => u is { [key: string]: unknown } = Predicate.isRecord

/**
 * A stable id for a turn whose source has none: the format, its position in
 * the file and a short hash of its role, timestamp and content. The same file
 * imported twice gives the same ids; two files rarely collide.
 */
export const derivedId = (
  format: string,
  index: number,
  role: string,
  content: string,
  timestamp: string | undefined
): string => `${format}:${index}-${contentHash(role, content, timestamp)}`

/**
 * 12 hex digits identifying a turn's role, timestamp and content: the SHA-1 of
 * the role, timestamp, content length and the whole content. (Earlier
 * versions hashed only the first and last 1,024 characters of a longer
 * content, so the ids of turns over 2,048 characters have changed.)
 */
export const contentHash = (role: string, content: string, timestamp: string | undefined): string =>
  createHash("sha1")
    .update(`${role}\u0000${timestamp ?? ""}\u0000${content.length}\u0000`)
    .update(content)
    .digest("hex")
    .slice(0, 12)

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

/** `text` followed by the given lines, skipping empty pieces. */
export const joinLines = (text: string, lines: ReadonlyArray<string>): string =>
  [text, ...lines].filter((s) => s.length > 0).join("\n")

/** A tool call as stored in metadata (`ToolMetadata.ToolCall`), its arguments a JSON string. */
export type ToolCall = ToolMetadata.ToolCall & { readonly arguments: string }

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
