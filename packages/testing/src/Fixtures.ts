/**
 * Small builders for turns, summary records and leaves to insert in tests.
 *
 * @since 0.1.0
 */
import { ConversationTurn, SummaryRecord } from "@precis/core"
import type { DagStore } from "@precis/store"

/**
 * A turn with a role, content and optional extra fields.
 *
 * @since 0.1.0
 */
export const turn = (
  role: string,
  content: string,
  fields: Omit<ConstructorParameters<typeof ConversationTurn.ConversationTurn>[0], "role" | "content"> = {}
): ConversationTurn.ConversationTurn => ConversationTurn.make({ ...fields, role, content })

/**
 * `count` alternating user/assistant turns, one minute apart from `start`,
 * with ids `t0`, `t1`, ... and contents from `content(i)`.
 *
 * @since 0.1.0
 */
export const conversation = (
  count: number,
  options: {
    readonly start?: string
    readonly sessionId?: string
    readonly content?: (i: number) => string
  } = {}
): ReadonlyArray<ConversationTurn.ConversationTurn> => {
  const start = Date.parse(options.start ?? "2025-01-01T00:00:00Z")
  const content = options.content ?? ((i: number) => `message ${i}`)
  return Array.from({ length: count }, (_, i) =>
    ConversationTurn.make({
      role: i % 2 === 0 ? "user" : "assistant",
      content: content(i),
      id: `t${i}`,
      timestamp: new Date(start + i * 60_000).toISOString(),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId })
    }))
}

/**
 * A summary record with defaults for the fields a test does not care about.
 *
 * @since 0.1.0
 */
export const summary = (
  fields: Partial<ConstructorParameters<typeof SummaryRecord.SummaryRecord>[0]> & { readonly content: string }
): SummaryRecord.SummaryRecord => SummaryRecord.make({ id: "s", depth: 0, ...fields })

/**
 * A leaf to insert (`DagStore.insertLeaf`) over `turnIds`: tier `normal`, a
 * token estimate of 1.
 *
 * @since 0.1.0
 */
export const leaf = (sessionId: string, turnIds: ReadonlyArray<string>, content = "leaf"): DagStore.NewLeaf => ({
  sessionId,
  content,
  tier: "normal",
  tokenEstimate: 1,
  turnIds
})
