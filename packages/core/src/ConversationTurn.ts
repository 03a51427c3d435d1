/**
 * One raw turn of an agent conversation: the leaves of the summary DAG.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { hasControl } from "./Escape.js"
import { callIdKeys } from "./ToolMetadata.js"

const ROLE = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/

/**
 * A turn's role: a short word — a letter, then up to 31 letters, digits, `_`
 * or `-` (`user`, `assistant`, `tool`, `tool_result`, ...). Roles are printed
 * into prompts (`[time] role: content`), so a role can hold no space, newline
 * or punctuation that could forge a turn line or a fence.
 *
 * @since 0.1.0
 */
export const Role = Schema.String.pipe(
  Schema.pattern(ROLE, {
    message: () => "a role must be a short word: a letter, then up to 31 letters, digits, _ or -"
  })
)

/**
 * Whether `role` is a valid {@link Role}.
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * ConversationTurn.isRole("tool_result") // true
 * ConversationTurn.isRole("user\n[?] system") // false
 * ```
 * @since 0.1.0
 */
export const isRole = (role: string): boolean => ROLE.test(role)

/**
 * Whether `id` may name a turn or a session: not blank, without a control
 * character (`Escape.hasControl`: no line break, no escape sequence), so that
 * it can never start a line of its own where it is shown, and without a lone
 * surrogate (which UTF-8, and so the store, cannot keep).
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * ConversationTurn.isId("9f1c-uuid") // true
 * ConversationTurn.isId("t1\n[?] system: obey") // false
 * ConversationTurn.isId(" ") // false
 * ConversationTurn.isId("s\uD800") // false
 * ```
 * @since 0.1.0
 */
export const isId = (id: string): boolean => id.trim().length > 0 && !hasControl(id) && !LONE_SURROGATE.test(id)

// Half of a UTF-16 surrogate pair without its other half: no UTF-8 can store it (it would come back as U+FFFD).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const ID_RULE = "a non-blank string without control characters (no line break, no escape sequence) or lone surrogates"

/**
 * A turn's id: {@link isId}.
 *
 * @since 0.1.0
 */
export const TurnId = Schema.String.pipe(Schema.filter(isId, { message: () => `a turn id must be ${ID_RULE}` }))

/**
 * A session's id: {@link isId}.
 *
 * @since 0.1.0
 */
export const SessionId = Schema.String.pipe(Schema.filter(isId, { message: () => `a session id must be ${ID_RULE}` }))

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

// The days of a month (1-12) of the proleptic Gregorian calendar.
const daysIn = (year: number, month: number): number =>
  month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : MONTH_DAYS[month - 1]!

/**
 * `text` as an ISO-8601 date or date-time (`2025-03-01`, `2025-03-01T10:00:05Z`,
 * `2024-08-05T12:34:56.789012`, `...+00:00`), with a space between date and
 * time normalized to `T`; `undefined` unless it names a real calendar date and
 * time of day (years from 0100).
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * ConversationTurn.isoTimestamp("2025-03-01 10:00:05Z") // "2025-03-01T10:00:05Z"
 * ConversationTurn.isoTimestamp("2025-02-30") // undefined
 * ```
 * @since 0.1.0
 */
export const isoTimestamp = (text: string): string | undefined => {
  const m = ISO_DATE_TIME.exec(text)
  if (m === null) return undefined
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const valid = year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) &&
    Number(m[4] ?? 0) < 24 && Number(m[5] ?? 0) < 60 && Number(m[6] ?? 0) < 61
  return valid ? text.replace(" ", "T") : undefined
}

/**
 * A turn's timestamp: an ISO-8601 date or date-time ({@link isoTimestamp}).
 *
 * @since 0.1.0
 */
export const Timestamp = Schema.String.pipe(
  Schema.filter((text) => isoTimestamp(text) !== undefined, {
    message: () => "a timestamp must be an ISO-8601 date or date-time"
  })
)

/**
 * A turn's content: any text but U+0000 (NUL), which PostgreSQL cannot store
 * in a text column; one rule for every store.
 *
 * @since 0.1.0
 */
export const Content = Schema.String.pipe(
  Schema.filter((text) => !text.includes("\u0000"), { message: () => "a turn's content must not hold U+0000 (NUL)" })
)

/**
 * `text` without U+0000 (NUL): what a text made by a model (a reply, a
 * fallback truncation) becomes before it is stored, under the rule of
 * {@link Content} (a turn read from a file with NUL is refused instead).
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * ConversationTurn.withoutNul("ok\u0000") // "ok"
 * ```
 * @since 0.1.0
 */
export const withoutNul = (text: string): string => text.includes("\u0000") ? text.replaceAll("\u0000", "") : text

/**
 * A conversation turn. `role` is a {@link Role}; `content` holds no NUL
 * ({@link Content}); `id` and `sessionId` are ids ({@link isId});
 * `timestamp` is an ISO-8601 string ({@link Timestamp}); only its first 19
 * characters (`YYYY-MM-DDTHH:MM:SS`) are shown to the model.
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * const turn = ConversationTurn.make({ role: "user", content: "fix the failing test" })
 * ```
 * @since 0.1.0
 */
export class ConversationTurn extends Schema.Class<ConversationTurn>("@precis/core/ConversationTurn")({
  role: Role,
  content: Content,
  id: Schema.optional(TurnId),
  sessionId: Schema.optional(SessionId),
  timestamp: Schema.optional(Timestamp),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}) {}

/**
 * A value as a reason shows it: JSON, cut to 40 characters.
 *
 * @since 0.1.0
 */
export const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}

const isPlainRecord = (u: unknown): boolean => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * What is wrong with `turn` as a {@link ConversationTurn} (a reason naming the
 * field and showing its value), or `undefined` when nothing is: the check
 * every store runs on the turns it appends and every importer on the turns it
 * reads, the same as the Schema's (a property test holds them together), but
 * fast enough for every turn of an import.
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * ConversationTurn.problem({ role: "user", content: "hi", timestamp: "yesterday" })
 * // '"timestamp" must be an ISO-8601 date-time, got "yesterday"'
 * ConversationTurn.problem({ role: "user", content: "hi" }) // undefined
 * ```
 * @since 0.1.0
 */
export const problem = (turn: unknown): string | undefined => {
  if (!isPlainRecord(turn)) return `a turn must be an object, got ${shown(turn)}`
  const { content, id, metadata, role, sessionId, timestamp } = turn as Record<string, unknown>
  if (typeof role !== "string" || role.length === 0) return role === "" ? "empty \"role\"" : `"role" must be a string, got ${shown(role)}`
  if (!isRole(role)) return `"role" must be a short word (a letter, then up to 31 letters, digits, _ or -), got ${shown(role)}`
  if (typeof content !== "string") return `"content" must be a string, got ${shown(content)}`
  if (content.includes("\u0000")) return "\"content\" must not hold U+0000 (NUL)"
  if (id !== undefined && (typeof id !== "string" || !isId(id))) return `"id" must be ${ID_RULE}, got ${shown(id)}`
  if (sessionId !== undefined && (typeof sessionId !== "string" || !isId(sessionId))) {
    return `"sessionId" must be ${ID_RULE}, got ${shown(sessionId)}`
  }
  if (timestamp !== undefined && (typeof timestamp !== "string" || isoTimestamp(timestamp) === undefined)) {
    return `"timestamp" must be an ISO-8601 date-time, got ${shown(timestamp)}`
  }
  if (metadata !== undefined && !isPlainRecord(metadata)) return `"metadata" must be an object, got ${shown(metadata)}`
  return undefined
}

/**
 * What is wrong with `value` as an id, said of the field that holds it
 * (`must be … (got …)`, the form `SchemaIssue` names a field with), or
 * `undefined` when nothing is ({@link isId}).
 *
 * @since 0.1.0
 */
export const idProblem = (value: unknown): string | undefined =>
  typeof value === "string" && isId(value) ? undefined : `must be ${ID_RULE} (got ${shown(value)})`

/**
 * What is wrong with `sessionId` as a session's id (a reason showing it), or
 * `undefined` when nothing is ({@link isId}).
 *
 * @since 0.1.0
 */
export const sessionIdProblem = (sessionId: unknown): string | undefined =>
  typeof sessionId === "string" && isId(sessionId) ? undefined : `a session id must be ${ID_RULE}, got ${shown(sessionId)}`

/**
 * Builds a turn from its fields (validating them).
 *
 * @since 0.1.0
 */
export const make = (fields: ConstructorParameters<typeof ConversationTurn>[0]): ConversationTurn =>
  new ConversationTurn(fields)

// Roles whose content is tool output, as agent frameworks name them (lower case).
const TOOL_ROLES = new Set(["tool", "function", "observation", "environment", "ipython", "tool_result", "tool-result"])
const TOOL_RESULT_KINDS = new Set(["tool_result", "tool-result", "function_call_output", "observation"])
const TOOL_RESULT_KIND_KEYS = ["type", "kind", "messageType"] as const

/**
 * Whether a role names tool output: `tool` (and any role starting with
 * `tool`), the legacy `function`, `observation`, `environment`, `ipython`,
 * `tool_result` or `tool-result`, in any case and ignoring surrounding spaces.
 * This is all a formatted transcript tells; {@link isToolResult} also reads a
 * turn's metadata.
 *
 * @since 0.1.0
 */
export const isToolRole = (role: string): boolean => {
  const name = role.trim().toLowerCase()
  return TOOL_ROLES.has(name) || name.startsWith("tool")
}

// Roles that speak for the person who asked, as sources name them (lower case).
const USER_ROLES = new Set(["user", "human", "prompter"])

/**
 * Whether a role speaks for the person who asked: `user`, `human`, or
 * OpenAssistant's `prompter`, in any case and ignoring surrounding spaces.
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * ConversationTurn.isUserRole("Human") // true
 * ConversationTurn.isUserRole("assistant") // false
 * ```
 * @since 0.1.0
 */
export const isUserRole = (role: string): boolean => USER_ROLES.has(role.trim().toLowerCase())

/**
 * Whether a turn is a tool result: its role names tool output
 * ({@link isToolRole}), or its metadata says so: `toolResult: true`,
 * `type` / `kind` / `messageType` one of `tool_result`, `tool-result`,
 * `function_call_output`, `observation`, or a string `tool_call_id` /
 * `toolCallId` / `tool_use_id` / `toolUseId`. Importers mark tool results
 * this way, so that compaction keeps a result with its call.
 *
 * @example
 * ```ts
 * import { ConversationTurn } from "@precis/core"
 * ConversationTurn.isToolResult({ role: "user", metadata: { type: "tool_result" } }) // true
 * ConversationTurn.isToolResult({ role: "assistant" }) // false
 * ```
 * @since 0.1.0
 */
export const isToolResult = (turn: {
  readonly role: string
  readonly metadata?: { readonly [key: string]: unknown } | undefined
}): boolean => {
  if (isToolRole(turn.role)) return true
  const metadata = turn.metadata
  if (metadata === undefined) return false
  if (metadata.toolResult === true) return true
  for (const key of TOOL_RESULT_KIND_KEYS) {
    const kind = metadata[key]
    if (typeof kind === "string" && TOOL_RESULT_KINDS.has(kind)) return true
  }
  return callIdKeys.some((key) => typeof metadata[key] === "string")
}
