/**
 * The stateless summarize stage: over the budget, the older turns of a plain
 * list (no store) become one summary, written by the `Summarizer`.
 *
 * @internal
 */
import { CompactionOptions, FreshTail } from "@precis/compaction"
import { Summarizer, SummaryRecord } from "@precis/core"
import * as Effect from "effect/Effect"
import { type Context, type Stage, unchanged } from "./stage.js"
import { firstRequest } from "./turns.js"

/** The defaults: the newest 6 turns kept, the leaf target of a compaction. */
export const defaults = { keepRecentTurns: 6, targetTokens: CompactionOptions.defaults.leafTargetTokens } as const

/**
 * The turns before the newest `keepRecentTurns` (moved earlier to keep a tool
 * pair whole), except the first user request, summarized with the newest
 * summary of the context as prior summary, and appended to the summaries as
 * a leaf that no store holds: id `stateless-leaf-N` (N its position among the
 * summaries), depth 0, the turns' time range and ids. `undefined` when there
 * are no such turns.
 */
export const summarizeOlder = (
  context: Context,
  options: { readonly keepRecentTurns: number; readonly targetTokens: number }
): Effect.Effect<{ readonly context: Context; readonly summarized: number } | undefined, never, Summarizer.Summarizer> =>
  Effect.gen(function*() {
    const split = FreshTail.start(context.turns, options.keepRecentTurns)
    const first = firstRequest(context.turns)
    const older = context.turns.slice(0, split).filter((_, i) => i !== first)
    if (older.length === 0) return undefined
    const summarizer = yield* Summarizer.Summarizer
    const prior = context.summaries[context.summaries.length - 1]
    const summary = yield* summarizer.summarizeTurns(older, {
      priorSummary: prior?.content,
      targetTokens: options.targetTokens
    })
    const range = SummaryRecord.timeRange(older.map((turn) => ({ start: turn.timestamp, end: turn.timestamp })))
    const ids = older.flatMap((turn) => (turn.id === undefined ? [] : [turn.id]))
    const record = SummaryRecord.make({
      id: `stateless-leaf-${context.summaries.length + 1}`,
      depth: 0,
      content: summary.text,
      tokenEstimate: summary.outputTokens,
      tier: summary.tier,
      ...(range.start === undefined ? {} : { timeRangeStart: range.start }),
      ...(range.end === undefined ? {} : { timeRangeEnd: range.end }),
      ...(ids.length === 0 ? {} : { sourceTurnIds: ids })
    })
    return {
      context: {
        summaries: [...context.summaries, record],
        turns: context.turns.filter((_, i) => i === first || i >= split)
      },
      summarized: older.length
    }
  })

/** The stateless summarize stage's settings. */
export interface StageOptions {
  /** The budget: nothing is summarized while the context fits. */
  readonly maxTokens: number
  /** The newest turns kept verbatim (moved earlier to keep a tool pair whole). Default 6. */
  readonly keepRecentTurns?: number | undefined
  /** The summary's `targetTokens`. Default the leaf target of a compaction (1,200). */
  readonly targetTokens?: number | undefined
}

/** The stateless summarize stage: over `maxTokens`, {@link summarizeOlder}. */
export const stage = (options: StageOptions): Stage<Summarizer.Summarizer> => ({
  name: "summarize",
  run: (context, tokens) =>
    tokens <= options.maxTokens
      ? Effect.succeed(unchanged(context))
      : Effect.map(
        summarizeOlder(context, {
          keepRecentTurns: options.keepRecentTurns ?? defaults.keepRecentTurns,
          targetTokens: options.targetTokens ?? defaults.targetTokens
        }),
        (out) => out === undefined ? unchanged(context) : { context: out.context, counts: { summarized: out.summarized } }
      )
})
