/**
 * Full-text search over turns and summaries: hits, snippets, leaves, sessions,
 * limits, and user input that must never break the FTS5 syntax.
 */
import { assert, describe, expect, layer } from "@effect/vitest"
import { Store } from "@precis/store"
import { Fixtures } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqliteStore from "../src/SqliteStore.js"

const seed = Effect.gen(function*() {
  const store = yield* Store.all
  yield* store.appendTurns("a", [
    Fixtures.turn("user", "Please fix the flaky database migration test", { id: "a0" }),
    Fixtures.turn("assistant", "The migration runs twice; I added a lock around it", { id: "a1" }),
    Fixtures.turn("user", "Now deploy to staging, café style: \"quoted\" -dash NEAR(x y) a*b", { id: "a2" })
  ])
  yield* store.insertLeaf({
    sessionId: "a",
    content: "Fixed the flaky migration test with a lock.",
    tier: "normal",
    tokenEstimate: 9,
    turnIds: ["a0", "a1"]
  })
  yield* store.appendTurns("b", [Fixtures.turn("user", "An unrelated migration of birds", { id: "b0" })])
  return store
})

describe("SearchIndex.search (SQLite)", () => {
  layer(SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie))((it) => {
    it.effect("finds turns and summaries with snippets, ranks, seqs, depths and covering leaves", () =>
      Effect.gen(function*() {
        const store = yield* seed
        const hits = yield* store.search("a", "migration lock")
        expect(hits.map((h) => `${h.kind}:${h.id.length > 3 ? "leaf" : h.id}`).sort()).toEqual([
          "summary:leaf",
          "turn:a1"
        ])
        const turn = hits.find((h) => h.kind === "turn")!
        const leaf = hits.find((h) => h.kind === "summary")!
        assert.strictEqual(turn.seq, 1)
        assert.strictEqual(turn.leafId, leaf.id)
        assert.strictEqual(leaf.depth, 0)
        assert.strictEqual(turn.snippet, "The «migration» runs twice; I added a «lock» around it")
        assert.isTrue(hits.every((h) => Number.isFinite(h.rank) && h.sessionId === "a"))
        assert.deepStrictEqual(hits.map((h) => h.rank), hits.map((h) => h.rank).sort((x, y) => x - y))
        // An uncovered turn has no leaf.
        const uncovered = yield* store.search("a", "staging")
        assert.deepStrictEqual(uncovered.map((h) => [h.id, h.leafId]), [["a2", undefined]])
      }))

    it.effect("searches one session or all, and honours the limit", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        assert.deepStrictEqual((yield* store.search("b", "migration")).map((h) => h.id), ["b0"])
        const all = yield* store.search(undefined, "migration")
        assert.deepStrictEqual(new Set(all.map((h) => h.sessionId)), new Set(["a", "b"]))
        assert.strictEqual(all.length, 4)
        assert.strictEqual((yield* store.search(undefined, "migration", { limit: 2 })).length, 2)
        assert.deepStrictEqual(yield* store.search("nobody", "migration"), [])
      }))

    it.effect("a limit that is not a count of hits is a StoreError saying so, not an SQL error", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        for (const limit of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]) {
          const error = yield* Effect.flip(store.search("a", "migration", { limit }))
          assert.strictEqual(error._tag, "StoreError")
          assert.deepStrictEqual([error.reason, error.description], ["InvalidInput", `limit must be an integer >= 0 (got ${limit})`])
        }
        // Even a query without terms, which runs no SQL.
        assert.strictEqual((yield* Effect.flip(store.search("a", "*", { limit: -1 })))._tag, "StoreError")
        assert.deepStrictEqual(yield* store.search("a", "migration", { limit: 0 }), [])
      }))

    it.effect("odd input is text, never FTS5 syntax: quotes, *, -, NEAR, operators, unicode", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const ids = (query: string) => Effect.map(store.search("a", query), (hits) => hits.map((h) => h.id))
        assert.deepStrictEqual(yield* ids("\"quoted\""), ["a2"])
        assert.deepStrictEqual(yield* ids("\"quoted"), ["a2"])
        assert.deepStrictEqual(yield* ids("-dash"), ["a2"])
        assert.deepStrictEqual(yield* ids("NEAR(x y)"), ["a2"])
        assert.deepStrictEqual(yield* ids("cafe"), ["a2"])
        assert.deepStrictEqual(yield* ids("café"), ["a2"])
        assert.deepStrictEqual(yield* ids("deploy AND"), [])
        assert.deepStrictEqual(yield* ids("deploy OR nothing"), [])
        assert.deepStrictEqual(yield* ids("stag*"), ["a2"])
        assert.deepStrictEqual(yield* ids("a*b"), ["a2"])
        for (const query of ["", "   ", "*", "-", "\"", "\"\"", "()", "^", ":", "NOT", "content:flaky", "{a b}", "🙂"]) {
          // Never a StoreError: at worst no hits.
          const hits = yield* store.search("a", query)
          assert.isArray(hits, query)
        }
        assert.deepStrictEqual(yield* ids("content:flaky"), [])
      }))
  })
})
