/**
 * How a context is laid out for a model, from the most stable part to the
 * least, so that a provider's prompt cache keeps as much of it as it can:
 *
 * 1. what never changes: the caller's `system` text, then the `pinned` turns
 *    (the session's first request);
 * 2. the summaries (changed only when a compaction writes), with the recall
 *    note when asked for;
 * 3. the session-state header when it is placed in the frame
 *    (`statePlacement: "frame"`, the default: refreshed at compactions only);
 * 4. the turns, appended as they come;
 * 5. last, the session-state header when it is placed at the end
 *    (`statePlacement: "end"`: refreshed at every assembly, the only
 *    volatile block).
 *
 * {@link blocks} is that order, one block per message; {@link render} (one
 * text), {@link toMessages} (chat messages) and `AiPrompt.toPrompt` (an
 * `@effect/ai` Prompt) are all made from it, so they keep the same order.
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
  share: number = defaultStateShare,
  options: SessionState.RenderOptions = {}
): string =>
  SessionState.render(
    state,
    budget === undefined ? SessionState.defaultMaxTokens : Math.floor(budget * share),
    estimator,
    options
  )

/**
 * Where the session-state header goes: in the `frame` (after the summaries,
 * before the turns; refreshed only when the context is rebuilt) or at the
 * `end` (after the turns; refreshed at every assembly, so it is the volatile
 * tail, after the cache breakpoint).
 *
 * @since 0.1.0
 */
export type StatePlacement = "frame" | "end"

/**
 * What {@link render} and {@link toMessages} read: summaries and turns, such
 * as an `ActiveContext` (of `@precis/compaction`), a context the `Condenser`
 * fitted to a budget or an `Assembler.Assembled`; and, when there are any,
 * the caller's `system` text, the `pinned` turns (the first request), and the
 * session-state `header` with its placement (default `"frame"`).
 *
 * @since 0.1.0
 */
export interface Renderable {
  readonly system?: string | undefined
  readonly pinned?: ReadonlyArray<ConversationTurn.ConversationTurn> | undefined
  readonly header?: string | undefined
  readonly statePlacement?: StatePlacement | undefined
  /** Whether the summaries are followed by {@link recallNote} (a `RenderOptions.recallNote` given wins). */
  readonly recallNote?: boolean | undefined
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
   * Follow the summaries with {@link recallNote}: tells the model that the
   * recall tools (`search`, `expand`, `describe` of `@precis/recall`) exist
   * and names the summary ids to expand. Off by default; nothing is added
   * without summaries.
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

/**
 * One block of a laid-out context, one message of {@link toMessages}: its
 * kind, the role of its message, the message's `content`, its `text` in
 * {@link render}, and whether it is `volatile` (changes at every assembly).
 *
 * @since 0.1.0
 */
export interface Block {
  readonly kind: "system" | "request" | "summaries" | "state" | "turn"
  readonly role: "system" | "user" | "assistant"
  readonly content: string
  readonly text: string
  readonly volatile: boolean
}

// A timestamp's date and time of day (`YYYY-MM-DD`, `HH:MM:SS`), when it holds both.
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})/

/**
 * A turn's line in {@link render}: `[YYYY-MM-DDTHH:MM:SS] role: content`
 * (`Transcript.formatTurn`), but `[HH:MM:SS] role: content` when `previous`,
 * the turn rendered right before it, has the same date: the date once, and
 * again when it changes. Never longer than `Transcript.formatTurn`, which
 * budgets count.
 *
 * @example
 * ```ts
 * import { Layout } from "@precis/context"
 * Layout.turnText(
 *   { role: "assistant", content: "done", timestamp: "2026-02-12T16:02:31Z" },
 *   { role: "user", content: "go", timestamp: "2026-02-12T16:02:25Z" }
 * ) // "[16:02:31] assistant: done"
 * ```
 * @since 0.1.0
 */
export const turnText = (
  turn: Pick<ConversationTurn.ConversationTurn, "role" | "content" | "timestamp">,
  previous: Pick<ConversationTurn.ConversationTurn, "timestamp"> | undefined
): string => {
  const at = DATE_TIME.exec(turn.timestamp ?? "")
  const before = DATE_TIME.exec(previous?.timestamp ?? "")
  return at !== null && before !== null && at[1] === before[1]
    ? Transcript.formatTurn({ ...turn, timestamp: at[2] })
    : Transcript.formatTurn(turn)
}

const turnBlock = (
  turn: ConversationTurn.ConversationTurn,
  kind: "request" | "turn",
  previous: ConversationTurn.ConversationTurn | undefined
): Block => ({
  kind,
  // Roles other than these (tool results, say) are user messages prefixed with `[role]`.
  ...(turn.role === "user" || turn.role === "assistant" || turn.role === "system"
    ? { role: turn.role, content: turn.content }
    : { role: "user" as const, content: `[${Escape.line(turn.role)}] ${turn.content}` }),
  text: turnText(turn, previous),
  volatile: false
})

/**
 * The line that opens the summaries' block, in {@link render} as in {@link toMessages}.
 *
 * @since 0.1.0
 */
export const summariesLabel = "Summary of the earlier conversation, oldest first:"

const summariesBlock = (context: Renderable, options: RenderOptions): Array<Block> => {
  if (context.summaries.length === 0) return []
  const note = (options.recallNote ?? context.recallNote) === true ? recallNote(context.summaries) : ""
  // One text as message and in the rendering, so that a Prompt is never longer than the rendering it is measured by.
  const summaries = withoutPinned(Transcript.renderSummaries(context.summaries), context.pinned ?? [])
  const text = `${summariesLabel}\n\n${summaries}${note.length > 0 ? `\n\n${note}` : ""}`
  return [{ kind: "summaries", role: "user", content: text, text, volatile: false }]
}

// A turn line's text without its label (`[14:02] user: …` is `user: …`).
const unlabelled = (line: string) => line.replace(/^\[[^\]\n]*\] /, "")

/**
 * The summaries' text without the lines that repeat a pinned request (a summary starts from the first
 * request, which the context shows first, verbatim): each pinned turn's first line, whole or cut (`…`),
 * is dropped once.
 */
const withoutPinned = (text: string, pinned: ReadonlyArray<ConversationTurn.ConversationTurn>): string => {
  const heads = pinned.map((turn) => `${turn.role}: ${turn.content.split("\n", 1)[0]!.trim()}`)
  if (heads.length === 0) return text
  const left = new Set(heads)
  return text.split("\n").filter((line) => {
    const body = unlabelled(line).trimEnd()
    const head = [...left].find((h) => body === h || (body.endsWith("…") && body.length > 10 && h.startsWith(body.slice(0, -1))))
    if (head === undefined) return true
    left.delete(head)
    return false
  }).join("\n")
}

const stateBlock = (context: Renderable, at: StatePlacement): Array<Block> =>
  context.header === undefined || context.header.length === 0 || (context.statePlacement ?? "frame") !== at
    ? []
    : [{ kind: "state", role: "user", content: context.header, text: context.header, volatile: at === "end" }]

const hasFrameHeader = (context: Renderable): boolean =>
  context.header !== undefined && context.header.length > 0 && (context.statePlacement ?? "frame") === "frame"

/**
 * A context's blocks in their order, most stable first (see the module notes).
 *
 * @since 0.1.0
 */
export const blocks = (context: Renderable, options: RenderOptions = {}): Array<Block> => [
  ...(context.system === undefined || context.system.length === 0
    ? []
    : [{ kind: "system" as const, role: "system" as const, content: context.system, text: context.system, volatile: false }]),
  ...(context.pinned ?? []).map((turn, i, all) => turnBlock(turn, "request", all[i - 1])),
  ...summariesBlock(context, options),
  ...stateBlock(context, "frame"),
  // The first turn after the summaries or the header shows its date; one right after another turn, only when it changed.
  ...context.turns.map((turn, i, all) =>
    turnBlock(
      turn,
      "turn",
      i > 0
        ? all[i - 1]
        : context.summaries.length === 0 && !hasFrameHeader(context)
        ? context.pinned?.at(-1)
        : undefined
    )
  ),
  ...stateBlock(context, "end")
]

/**
 * The index of the last block that is not volatile (-1 when there is none):
 * where a prompt cache can stop.
 *
 * @since 0.1.0
 */
export const lastStable = (all: ReadonlyArray<Block>): number => {
  let i = all.length - 1
  while (i >= 0 && all[i]!.volatile) i--
  return i
}

const isTurn = (block: Block) => block.kind === "turn" || block.kind === "request"

// Turns one per line, every other block apart by a blank line.
const join = (all: ReadonlyArray<Block>): string =>
  all.map((block, i) => i === 0 ? block.text : `${isTurn(block) && isTurn(all[i - 1]!) ? "\n" : "\n\n"}${block.text}`)
    .join("")

/**
 * A context as one text: its {@link blocks}, turns one per line, the other
 * blocks apart by blank lines. The text of the blocks before the volatile
 * one is {@link renderStable}, so between two rebuilds of a context one
 * rendering is the previous one with text added at its end (the volatile
 * block excepted).
 *
 * @since 0.1.0
 */
export const render = (context: Renderable, options: RenderOptions = {}): string => join(blocks(context, options))

/**
 * The part of {@link render}'s text before the volatile block: all of it
 * when the header is not at the end.
 *
 * @since 0.1.0
 */
export const renderStable = (context: Renderable, options: RenderOptions = {}): string =>
  join(blocks(context, options).filter((block) => !block.volatile))

/**
 * A context as chat messages, one per {@link blocks} block: the `system` text
 * as a system message, the pinned turns and the turns as their own messages
 * (roles other than `user`, `assistant` and `system`, tool results say,
 * become `user` messages prefixed with `[role]`), the summaries (with
 * `recallNote`, the {@link recallNote} ends them) and the session-state header
 * each as one user message, in the order of {@link render}.
 *
 * @since 0.1.0
 */
export const toMessages = (context: Renderable, options: RenderOptions = {}): Array<Provider.ChatMessage> =>
  blocks(context, options).map((block) => ({ role: block.role, content: block.content }))

/**
 * The number of leading characters `a` and `b` share, whole code points.
 *
 * @since 0.1.0
 */
export const commonPrefix = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  const last = i > 0 && i < n ? a.charCodeAt(i - 1) : 0
  return last >= 0xd800 && last <= 0xdbff ? i - 1 : i
}

/**
 * The tokens `text` shares as a prefix with `previous` (0 without one): what
 * a provider's prompt cache reads at its reduced price when `text` is sent
 * after `previous`.
 *
 * @example
 * ```ts
 * import { Layout } from "@precis/context"
 * import { TokenEstimator } from "@precis/core"
 * Layout.sharedTokens(TokenEstimator.approximate, "abcdefgh-1", "abcdefgh-2") // 2
 * ```
 * @since 0.1.0
 */
export const sharedTokens = (estimator: TokenEstimator.Service, previous: string | undefined, text: string): number => {
  const shared = previous === undefined ? 0 : commonPrefix(previous, text)
  return shared === 0 ? 0 : estimator.estimate(text.slice(0, shared))
}
