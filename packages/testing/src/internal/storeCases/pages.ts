/**
 * The store suite's cases of paged reads: a page of the uncovered turns, of a
 * summary's source turns and of the summaries, so that a reader of a large
 * session (the viewer) holds one page in memory, never the session.
 *
 * @internal
 */
import { expect } from "@effect/vitest"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Fixtures from "../../Fixtures.js"
import type { Case } from "./case.js"

/** @internal */
export const cases: ReadonlyArray<Case> = [
  {
    name: "reads one page of the uncovered turns, of a summary's source turns and of the summaries, in order",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const ids = Array.from({ length: 30 }, (_, i) => `p${i}`)
        yield* store.appendTurns("pages", ids.map((id) => Fixtures.turn("user", `turn ${id}`, { id })))
        const leaves = [
          yield* store.insertLeaf(Fixtures.leaf("pages", ids.slice(0, 6))),
          yield* store.insertLeaf(Fixtures.leaf("pages", ids.slice(6, 12))),
          yield* store.insertLeaf(Fixtures.leaf("pages", ids.slice(12, 18)))
        ]
        const top = yield* store.insertCondensed({
          sessionId: "pages",
          content: "top",
          tier: "normal",
          tokenEstimate: 1,
          childIds: leaves.slice(0, 2).map((l) => l.id)
        })
        const idsOf = (turns: ReadonlyArray<{ readonly id: string }>) => turns.map((t) => t.id)
        expect(idsOf(yield* store.uncoveredTurns("pages", { limit: 5 }))).toEqual(ids.slice(18, 23))
        expect(idsOf(yield* store.uncoveredTurns("pages", { limit: 5, offset: 10 }))).toEqual(ids.slice(28, 30))
        expect(idsOf(yield* store.uncoveredTurns("pages", { limit: 5, offset: 12 }))).toEqual([])
        expect(idsOf(yield* store.sourceTurns(top.id, { limit: 4, offset: 5 }))).toEqual(ids.slice(5, 9))
        expect(idsOf(yield* store.sourceTurns(leaves[2]!.id, { limit: 100 }))).toEqual(ids.slice(12, 18))
        expect(idsOf(yield* store.parentless("pages", { page: { limit: 1 } }))).toEqual([top.id])
        expect(idsOf(yield* store.parentless("pages", { page: { limit: 5, offset: 1 } }))).toEqual([leaves[2]!.id])
        expect(idsOf(yield* store.summaries("pages", { depth: 0, page: { limit: 2, offset: 1 } })))
          .toEqual([leaves[1]!.id, leaves[2]!.id])
        // A page that is no count reads nothing rather than failing or reading everything.
        expect(yield* store.uncoveredTurns("pages", { limit: Number.NaN })).toEqual([])
        expect(idsOf(yield* store.uncoveredTurns("pages", { limit: 2, offset: -3 }))).toEqual(ids.slice(18, 20))
      })
  }
]
