/**
 * The store suite's cases of the search index kept consistent with the turns, appended, edited and
 * deleted.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Fixtures from "../../Fixtures.js"
import type { Case } from "../../StoreSuite.js"

/** @internal */
export const cases: ReadonlyArray<Case> = [
  {
    name: "a search right after appending finds the new turns; indexSearch then has nothing left",
    run: (dialect) =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const ids = (query: string) => Effect.map(store.search("fresh", query), (hits) => hits.map((h) => h.id).sort())
        yield* store.appendTurns("fresh", [Fixtures.turn("user", "the quokka escaped", { id: "q0" })])
        expect(yield* ids("quokka")).toEqual(["q0"])
        yield* store.appendTurns("fresh", [
          Fixtures.turn("assistant", "caught the quokka", { id: "q1" }),
          Fixtures.turn("user", "a wombat too", { id: "q2" })
        ])
        expect(yield* ids("quokka")).toEqual(["q0", "q1"])
        expect(yield* ids("wombat")).toEqual(["q2"])
        expect(yield* store.indexSearch).toBe(0)
        yield* dialect.checkSearchIndex(true)
      })
  },
  {
    name: "deleting and updating indexed and not yet indexed turns keeps the index consistent and search right",
    run: (dialect) =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const sql = yield* SqlClient.SqlClient
        const ids = (query: string) => Effect.map(store.search("edit", query), (hits) => hits.map((h) => h.id).sort())
        yield* store.appendTurns("edit", ["alpha one", "alpha two", "alpha three"].map((text, i) =>
          Fixtures.turn("user", text, { id: `i${i}` })))
        // Indexed by the search; the next three are appended after it.
        expect(yield* ids("alpha")).toEqual(["i0", "i1", "i2"])
        yield* store.appendTurns("edit", ["alpha four", "alpha five", "alpha six"].map((text, i) =>
          Fixtures.turn("user", text, { id: `u${i}` })))
        yield* sql`DELETE FROM turns WHERE session_id = 'edit' AND id IN ('i0', 'u0')`
        yield* sql`UPDATE turns SET content = 'beta changed' WHERE session_id = 'edit' AND id IN ('i1', 'u1')`
        yield* dialect.checkSearchIndex(false)
        expect(yield* ids("alpha")).toEqual(["i2", "u2"])
        expect(yield* ids("beta")).toEqual(["i1", "u1"])
        expect(yield* ids("one")).toEqual([])
        expect(yield* ids("four")).toEqual([])
        // The largest rowids deleted, then a new turn (SQLite may reuse the rowid of a deleted row).
        yield* sql`DELETE FROM turns WHERE session_id = 'edit' AND id IN ('u1', 'u2')`
        yield* store.appendTurns("edit", [Fixtures.turn("user", "gamma seven", { id: "g0" })])
        expect(yield* ids("gamma")).toEqual(["g0"])
        expect(yield* ids("beta")).toEqual(["i1"])
        yield* dialect.checkSearchIndex(true)
      })
  },
  {
    name: "searches running while turns are appended find the turns appended before them",
    run: (dialect) =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const rounds = Array.from({ length: 12 }, (_, i) => i)
        // A session each: concurrent appends to one session are not what this is about.
        const found = yield* Effect.all(
          rounds.map((i) =>
            Effect.flatMap(
              store.appendTurns(`busy${i}`, [Fixtures.turn("user", `parrot number${i}`, { id: `p${i}` })]),
              () => store.search(`busy${i}`, `parrot number${i}`)
            )
          ),
          { concurrency: "unbounded" }
        )
        expect(found.map((hits) => hits.map((h) => h.id))).toEqual(rounds.map((i) => [`p${i}`]))
        const all = yield* store.search(undefined, "parrot", { limit: 100 })
        expect(all.map((h) => h.id).sort()).toEqual(rounds.map((i) => `p${i}`).sort())
        yield* dialect.checkSearchIndex(true)
      })
  }
]
