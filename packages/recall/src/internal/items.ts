/**
 * The entries of the recall tools' pages (a summary or a turn, with its
 * tokens) and the paging of them within a token cap.
 *
 * @internal
 */
import { ActiveContext } from "@precis/compaction"
import { Summary, type SummaryRecord, type TokenEstimator } from "@precis/core"
import type { TurnStore } from "@precis/store"
import * as Schema from "effect/Schema"

/** One entry of a page: a summary or a turn, its content (cut when alone it exceeds the cap: `truncated`) and its tokens. */
export const ExpandedItem = Schema.Struct({
  kind: Schema.Literal("summary", "turn"),
  id: Schema.String,
  seq: Schema.optional(Schema.Int),
  role: Schema.optional(Schema.String),
  timestamp: Schema.optional(Schema.String),
  depth: Schema.optional(Schema.Int),
  tier: Schema.optional(Summary.Tier),
  content: Schema.String,
  tokens: Schema.Int,
  truncated: Schema.Boolean,
  hint: Schema.optional(Schema.String)
})

export const summaryItem = (estimator: TokenEstimator.Service, s: SummaryRecord.SummaryRecord) => ({
  kind: "summary" as const,
  id: s.id,
  depth: s.depth,
  ...(s.tier === undefined ? {} : { tier: s.tier }),
  content: s.content,
  tokens: ActiveContext.summaryTokens(estimator, s),
  truncated: false
})

/**
 * What a turn with no text shows: an assistant turn that only thought (its
 * reasoning is not in the transcript, or came as blank text).
 */
export const REASONING_ONLY = "(no text: this turn holds only the model's reasoning, which the transcript does not keep)"

export const turnItem = (estimator: TokenEstimator.Service, t: TurnStore.StoredTurn) => ({
  kind: "turn" as const,
  id: t.id,
  seq: t.seq,
  role: t.role,
  ...(t.timestamp === undefined ? {} : { timestamp: t.timestamp }),
  content: t.content.trim().length === 0 ? REASONING_ONLY : t.content,
  tokens: ActiveContext.turnTokens(estimator, t),
  truncated: false
})

export type Item = typeof ExpandedItem.Type

/** The most tokens one `read` returns. */
export const MAX_READ_TOKENS = 20_000

/** What a turn cut to `maxTokens` says: how `read` gives it whole (or as much of it as one read can). */
const readWhole = (session: string, item: Item, maxTokens: number): string => {
  const call = JSON.stringify({ session, id: item.id, around: 0, maxTokens: Math.min(item.tokens, MAX_READ_TOKENS) })
  return `cut to ${maxTokens} of its ${item.tokens} tokens: read ${call} gives ` +
    (item.tokens <= MAX_READ_TOKENS ? "it whole" : `its first ${MAX_READ_TOKENS} tokens (the most one read returns)`)
}

/**
 * The page of `items` from `offset`: as many as fit in `maxTokens`, at least
 * one (cut to the cap when alone it exceeds it; a turn cut says how to read
 * it whole when `session` is given).
 */
export const page = (
  estimator: TokenEstimator.Service,
  items: ReadonlyArray<Item>,
  offset: number,
  maxTokens: number,
  session?: string
): { readonly items: ReadonlyArray<Item>; readonly tokens: number; readonly nextOffset: number | null } => {
  const out: Array<Item> = []
  let tokens = 0
  for (const item of items.slice(offset)) {
    if (tokens + item.tokens <= maxTokens) {
      out.push(item)
      tokens += item.tokens
      continue
    }
    if (out.length === 0) {
      const content = estimator.truncate(item.content, maxTokens)
      const cut = Math.min(maxTokens, estimator.estimate(content))
      const hint = session !== undefined && item.kind === "turn" ? { hint: readWhole(session, item, maxTokens) } : {}
      out.push({ ...item, content, tokens: cut, truncated: true, ...hint })
      tokens = cut
    }
    break
  }
  const next = offset + out.length
  return { items: out, tokens, nextOffset: next < items.length ? next : null }
}

