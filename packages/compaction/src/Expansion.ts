/**
 * Expansion: a context well under its budget shows more of the summary DAG.
 * Compaction keeps the active context small (its top summaries and the fresh
 * tail), while the store holds every level below them; when the budget has
 * room, a condensed summary is shown as its children instead, and, with
 * `turns`, the newest leaves as their own turns (old tool output masked as the
 * Condenser's mask stage does). What is stored never changes: expansion is a
 * view, rebuilt on every assembly.
 *
 * Order: the highest depth first (one condensed summary hides the most), the
 * newest first within a depth (the work in progress matters most); an
 * expansion that does not fit is skipped and a smaller one tried. Only the
 * last summaries can become turns, so that the context stays in conversation
 * order: summaries first, then turns. Every turn stays shown exactly once (by
 * a summary above it or as itself), in order.
 *
 * Expansion stops at `(1 - reserve) * budget`, leaving the rest for what is
 * put in front of the context (a session-state header) and for the turns
 * that arrive before the next compaction.
 *
 * @since 0.3.0
 */
import { TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"
import * as ActiveContext from "./ActiveContext.js"
import type * as Condenser from "./Condenser.js"
import * as Mask from "./internal/mask.js"
import { MemoryStore, type StoreError } from "./MemoryStore.js"

/**
 * The expansion's settings.
 *
 * @since 0.3.0
 */
export interface Options {
  /** The context budget, in tokens. */
  readonly budget: number
  /** Fraction of the budget expansion leaves unused. Default 0.15. */
  readonly reserve?: number | undefined
  /** Also show the newest leaves as their turns, old tool output masked. Default true. */
  readonly turns?: boolean | undefined
  /** Tool results of at most this many tokens are never masked in expanded turns. Default 500 (the mask stage's). */
  readonly maskMinTokens?: number | undefined
}

/**
 * The defaults of {@link Options}.
 *
 * @since 0.3.0
 */
export const defaults = {
  reserve: 0.15,
  turns: true,
  maskMinTokens: 500
} as const

/**
 * What an expansion did: the context, its size, the summaries shown as their
 * children and the leaves shown as their turns.
 *
 * @since 0.3.0
 */
export interface Expanded extends Condenser.Context {
  /** Its tokens as `ActiveContext.count` counts them (the Condenser's measure). */
  readonly tokens: number
  /** The estimate of its text as `ActiveContext.render` shows it: what {@link limit} bounds. */
  readonly rendered: number
  readonly expandedSummaries: number
  readonly expandedLeaves: number
}

/**
 * The most tokens an expansion fills a context to, measured on the text
 * `ActiveContext.render` makes of it (which counts the summary headers that
 * `ActiveContext.count` leaves out): `(1 - reserve) * budget`, rounded down,
 * never below 0.
 *
 * @example
 * ```ts
 * import { Expansion } from "@precis/compaction"
 * Expansion.limit({ budget: 16_000 }) // 13600
 * ```
 * @since 0.3.0
 */
export const limit = (options: Options): number =>
  Math.max(0, Math.floor(options.budget * (1 - (options.reserve ?? defaults.reserve))))

/**
 * Expands `context` toward {@link limit} from the summary DAG in the store
 * (see the module notes), each step measured on the rendered text; a context
 * already at or over it is returned as it is. Summaries the store does not
 * know (a stateless summary, say) are left as they are.
 *
 * @example
 * ```ts
 * import { ActiveContext, Expansion, SqliteMemoryStore } from "@precis/compaction"
 * import { Effect } from "effect"
 * const program = ActiveContext.load("session-1").pipe(
 *   Effect.flatMap((context) => Expansion.expand(context, { budget: 16_000 })),
 *   Effect.provide(SqliteMemoryStore.layer({ filename: "precis.db" }))
 * ) // at most 13600 tokens, rendered, when the active context was under that
 * ```
 * @since 0.3.0
 */
export const expand = (
  context: Condenser.Context,
  options: Options
): Effect.Effect<Expanded, StoreError, MemoryStore> =>
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const estimator = yield* TokenEstimator.TokenEstimator
    // Measured as rendered (summary headers included): many small summaries cost more than their texts.
    const measure = (context: Condenser.Context) => estimator.estimate(ActiveContext.render(context))
    const cap = limit(options)
    let current: Condenser.Context = context
    let rendered = measure(context)
    let expandedSummaries = 0
    let expandedLeaves = 0
    const tryWith = (next: Condenser.Context): boolean => {
      const size = measure(next)
      if (size > cap) return false
      current = next
      rendered = size
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
      const children = yield* store.children(summaries[pick]!.id)
      const next = [...summaries.slice(0, pick), ...children, ...summaries.slice(pick + 1)]
      if (children.length > 0 && tryWith({ summaries: next, turns: current.turns })) expandedSummaries++
      else skipped.add(summaries[pick]!.id)
    }

    // The newest leaves, as their turns (masked like old tool output), while they fit.
    while ((options.turns ?? defaults.turns) && rendered < cap && current.summaries.length > 0) {
      const leaf = current.summaries[current.summaries.length - 1]!
      if (leaf.depth !== 0) break
      const source = yield* store.sourceTurns(leaf.id)
      if (source.length === 0) break
      const masked = Mask.mask(estimator, source, {
        protectTokens: 0,
        minTokens: options.maskMinTokens ?? defaults.maskMinTokens
      }).turns
      if (!tryWith({ summaries: current.summaries.slice(0, -1), turns: [...masked, ...current.turns] })) break
      expandedLeaves++
    }

    return {
      ...current,
      tokens: ActiveContext.count(estimator, current),
      rendered,
      expandedSummaries,
      expandedLeaves
    }
  }).pipe(Effect.withSpan("Expansion.expand"))

/**
 * Expansion as the last stage of a Condenser pipeline, named `expand`: its
 * report counts the summaries and leaves expanded (`expanded`). A store
 * failure leaves the context as it was (a stage never fails).
 *
 * @since 0.3.0
 */
export const stage = (options: Options): Condenser.Stage<MemoryStore> => ({
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
        Effect.as(Effect.logWarning("Expansion: the store failed, the context is not expanded", error.message), {
          context,
          counts: {}
        })
      )
    )
})
