/**
 * One raw turn of an agent conversation: the leaves of the summary DAG.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
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
 * A conversation turn. `role` is a {@link Role}; `timestamp` is an ISO-8601
 * string; only its first 19 characters (`YYYY-MM-DDTHH:MM:SS`) are shown to
 * the model.
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
  content: Schema.String,
  id: Schema.optional(Schema.String),
  sessionId: Schema.optional(Schema.String),
  timestamp: Schema.optional(Schema.String),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}) {}

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
 * @since 0.3.0
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
