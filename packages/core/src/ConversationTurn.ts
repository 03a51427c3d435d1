/**
 * One raw turn of an agent conversation: the leaves of the summary DAG.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A conversation turn. `timestamp` is an ISO-8601 string; only its first 19
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
  role: Schema.String,
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
