/**
 * Expansion: a context well under its budget shows more of the summary DAG.
 * Compaction keeps the active context small (its top summaries and the fresh
 * tail), while the store holds every level below them; when the budget has
 * room, a condensed summary is shown as its children instead, and, with
 * `turns`, the newest leaves as their own turns, at the granularity that
 * fits (`internal/leaves.ts`): a leaf's turns in their material form (the
 * digest its summarizer read, `Material`: a tool output as its exit status
 * and result lines), whole while they fit; then, after the summary that does
 * not fit so, the newest turns of its newest leaf in that form, as many as
 * fit; then those turns verbatim, newest first, each whose verbatim form fits
 * and adds at most `maskMinTokens` over its digest. What is stored never
 * changes: expansion is a view, rebuilt on every assembly.
 *
 * Order: the highest depth first (one condensed summary hides the most), the
 * newest first within a depth (the work in progress matters most); an
 * expansion that does not fit is skipped and a smaller one tried. Only the
 * last summaries can become turns, so that the context stays in conversation
 * order: summaries first, then turns. Every turn stays shown once (by a
 * summary above it or as itself), in order, but for the newest turns of a leaf
 * shown in part, which follow its summary.
 *
 * Expansion stops at `(1 - reserve) * budget`, leaving the rest for what is
 * put in front of the context (a session-state header) and for the turns
 * that arrive before the next compaction.
 *
 * @since 0.1.0
 */
import { ActiveContext, CompactionOptions } from "@precis/compaction"
import { OptionSchema, type SummaryRecord, TokenEstimator, Transcript } from "@precis/core"
import { DagStore, type StoreError } from "@precis/store"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Condenser from "./Condenser.js"
import { InvalidContextOptionsError } from "./ContextError.js"
import * as Leaves from "./internal/leaves.js"
import * as Mask from "./internal/mask.js"
import * as Layout from "./Layout.js"

/**
 * The defaults of {@link Options}.
 *
 * @since 0.1.0
 */
export const defaults = {
  reserve: 0.15,
  turns: true,
  maskMinTokens: Mask.defaultMinTokens
} as const

/**
 * The share of the budget an expansion leaves unused: a number in [0, 1].
 *
 * @since 0.1.0
 */
export const Reserve: Schema.Schema<number> = OptionSchema.number({ min: 0, max: 1 })

/**
 * The expansion's settings, their bounds and defaults:
 *
 * | option | bounds | default |
 * |---|---|---|
 * | `budget` | integer >= 1 | none: the context budget, in tokens |
 * | `reserve` | [0, 1] | 0.15: the fraction of the budget expansion leaves unused |
 * | `turns` | boolean | true: also show the newest leaves as their turns (in their material form, then verbatim) |
 * | `maskMinTokens` | integer >= 0 | 500: an expanded turn is shown verbatim only when that adds at most this many tokens over its material form (the mask stage's size) |
 *
 * @since 0.1.0
 */
export const Options = Schema.Struct({
  budget: CompactionOptions.Budget,
  reserve: Schema.optionalWith(Reserve, { default: () => defaults.reserve }),
  turns: Schema.optionalWith(OptionSchema.boolean, { default: () => defaults.turns }),
  maskMinTokens: Schema.optionalWith(OptionSchema.int({ min: 0 }), { default: () => defaults.maskMinTokens })
})

/**
 * The options as given: `budget`, and any of the others of {@link Options}.
 *
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Encoded<typeof Options> {}

/**
 * Applies the defaults to `options` and checks them against {@link Options}:
 * a `reserve` of -0.5 (which would fill past the budget) or a budget of 0 is
 * an `InvalidContextOptionsError` naming it.
 *
 * @since 0.1.0
 */
export const decodeOptions: (
  options: Options
) => Either.Either<Schema.Schema.Type<typeof Options>, InvalidContextOptionsError> = OptionSchema.decode(
  Options,
  (problems) => new InvalidContextOptionsError({ problems })
)

/**
 * What an expansion did: the context, its size, the summaries shown as their
 * children and the leaves shown as their turns.
 *
 * @since 0.1.0
 */
export interface Expanded extends Condenser.Context {
  /** Its tokens as `ActiveContext.count` counts them (the Condenser's measure). */
  readonly tokens: number
  /** The estimate of its text as `Layout.render` shows it: what {@link limit} bounds. */
  readonly rendered: number
  readonly expandedSummaries: number
  readonly expandedLeaves: number
}

/**
 * The most tokens an expansion fills a context to, measured on the text
 * `Layout.render` makes of it (which counts the summary headers that
 * `ActiveContext.count` leaves out): `(1 - reserve) * budget`, rounded down,
 * never below 0.
 *
 * @example
 * ```ts
 * import { Expansion } from "@precis/context"
 * Expansion.limit({ budget: 16_000 }) // 13600
 * ```
 * @since 0.1.0
 */
export const limit = (options: Options): number =>
  Math.max(0, Math.floor(options.budget * (1 - (options.reserve ?? defaults.reserve))))

/**
 * Expands `context` toward {@link limit} from the summary DAG in the store
 * (see the module notes), never past it as measured on the rendered text; a context
 * already at or over it is returned as it is. Summaries the store does not
 * know (a stateless summary, say) are left as they are.
 *
 * @example
 * ```ts
 * import { ActiveContext } from "@precis/compaction"
 * import { Expansion } from "@precis/context"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Effect } from "effect"
 * const program = ActiveContext.load("session-1").pipe(
 *   Effect.flatMap((context) => Expansion.expand(context, { budget: 16_000 })),
 *   Effect.provide(SqliteStore.layer({ filename: "precis.db" }))
 * ) // at most 13600 tokens, rendered, when the active context was under that
 * ```
 * @since 0.1.0
 */
export const expand = (
  context: Condenser.Context,
  options: Options
): Effect.Effect<Expanded, StoreError.StoreError | InvalidContextOptionsError, DagStore.DagStore> =>
  Effect.gen(function*() {
    const checked = yield* decodeOptions(options)
    const estimator = yield* TokenEstimator.TokenEstimator
    const cap = limit(checked)
    const measured = yield* fill(context, checked, cap, false)
    // The steps taken on estimates are checked on the whole text once; should
    // the estimates have drifted past the limit, every step is measured instead.
    const out = measured.rendered <= cap ? measured : yield* fill(context, checked, cap, true)
    return { ...out, tokens: ActiveContext.count(estimator, out) }
  }).pipe(Effect.withSpan("Expansion.expand"))

// Rendering the whole context for every step makes a large budget quadratic
// (a 64k budget took 137 steps). A step is measured instead from the last
// measured size and the blocks it swaps (a summary for its children, a leaf
// for its turns); only a step that lands within `margin` of the limit is
// measured on the rendered text, and the result is measured once at the end.
// With `exact`, every step is measured on the rendered text.
const fill = (
  context: Condenser.Context,
  options: Schema.Schema.Type<typeof Options>,
  cap: number,
  exact: boolean
) =>
  Effect.gen(function*() {
    const store = yield* DagStore.DagStore
    const estimator = yield* TokenEstimator.TokenEstimator
    // Measured as rendered (summary headers included): many small summaries cost more than their texts.
    const measure = (context: Condenser.Context) => estimator.estimate(Layout.render(context))
    const separator = estimator.estimate("\n\n")
    const block = (summary: SummaryRecord.SummaryRecord, index: number) =>
      estimator.estimate(`${Transcript.summaryHeader(index + 1, summary)}\n${summary.content}`)
    let current: Condenser.Context = context
    let rendered = measure(context)
    let estimated = 0 // steps taken on estimates since the last measure
    let expandedSummaries = 0
    let expandedLeaves = 0
    const tryWith = (next: Condenser.Context, delta: number): boolean => {
      // What the estimates may be off by: a token or so per block swapped, and
      // the headers after them renumbered.
      const margin = 16 + 4 * (estimated + 1) + Math.ceil(next.summaries.length / 4)
      const guess = rendered + delta
      if (!exact && guess <= cap - margin) {
        current = next
        rendered = guess
        estimated++
        return true
      }
      if (!exact && guess > cap + margin) return false
      const size = measure(next)
      if (size > cap) return false
      current = next
      rendered = size
      estimated = 0
      return true
    }

    // Condensed summaries: highest depth first, newest first; one that does not fit is skipped.
    const skipped = new Set<string>()
    while (rendered < cap) {
      const summaries = current.summaries
      let pick = -1
      summaries.forEach((s, i) => {
        if (s.depth > 0 && !skipped.has(s.id) && (pick < 0 || s.depth >= summaries[pick]!.depth)) pick = i
      })
      if (pick < 0) break
      const parent = summaries[pick]!
      const children = yield* store.children(parent.id)
      const next = [...summaries.slice(0, pick), ...children, ...summaries.slice(pick + 1)]
      const delta = children.reduce((sum, child, j) => sum + block(child, pick + j) + separator, -separator) -
        block(parent, pick)
      if (children.length > 0 && tryWith({ summaries: next, turns: current.turns }, delta)) expandedSummaries++
      else skipped.add(parent.id)
    }

    // The newest leaves, as their turns: their digests, then verbatim.
    const filling = { current: () => current, tryWith, block, separator }
    if (options.turns) expandedLeaves = yield* Leaves.fill(estimator, filling, options.maskMinTokens)

    return {
      ...current,
      rendered: estimated === 0 ? rendered : measure(current),
      expandedSummaries,
      expandedLeaves
    }
  })

/**
 * Expansion as the last stage of a Condenser pipeline, named `expand`: its
 * report counts the summaries and leaves expanded (`expanded`). A store
 * failure, or options that make no sense (see {@link decodeOptions}), leave
 * the context as it was (a stage never fails).
 *
 * @since 0.1.0
 */
export const stage = (options: Options): Condenser.Stage<DagStore.DagStore> => ({
  name: "expand",
  run: (context) =>
    expand(context, options).pipe(
      Effect.map((out): Condenser.StageOutput =>
        out.expandedSummaries + out.expandedLeaves === 0
          ? { context, counts: {} }
          : {
            context: { summaries: out.summaries, turns: out.turns },
            counts: { expanded: out.expandedSummaries + out.expandedLeaves }
          }
      ),
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning("Expansion: the context is not expanded", error.message), {
          context,
          counts: {}
        })
      )
    )
})
