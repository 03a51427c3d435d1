/**
 * How a context is laid out for a model, from the most stable part to the
 * least: the session-state header first (its share of the budget:
 * {@link header}), then the summaries, then the turns, and the recall note
 * last; as one text ({@link render}) or as chat messages ({@link toMessages}).
 *
 * @since 0.1.0
 */
import { type ConversationTurn, Escape, type Provider, SessionState, type SummaryRecord, type TokenEstimator, Transcript } from "@precis/core"

/**
 * The share of a budget the session-state header may take by default (15%).
 *
 * @since 0.1.0
 */
export const defaultStateShare = 0.15

/**
 * The session-state header for a context of `budget` tokens: the state
 * rendered within `share * budget` tokens (`SessionState.render`), or within
 * `SessionState.defaultMaxTokens` without a budget.
 *
 * @since 0.1.0
 */
export const header = (
  estimator: TokenEstimator.Service,
  state: SessionState.State,
  budget?: number | undefined,
  share: number = defaultStateShare
): string =>
  SessionState.render(
    state,
    budget === undefined ? SessionState.defaultMaxTokens : Math.floor(budget * share),
    estimator
  )

/**
 * What {@link render} and {@link toMessages} read: summaries and turns, such
 * as an `ActiveContext` (of `@precis/compaction`), a context the `Condenser`
 * fitted to a budget or an `Assembler.Assembled`, and the session-state
 * header to put first (see {@link header}).
 *
 * @since 0.1.0
 */
export interface Renderable {
  readonly header?: string | undefined
  readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
}

/**
 * Options of {@link render} and {@link toMessages}.
 *
 * @since 0.1.0
 */
export interface RenderOptions {
  /**
   * End with {@link recallNote}: tells the model that the recall tools
   * (`search`, `expand`, `describe` of `@precis/recall`) exist and names the
   * summary ids to expand. Off by default; nothing is added without summaries.
   */
  readonly recallNote?: boolean | undefined
}

/**
 * A short note telling a model it can recall what the summaries compress, with
 * the tools of `@precis/recall`'s toolkit and the ids of `summaries`.
 *
 * @example
 * ```ts
 * import { Layout } from "@precis/context"
 * Layout.recallNote([]) // "" (no summaries, no note)
 * ```
 * @since 0.1.0
 */
export const recallNote = (summaries: ReadonlyArray<SummaryRecord.SummaryRecord>): string =>
  summaries.length === 0 ? "" : [
    "Earlier turns are compacted into the summaries above. To recall details, call the tools:",
    "search (full-text search of turns and summaries), expand (a summary's children or source turns)",
    `and describe (the summary DAG at a glance). Summary ids: ${summaries.map((s) => Escape.line(s.id)).join(", ")}.`
  ].join(" ")

const noteOf = (context: Renderable, options: RenderOptions): string =>
  options.recallNote === true ? recallNote(context.summaries) : ""

/**
 * A context as chat messages: the session-state header as a system
 * message first (when there is one), then one system message with the
 * summaries (when there are any; with `recallNote`, the {@link recallNote}
 * ends it), then one message per turn. Roles other than `user`, `assistant`
 * and `system` (tool results, say) become `user` messages prefixed with `[role]`.
 *
 * @since 0.1.0
 */
export const toMessages = (context: Renderable, options: RenderOptions = {}): Array<Provider.ChatMessage> => {
  const messages: Array<Provider.ChatMessage> = []
  if (context.header !== undefined && context.header.length > 0) messages.push({ role: "system", content: context.header })
  if (context.summaries.length > 0) {
    const note = noteOf(context, options)
    messages.push({
      role: "system",
      content: `Summary of the earlier conversation, oldest first:\n\n${Transcript.renderSummaries(context.summaries)}` +
        (note.length > 0 ? `\n\n${note}` : "")
    })
  }
  for (const turn of context.turns) {
    messages.push(
      turn.role === "user" || turn.role === "assistant" || turn.role === "system"
        ? { role: turn.role, content: turn.content }
        : { role: "user", content: `[${Escape.line(turn.role)}] ${turn.content}` }
    )
  }
  return messages
}

/**
 * A context as one text: the session-state header (when there is
 * one), the rendered summaries, then the turns formatted one per line, apart
 * by blank lines; with `recallNote`, a blank line and the {@link recallNote}
 * end it.
 *
 * @since 0.1.0
 */
export const render = (context: Renderable, options: RenderOptions = {}): string =>
  [
    context.header ?? "",
    Transcript.renderSummaries(context.summaries),
    Transcript.formatTurns(context.turns),
    noteOf(context, options)
  ]
    .filter((part) => part.length > 0)
    .join("\n\n")
