/**
 * The store suite's cases of the search index kept consistent with the turns, appended, edited and
 * deleted.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { SearchIndex, Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Fixtures from "../../Fixtures.js"
import type { Case } from "./case.js"

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
  },
  {
    name: "a hostile query finds what its words find, or fails with a StoreError naming its bound",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("hostile", [
          Fixtures.turn("user", "the pdf report of the quarter", { id: "h0" }),
          Fixtures.turn("assistant", "rendered the report as pdf", { id: "h1" })
        ])
        const ids = (query: string) =>
          Effect.map(store.search("hostile", query), (hits) => hits.map((h) => h.id).sort())
        // Control characters separate words: a NUL is never sent to the engine as text.
        expect(yield* ids("pdf\u0000quarter")).toEqual(["h0"])
        expect(yield* ids("\u0000")).toEqual([])
        expect(yield* ids("report\u0007\u001b\u007f")).toEqual(["h0", "h1"])
        // A word repeated is read once, in any case.
        expect(yield* ids(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? "pdf" : "PDF")).join(" "))).toEqual(["h0", "h1"])
        const refused = (query: string) =>
          Effect.map(Effect.flip(store.search("hostile", query)), (e) => [e._tag, e.reason, e.description] as const)
        const words = Array.from({ length: SearchIndex.maxQueryTerms + 1 }, (_, i) => `w${i}`).join(" ")
        expect(yield* refused(words)).toEqual([
          "StoreError",
          "InvalidInput",
          `a search takes at most ${SearchIndex.maxQueryTerms} different words (got ${SearchIndex.maxQueryTerms + 1})`
        ])
        const long = Array.from({ length: 3000 }, () => "pdf").join(" ")
        expect(yield* refused(long)).toEqual([
          "StoreError",
          "InvalidInput",
          `a search query is at most ${SearchIndex.maxQueryLength} characters (got ${long.length})`
        ])
      })
  },
  {
    name: "a search past its timeout is cancelled where the engine can cancel it",
    fresh: true,
    run: (dialect) =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns(
          "slow",
          Array.from({ length: 4000 }, (_, i) =>
            Fixtures.turn("user", `common words in turn ${i}: ${"filler text ".repeat(20)}`, { id: `s${i}` }))
        )
        const result = yield* Effect.either(store.search(undefined, "common filler", { timeout: "1 millis" }))
        if (dialect.cancelsSearches) {
          expect(result._tag).toBe("Left")
          if (result._tag === "Left") expect([result.left.reason, result.left.description]).toEqual(["Timeout", expect.stringMatching(/^the search took longer than 1ms/)])
        } else {
          expect(result._tag).toBe("Right")
        }
        // A timeout long enough lets it finish.
        expect((yield* store.search(undefined, "common filler", { timeout: "1 minute", limit: 3 })).length).toBe(3)
      })
  }
]
