/**
 * The port without a driver: one implementation becomes the four services,
 * and the errors read as they should.
 */
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as DagStore from "../src/DagStore.js"
import * as SearchIndex from "../src/SearchIndex.js"
import * as Store from "../src/Store.js"
import { StoreError, TurnConflictError } from "../src/StoreError.js"
import * as TurnStore from "../src/TurnStore.js"
import * as WorkQueue from "../src/WorkQueue.js"

const unused = Effect.dieMessage("not used by this test")

// A store that holds nothing and finds one hit: enough to tell the services apart.
const nothing: Store.Service = {
  appendTurns: () => Effect.succeed([]),
  withTransaction: (self) => self,
  turns: () => Effect.succeed([]),
  turnsWithIdPrefix: () => Effect.succeed([]),
  openingTurns: () => Effect.succeed([]),
  uncoveredTurns: () => Effect.succeed([]),
  sessions: Effect.succeed([{ id: "s", createdAt: "2025-01-01T00:00:00Z", turnCount: 0, summaryCount: 0 }]),
  projectSessions: () => Effect.succeed([]),
  sessionState: () => Effect.succeed(Option.none()),
  saveSessionState: () => Effect.void,
  summary: () => Effect.succeed(Option.none()),
  summariesWithIdPrefix: () => Effect.succeed([]),
  summaries: () => Effect.succeed([]),
  parentless: () => Effect.succeed([]),
  children: () => Effect.succeed([]),
  sourceTurns: () => Effect.succeed([]),
  latestLeaf: () => Effect.succeed(Option.none()),
  insertLeaf: () => unused,
  insertCondensed: () => unused,
  rewriteSummary: () => unused,
  search: (sessionId, query) =>
    Effect.succeed([new SearchIndex.SearchHit({ kind: "turn", id: "t0", sessionId: sessionId ?? "s", snippet: query, rank: 0 })]),
  indexSearch: Effect.succeed(7),
  claimWork: Effect.succeed(Option.some({ sessionId: "s", stamp: 3 })),
  settleWork: () => Effect.succeed(true),
  withSessionLease: (_, effect) => effect,
  tryWithSessionLease: (_, effect) => Effect.asSome(effect)
}

describe("Store", () => {
  it.effect("layer makes the four services of one implementation, and all puts them back together", () =>
    Effect.gen(function*() {
      const sessions = yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.sessions)
      assert.deepStrictEqual(sessions.map((s) => s.id), ["s"])
      assert.deepStrictEqual(yield* Effect.flatMap(DagStore.DagStore, (dag) => dag.parentless("s")), [])
      const hits = yield* Effect.flatMap(SearchIndex.SearchIndex, (index) => index.search(undefined, "q"))
      assert.deepStrictEqual(hits.map((h) => [h.id, h.snippet]), [["t0", "q"]])
      const claim = yield* Effect.flatMap(WorkQueue.WorkQueue, (queue) => queue.claimWork)
      assert.deepStrictEqual(claim, Option.some({ sessionId: "s", stamp: 3 }))
      const all = yield* Store.all
      assert.strictEqual(yield* all.indexSearch, 7)
      assert.deepStrictEqual(yield* all.tryWithSessionLease("s", Effect.succeed("ran")), Option.some("ran"))
    }).pipe(Effect.provide(Store.layer(Effect.succeed(nothing)))))

  it.effect("all holds every method of each part, the parts given as four objects (nothing listed by hand)", () =>
    Effect.gen(function*() {
      const all = yield* Store.all
      assert.deepStrictEqual(Object.keys(all).sort(), Object.keys(nothing).sort())
      for (const [name, method] of Object.entries(all)) assert.strictEqual(method, nothing[name as keyof Store.Service], name)
    }).pipe(
      Effect.provide(Context.make(TurnStore.TurnStore, pick(turnKeys)).pipe(
        Context.add(DagStore.DagStore, pick(dagKeys)),
        Context.add(SearchIndex.SearchIndex, pick(["search", "indexSearch"])),
        Context.add(WorkQueue.WorkQueue, pick(["claimWork", "settleWork", "withSessionLease", "tryWithSessionLease"]))
      ))
    ))
})

const turnKeys = [
  "appendTurns",
  "withTransaction",
  "turns",
  "turnsWithIdPrefix",
  "openingTurns",
  "uncoveredTurns",
  "sessions",
  "projectSessions",
  "sessionState",
  "saveSessionState"
] as const
const dagKeys = [
  "summary",
  "summariesWithIdPrefix",
  "summaries",
  "parentless",
  "children",
  "sourceTurns",
  "latestLeaf",
  "insertLeaf",
  "insertCondensed",
  "rewriteSummary"
] as const

/** A part of `nothing` as its own object, holding only `keys`. */
function pick<K extends keyof Store.Service>(keys: ReadonlyArray<K>): never {
  return Object.fromEntries(keys.map((key) => [key, nothing[key]])) as never
}

describe("StoreError", () => {
  it("names the operation, or the file of a file store", () => {
    const error = new StoreError({ operation: "DagStore.insertLeaf", reason: "a leaf needs at least one turn" })
    assert.strictEqual(error.message, "DagStore.insertLeaf: a leaf needs at least one turn")
    assert.strictEqual(StoreError.fromCause(error, "Store.open", "x.db").message, "x.db: a leaf needs at least one turn")
    assert.strictEqual(StoreError.fromCause(error, "Store.open", "x.db").operation, "DagStore.insertLeaf")
  })

  it("reads the driver's own message out of an SqlError, and keeps the SqlError as the cause", () => {
    const sqlError = new SqlError({ cause: new Error("database is locked"), message: "Failed to execute statement" })
    const error = StoreError.fromCause(sqlError, "TurnStore.turns")
    assert.strictEqual(error.message, "TurnStore.turns: database is locked")
    assert.strictEqual(error.cause, sqlError)
    assert.strictEqual(
      StoreError.invalidInput("TurnStore.appendTurns", "metadata is not JSON", new TypeError("bigint")).message,
      "TurnStore.appendTurns: metadata is not JSON: bigint"
    )
  })

  it("a turn conflict says which turn, where and what differs", () => {
    const error = new TurnConflictError({ sessionId: "s", turnId: "t7", field: "role" })
    assert.strictEqual(error.message, `turn "t7" is already in session s with a different role`)
  })
})
