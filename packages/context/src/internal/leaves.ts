/**
 * The expansion's last steps, over the newest leaves (see `Expansion`): a
 * leaf shown as its turns in their material form (the digest its summarizer
 * read, `Material`), whole while it fits; the next summary, which does not
 * fit so (a leaf too large, or a condensed summary whose children did not
 * fit), stays and the newest turns of its newest leaf follow it in that form,
 * as many as fit, a call always with its results; then those turns verbatim,
 * the newest first, each that fits.
 *
 * @internal
 */
import { type ConversationTurn, Material, type SummaryRecord, type TokenEstimator, Transcript } from "@precis/core"
import { FreshTail } from "@precis/compaction"
import { DagStore, type StoreError } from "@precis/store"
import * as Effect from "effect/Effect"
import type * as Condenser from "../Condenser.js"
import { withContent } from "./turns.js"

/** The expansion's state as the leaves see it: the context so far, and a step tried on an estimate of its cost. */
export interface Filling {
  readonly current: () => Condenser.Context
  /** Takes `next` when it fits (`delta`: its estimated cost over the current context); whether it did. */
  readonly tryWith: (next: Condenser.Context, delta: number) => boolean
  /** A summary's block as rendered at `index` (its header line and content). */
  readonly block: (summary: SummaryRecord.SummaryRecord, index: number) => number
  readonly separator: number
}

// A turn in its material form and verbatim.
interface Shown {
  readonly digest: ConversationTurn.ConversationTurn
  readonly raw: ConversationTurn.ConversationTurn
}

const digests = (source: ReadonlyArray<ConversationTurn.ConversationTurn>): Array<Shown> => {
  const contents = Material.renderContents(source)
  return source.map((raw, i) => ({ raw, digest: contents[i] === raw.content ? raw : withContent(raw, contents[i]!) }))
}

/**
 * Fills from the newest leaves (see the module notes); `verbatimMaxExtra` is
 * the most tokens a turn's verbatim form may add over its digest to replace
 * it. Returns the leaves shown as turns, whole or in part.
 */
export const fill = (
  estimator: TokenEstimator.Service,
  filling: Filling,
  verbatimMaxExtra: number
): Effect.Effect<number, StoreError.StoreError, DagStore.DagStore> =>
  Effect.gen(function*() {
    const store = yield* DagStore.DagStore
    const size = (turn: ConversationTurn.ConversationTurn) => estimator.estimate(Transcript.formatTurn(turn)) + 1
    // The turns shown in material form, in order: they lead the context's turns.
    let shown: Array<Shown> = []
    let leaves = 0
    while (filling.current().summaries.length > 0) {
      const { summaries, turns } = filling.current()
      const last = summaries.length - 1
      const summary = summaries[last]!
      if (summary.depth === 0) {
        const forms = digests(yield* store.sourceTurns(summary.id))
        if (forms.length === 0) break
        const whole = forms.reduce((sum, form) => sum + size(form.digest), 0)
        const next = { summaries: summaries.slice(0, -1), turns: [...forms.map((f) => f.digest), ...turns] }
        if (filling.tryWith(next, whole - filling.block(summary, last) - filling.separator)) {
          shown = [...forms, ...shown]
          leaves++
          continue
        }
      }
      // In part: the summary stays, the newest turns of its newest leaf follow it, as many as fit.
      let leaf = summary
      while (leaf.depth > 0) {
        const children = yield* store.children(leaf.id)
        if (children.length === 0) break
        leaf = children[children.length - 1]!
      }
      const forms = leaf.depth === 0 ? digests(yield* store.sourceTurns(leaf.id)) : []
      const raws = forms.map((form) => form.raw)
      // The newest turns, a group at a time: never a result without the call it answers (`FreshTail.start`).
      let from = forms.length
      while (from > 0) {
        const next = Math.min(from - 1, FreshTail.start(raws, forms.length - from + 1))
        const group = forms.slice(next, from).map((form) => form.digest)
        const current = filling.current()
        const cost = group.reduce((sum, turn) => sum + size(turn), 0)
        if (!filling.tryWith({ summaries, turns: [...group, ...current.turns] }, cost)) break
        from = next
      }
      const taken = forms.length - from
      if (taken > 0) {
        shown = [...forms.slice(forms.length - taken), ...shown]
        leaves++
      }
      break
    }
    // Verbatim, the newest first, each that fits.
    for (let i = shown.length - 1; i >= 0; i--) {
      const { digest, raw } = shown[i]!
      if (raw === digest) continue
      const extra = size(raw) - size(digest)
      if (extra > verbatimMaxExtra) continue
      const current = filling.current()
      filling.tryWith({ summaries: current.summaries, turns: current.turns.map((t, j) => j === i ? raw : t) }, extra)
    }
    return leaves
  })
