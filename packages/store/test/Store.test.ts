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
import { isStoreError, StoreError, TurnConflictError } from "../src/StoreError.js"
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
        Context.add(SearchIndex.SearchIndex, pick(searchKeys)),
        Context.add(WorkQueue.WorkQueue, pick(workKeys))
      ))
    ))
})

// The methods of each part, as records the compiler checks against its service: a method
// added to a port without being named here (or one named that it lacks) does not compile.
const names = <S>() =>
<const R extends Record<keyof S, true>>(record: R & Record<Exclude<keyof R, keyof S>, never>): ReadonlyArray<keyof S & keyof R> =>
  Object.keys(record) as Array<keyof S & keyof R>
const turnKeys = names<TurnStore.Service>()({
  appendTurns: true,
  withTransaction: true,
  turns: true,
  turnsWithIdPrefix: true,
  openingTurns: true,
  uncoveredTurns: true,
  sessions: true,
  projectSessions: true,
  sessionState: true,
  saveSessionState: true
})
const dagKeys = names<DagStore.Service>()({
  summary: true,
  summariesWithIdPrefix: true,
  summaries: true,
  parentless: true,
  children: true,
  sourceTurns: true,
  latestLeaf: true,
  insertLeaf: true,
  insertCondensed: true,
  rewriteSummary: true
})
const searchKeys = names<SearchIndex.Service>()({ search: true, indexSearch: true })
const workKeys = names<WorkQueue.Service>()({
  claimWork: true,
  settleWork: true,
  withSessionLease: true,
  tryWithSessionLease: true
})

/** A part of `nothing` as its own object, holding only `keys`. */
function pick<K extends keyof Store.Service>(keys: ReadonlyArray<K>): never {
  return Object.fromEntries(keys.map((key) => [key, nothing[key]])) as never
}

describe("StoreError", () => {
  it("names the operation, or the file of a file store", () => {
    const error = new StoreError({
      operation: "DagStore.insertLeaf",
      reason: "InvalidInput",
      description: "a leaf needs at least one turn"
    })
    assert.strictEqual(error.message, "DagStore.insertLeaf: a leaf needs at least one turn")
    const named = StoreError.fromCause(error, "Store.open", "x.db")
    assert.deepStrictEqual([named.message, named.operation, named.reason], [
      "x.db: a leaf needs at least one turn",
      "DagStore.insertLeaf",
      "InvalidInput"
    ])
  })

  it("names the store its caller gave, before the operation, unless it names its file", () => {
    const error = new StoreError({ operation: "TurnStore.sessions", reason: "Unavailable", description: "refused" })
    assert.strictEqual(error.inStore("postgres://h/db").message, "postgres://h/db: TurnStore.sessions: refused")
    assert.strictEqual(error.inStore("postgres://h/db").reason, "Unavailable")
    const file = StoreError.fromCause(error, "Store.open", "x.db")
    assert.strictEqual(file.inStore("other.db").message, "x.db: refused")
  })

  it("reads the reason from the driver's code: SQLite's, PostgreSQL's SQLSTATE, a socket's", () => {
    const driver = (code: string | undefined) => {
      const inner = Object.assign(new Error("failed"), code === undefined ? {} : { code })
      return StoreError.fromCause(new SqlError({ cause: inner, message: "Failed" }), "TurnStore.turns").reason
    }
    assert.deepStrictEqual(
      ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "55P03", "SQLITE_READONLY_DBMOVED", "25006", "SQLITE_NOTADB", "57014",
        "ECONNREFUSED", "28P01", "08006", "SQLITE_IOERR_WRITE", "SQLITE_FULL", "EACCES", "SQLITE_CONSTRAINT_UNIQUE", undefined]
        .map(driver),
      ["Locked", "Locked", "Locked", "ReadOnly", "ReadOnly", "NotAStore", "Timeout",
        "Unavailable", "Unavailable", "Unavailable", "Io", "Io", "Io", "Unknown", "Unknown"]
    )
  })

  it("carries the store's TypeId: the guard tells its errors from any other", () => {
    const error = new StoreError({ operation: "Store.open", reason: "NotFound", description: "no such file" })
    assert.isTrue(isStoreError(error))
    assert.isTrue(isStoreError(new TurnConflictError({ sessionId: "s", turnId: "t", field: "role" })))
    assert.isFalse(isStoreError(new Error("no such file")))
    assert.isFalse(isStoreError({ _tag: "StoreError", reason: "NotFound" }))
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
