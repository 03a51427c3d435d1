/**
 * The behavioural suite of the store port over SQL, for the drivers' tests
 * (`@precis/store-sqlite`, `@precis/store-pg`, or a driver of your own): the
 * same assertions over every driver, with what the dialects spell
 * differently in a {@link Dialect}. A module of its own, apart from the
 * package's entry point, because it needs `@effect/vitest`.
 *
 * @example
 * ```ts
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { sqlite, storeSuite } from "@precis/testing/StoreSuite"
 * import { Layer } from "effect"
 * storeSuite("SqliteStore", SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie), sqlite)
 * ```
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { assert, describe, expect, layer } from "@effect/vitest"
import { Store, Tables } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Fixtures from "./Fixtures.js"
import { violations } from "./StoreInvariants.js"

/**
 * What the suite needs to say differently per SQL dialect.
 *
 * @since 0.1.0
 */
export interface Dialect {
  /** Ids only some engines can store (PostgreSQL text cannot hold a NUL character). */
  readonly oddIds: ReadonlyArray<string>
  /** Creates a trigger `name` (`timing`, e.g. `BEFORE INSERT ON turns`) failing with `message` when `condition` holds. */
  readonly refuse: (
    name: string,
    timing: string,
    condition: string,
    message: string
  ) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
  /** Drops the trigger `name` of `table`. */
  readonly dropTrigger: (name: string, table: string) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
  /**
   * Fails unless the search index of the turns is consistent: with `complete`,
   * also that it holds exactly the stored turns (SQLite: FTS5's `integrity-check`).
   */
  readonly checkSearchIndex: (complete: boolean) => Effect.Effect<void, SqlError, SqlClient.SqlClient>
}

/**
 * SQLite's triggers.
 *
 * @since 0.1.0
 */
export const sqlite: Dialect = {
  oddIds: ["nul\u0000byte"],
  refuse: (name, timing, condition, message) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.unsafe(`CREATE TRIGGER ${name} ${timing} WHEN ${condition} BEGIN SELECT RAISE(ABORT, '${message}'); END`)),
  dropTrigger: (name) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP TRIGGER ${name}`)),
  checkSearchIndex: (complete) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.unsafe(`INSERT INTO turns_fts (turns_fts, rank) VALUES ('integrity-check', ${complete ? 1 : 0})`))
}

/**
 * PostgreSQL's triggers (a trigger function each).
 *
 * @since 0.1.0
 */
export const postgres: Dialect = {
  oddIds: [],
  refuse: (name, timing, condition, message) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(
        sql.unsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION '${message}'; END $$`),
        sql.unsafe(`CREATE TRIGGER ${name} ${timing} FOR EACH ROW WHEN (${condition}) EXECUTE FUNCTION ${name}()`)
      )),
  dropTrigger: (name, table) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(sql.unsafe(`DROP TRIGGER ${name} ON ${table}`), sql.unsafe(`DROP FUNCTION ${name}()`))),
  // PostgreSQL's GIN indexes are its own to keep consistent.
  checkSearchIndex: () => Effect.void
}

/**
 * A leaf to insert over `turnIds`.
 *
 * @since 0.1.0
 */
export const leafOf = (sessionId: string, turnIds: ReadonlyArray<string>, content = "leaf") => ({
  sessionId,
  content,
  tier: "normal" as const,
  tokenEstimate: 1,
  turnIds
})

/**
 * The port's behaviour over `store` (a fresh, empty database, its `SqlClient`
 * exposed), as a `describe` block named `name`.
 *
 * @since 0.1.0
 */
export const storeSuite = (
  name: string,
  store: Layer.Layer<Store.Store | SqlClient.SqlClient>,
  dialect: Dialect
) =>
  describe(name, () => {
  layer(store)((it) => {
    it.effect("appends turns with seqs, ids and metadata, and is idempotent on source ids", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const turns = [
          ...Fixtures.conversation(3),
          Fixtures.turn("tool", "ok", { metadata: { toolResult: true, nested: { n: 1 } } })
        ]
        const added = yield* store.appendTurns("append", turns)
        expect(added.map((t) => [t.id, t.seq])).toEqual([["t0", 0], ["t1", 1], ["t2", 2], [added[3]!.id, 3]])
        expect(added[3]!.id.length).toBeGreaterThan(0)

        const again = yield* store.appendTurns("append", [...Fixtures.conversation(5), Fixtures.turn("user", "x", { id: "t9" }), Fixtures.turn("user", "x", { id: "t9" })])
        expect(again.map((t) => [t.id, t.seq])).toEqual([["t3", 4], ["t4", 5], ["t9", 6]])
        expect(yield* store.appendTurns("append", Fixtures.conversation(5))).toEqual([])
        // An import larger than one lookup batch: re-running it adds nothing either.
        expect((yield* store.appendTurns("import", Fixtures.conversation(250))).length).toBe(250)
        expect(yield* store.appendTurns("import", Fixtures.conversation(300))).toHaveLength(50)
        expect(yield* store.appendTurns("import", Fixtures.conversation(300))).toEqual([])

        const stored = yield* store.turns("append")
        expect(stored.map((t) => t.seq)).toEqual([0, 1, 2, 3, 4, 5, 6])
        expect(stored[3]!.metadata).toEqual({ toolResult: true, nested: { n: 1 } })
        expect(stored[0]!.timestamp).toBe("2025-01-01T00:00:00.000Z")
        expect(stored[0]!.sessionId).toBe("append")
        expect((yield* store.turns("append", { from: 2, to: 4 })).map((t) => t.seq)).toEqual([2, 3, 4])
        expect((yield* store.turns("append", { from: 5 })).map((t) => t.seq)).toEqual([5, 6])
      }))

    it.effect("appends more turns than one INSERT statement holds, each row as given, in order", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const turns = Array.from({ length: 2_345 }, (_, i) =>
          Fixtures.turn(i % 2 === 0 ? "user" : "assistant", `turn ${i}`, {
            id: `b${i}`,
            ...(i % 3 === 0 ? { metadata: { n: i } } : {})
          }))
        const added = yield* store.appendTurns("bulk", turns)
        expect(added.map((t) => t.seq)).toEqual(turns.map((_, i) => i))
        const stored = yield* store.turns("bulk")
        expect(stored.map((t) => [t.id, t.seq, t.role, t.content, t.metadata])).toEqual(
          turns.map((t, i) => [t.id, i, t.role, t.content, t.metadata])
        )
      }))

    it.effect("stores metadata as JSON text in the turns table", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const sql = yield* SqlClient.SqlClient
        yield* store.appendTurns("json", [Fixtures.turn("user", "hi", { id: "a", metadata: { k: [1, "two"] } })])
        // The stored (encoded) side of the row: metadata as text.
        const rows = Schema.decodeUnknownSync(Schema.Array(Schema.encodedSchema(Tables.TurnRow)))(
          yield* sql`SELECT * FROM turns WHERE session_id = 'json'`
        )
        expect(rows[0]!.metadata).toBe(`{"k":[1,"two"]}`)
      }))

    it.effect("fails to read a stored turn whose metadata is not a JSON object, and says so", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const sql = yield* SqlClient.SqlClient
        yield* store.appendTurns("bad-row", Fixtures.conversation(3))
        yield* sql`UPDATE turns SET metadata = '[1, 2]' WHERE session_id = 'bad-row' AND seq = 1`
        const error = yield* Effect.flip(store.turns("bad-row"))
        expect(error.operation).toBe("TurnStore.turns")
        expect(error.message).toMatch(/^TurnStore\.turns: .*metadata/s)
        // A row that reads well is unchanged by the check: the others still decode as before.
        yield* sql`UPDATE turns SET metadata = '{"k":1}' WHERE session_id = 'bad-row' AND seq = 1`
        expect((yield* store.uncoveredTurns("bad-row")).map((t) => t.metadata)).toEqual([undefined, { k: 1 }, undefined])
      }))

    it.effect("refuses metadata that is not JSON, writing nothing", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const error = yield* Effect.flip(
          store.appendTurns("bad-meta", [Fixtures.turn("user", "a"), Fixtures.turn("user", "b", { metadata: { n: 1n } })])
        )
        expect(error.message).toMatch(/^TurnStore\.appendTurns: metadata is not JSON: /)
        expect(yield* store.turns("bad-meta")).toEqual([])
      }))

    it.effect("refuses a turn whose id is stored with another role or content, writing nothing", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("conflict", Fixtures.conversation(3))
        const stored = yield* store.turns("conflict")
        const changed = yield* Effect.flip(
          store.appendTurns("conflict", [Fixtures.turn("user", "new", { id: "n1" }), Fixtures.turn("user", "edited", { id: "t0" })])
        )
        assert.strictEqual(changed._tag, "TurnConflictError")
        expect({ ...changed }).toEqual({ _tag: "TurnConflictError", sessionId: "conflict", turnId: "t0", field: "content" })
        expect(changed.message).toBe(`turn "t0" is already in session conflict with a different content`)
        const role = yield* Effect.flip(store.appendTurns("conflict", [Fixtures.turn("assistant", stored[0]!.content, { id: "t0" })]))
        expect({ ...role }).toEqual({ _tag: "TurnConflictError", sessionId: "conflict", turnId: "t0", field: "role" })
        expect(yield* store.turns("conflict")).toEqual(stored)
        // An identical repeat is still skipped.
        expect(yield* store.appendTurns("conflict", [stored[0]!, Fixtures.turn("user", "new", { id: "n1" })])).toHaveLength(1)
      }))

    it.effect("refuses a repeated id with other content within one append, and creates no session", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const error = yield* Effect.flip(
          store.appendTurns("conflict-new", [Fixtures.turn("user", "a", { id: "x" }), Fixtures.turn("user", "b", { id: "x" })])
        )
        expect({ ...error }).toEqual({ _tag: "TurnConflictError", sessionId: "conflict-new", turnId: "x", field: "content" })
        expect((yield* store.sessions).map((s) => s.id)).not.toContain("conflict-new")
      }))

    it.effect("finds a conflict among more ids than one statement's parameters could hold", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("conflict-big", Fixtures.conversation(1100))
        const turns = [...Fixtures.conversation(1100)]
        turns[1034] = Fixtures.turn("user", "not what was stored", { id: "t1034" })
        const error = yield* Effect.flip(store.appendTurns("conflict-big", turns))
        assert.strictEqual(error._tag === "TurnConflictError" && error.turnId, "t1034")
      }))

    it.effect("withTransaction commits several appends together, or none when one fails", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("tx-b", [Fixtures.turn("user", "kept", { id: "b0" })])
        const error = yield* Effect.flip(store.withTransaction(Effect.zipRight(
          store.appendTurns("tx-a", Fixtures.conversation(3)),
          store.appendTurns("tx-b", [Fixtures.turn("user", "changed", { id: "b0" })])
        )))
        assert.strictEqual(error._tag, "TurnConflictError")
        expect(yield* store.turns("tx-a")).toEqual([])
        expect((yield* store.sessions).map((s) => s.id)).not.toContain("tx-a")
        yield* store.withTransaction(Effect.zipRight(
          store.appendTurns("tx-a", Fixtures.conversation(3)),
          store.appendTurns("tx-b", [Fixtures.turn("user", "more", { id: "b1" })])
        ))
        expect((yield* store.turns("tx-a")).map((t) => t.id)).toEqual(["t0", "t1", "t2"])
        expect((yield* store.turns("tx-b")).map((t) => t.id)).toEqual(["b0", "b1"])
      }))

    it.effect("keeps turn ids per session", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("s-a", Fixtures.conversation(2))
        const added = yield* store.appendTurns("s-b", Fixtures.conversation(2))
        expect(added.map((t) => t.id)).toEqual(["t0", "t1"])
        const sessions = yield* store.sessions
        expect(sessions.filter((s) => s.id === "s-a" || s.id === "s-b").map((s) => [s.id, s.turnCount])).toEqual([
          ["s-a", 2],
          ["s-b", 2]
        ])
      }))

    it.effect("links every source of a large leaf and condensed summary in order, whatever the ids hold", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const sql = yield* SqlClient.SqlClient
        // More sources than one insert batch, with ids that need quoting or escaping.
        const odd = ["q\"uote", "back\\slash", "new\nline", "é ü 中文 😀", "[1,2]", "'single'", ...dialect.oddIds]
        const ids = Array.from({ length: 250 }, (_, i) => `${odd[i % odd.length]}#${i}`)
        yield* store.appendTurns("links", ids.map((id) => Fixtures.turn("user", `content ${id}`, { id })))
        const leaf = yield* store.insertLeaf(leafOf("links", ids))
        expect(Option.getOrThrow(yield* store.summary(leaf.id)).sourceTurnIds).toEqual(ids)
        const rows = Schema.decodeUnknownSync(Schema.Array(Tables.SourceRow))(
          yield* sql`SELECT * FROM summary_sources WHERE summary_id = ${leaf.id} ORDER BY position`
        )
        expect(rows.map((r) => r.position)).toEqual(ids.map((_, i) => i))
        expect(rows.map((r) => r.turn_id)).toEqual(ids)
        expect((yield* store.sourceTurns(leaf.id)).map((t) => t.id)).toEqual(ids)

        yield* store.appendTurns("links", [Fixtures.turn("user", "more", { id: "after" })])
        const second = yield* store.insertLeaf(leafOf("links", ["after"]))
        const parent = yield* store.insertCondensed({
          sessionId: "links",
          content: "both",
          tier: "normal",
          tokenEstimate: 1,
          childIds: [leaf.id, second.id]
        })
        expect(Option.getOrThrow(yield* store.summary(parent.id)).sourceSummaryIds).toEqual([leaf.id, second.id])
        expect((yield* store.children(parent.id)).map((c) => c.id)).toEqual([leaf.id, second.id])
        expect((yield* store.sourceTurns(parent.id)).map((t) => t.id)).toEqual([...ids, "after"])
      }))

    it.effect("writes a leaf with its links, and refuses to cover a turn twice", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("leaf", Fixtures.conversation(6))
        const leaf = yield* store.insertLeaf(leafOf("leaf", ["t0", "t1", "t2"]))
        expect(leaf.depth).toBe(0)
        expect(leaf.sourceTurnIds).toEqual(["t0", "t1", "t2"])
        expect(leaf.timeRangeStart).toBe("2025-01-01T00:00:00.000Z")
        expect(leaf.timeRangeEnd).toBe("2025-01-01T00:02:00.000Z")
        expect(Option.getOrThrow(yield* store.summary(leaf.id))).toEqual(leaf)

        // Covered twice, unknown, out of order, skipping a turn or repeating one: refused.
        for (const ids of [["t2", "t3"], ["t3", "nope"], ["t4", "t3"], ["t4"], ["t3", "t3"]]) {
          const refused = yield* Effect.exit(store.insertLeaf(leafOf("leaf", ids)))
          assert(Exit.isFailure(refused))
        }
        const error = yield* Effect.flip(store.insertLeaf(leafOf("leaf", ["t2", "t3"])))
        expect(error._tag).toBe("StoreError")
        expect(error.message).toBe(
          "DagStore.insertLeaf: the turns must be the next 2 uncovered turns of session leaf, in order"
        )
        expect((yield* store.summaries("leaf")).length).toBe(1)
        expect((yield* store.uncoveredTurns("leaf")).map((t) => t.id)).toEqual(["t3", "t4", "t5"])
        expect((yield* store.sourceTurns(leaf.id)).map((t) => t.id)).toEqual(["t0", "t1", "t2"])
        expect(Option.getOrThrow(yield* store.latestLeaf("leaf")).id).toBe(leaf.id)
      }))

    it.effect("rewrites a summary's text, tier and estimate in place, and refuses an unknown id", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("rewrite", Fixtures.conversation(4))
        const leaf = yield* store.insertLeaf({ ...leafOf("rewrite", ["t0", "t1"], "cut\n[TRUNCATED]"), tier: "fallback" })
        const rewritten = yield* store.rewriteSummary(leaf.id, { content: "a real summary", tier: "normal", tokenEstimate: 3 })
        expect(rewritten).toEqual({ ...leaf, content: "a real summary", tier: "normal", tokenEstimate: 3 })
        expect(Option.getOrThrow(yield* store.summary(leaf.id))).toEqual(rewritten)
        const unknown = yield* Effect.flip(store.rewriteSummary("nope", { content: "x", tier: "normal", tokenEstimate: 1 }))
        expect(unknown.message).toBe("DagStore.rewriteSummary: no summary nope")
      }))

    it.effect("saves a session state, keeps the one folded further, and refuses an unknown session", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("state", Fixtures.conversation(4))
        expect(yield* store.sessionState("state")).toEqual(Option.none())
        const saved = { sessionId: "state", state: "{\"turns\":2}", lastSeq: 1 }
        yield* store.saveSessionState(saved)
        expect(yield* store.sessionState("state")).toEqual(Option.some(saved))
        const further = { sessionId: "state", state: "{\"turns\":4}", lastSeq: 3 }
        yield* store.saveSessionState(further)
        // A writer that folded fewer turns comes too late: the further state stays.
        yield* store.saveSessionState(saved)
        expect(yield* store.sessionState("state")).toEqual(Option.some(further))
        const unknown = yield* Effect.flip(store.saveSessionState({ ...saved, sessionId: "nobody" }))
        expect(unknown.message).toContain("TurnStore.saveSessionState")
        expect(yield* store.sessionState("nobody")).toEqual(Option.none())
      }))

    it.effect("writes a condensed summary and its children's parent_id together", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("tree", Fixtures.conversation(8))
        const a = yield* store.insertLeaf(leafOf("tree", ["t0", "t1"], "a"))
        const b = yield* store.insertLeaf(leafOf("tree", ["t2", "t3"], "b"))
        const c = yield* store.insertLeaf(leafOf("tree", ["t4", "t5"], "c"))
        const parent = yield* store.insertCondensed({
          sessionId: "tree",
          content: "ab",
          tier: "aggressive",
          tokenEstimate: 1,
          childIds: [a.id, b.id]
        })
        expect(parent.depth).toBe(1)
        expect(parent.descendantCount).toBe(2)
        expect(parent.timeRangeStart).toBe(a.timeRangeStart)
        expect(parent.timeRangeEnd).toBe(b.timeRangeEnd)
        expect((yield* store.children(parent.id)).map((s) => s.id)).toEqual([a.id, b.id])
        expect((yield* store.parentless("tree")).map((s) => s.id)).toEqual([parent.id, c.id])
        expect((yield* store.parentless("tree", { depth: 0 })).map((s) => s.id)).toEqual([c.id])
        expect((yield* store.sourceTurns(parent.id)).map((t) => t.id)).toEqual(["t0", "t1", "t2", "t3"])

        // A child that already has a parent, or a mix of depths: nothing is written.
        const taken = yield* Effect.flip(store.insertCondensed({
          sessionId: "tree",
          content: "x",
          tier: "normal",
          tokenEstimate: 1,
          childIds: [b.id, c.id]
        }))
        expect(taken.reason).toBe("a child already has a parent")
        const mixed = yield* Effect.flip(store.insertCondensed({
          sessionId: "tree",
          content: "x",
          tier: "normal",
          tokenEstimate: 1,
          childIds: [parent.id, c.id]
        }))
        expect(mixed.reason).toBe("children of different depths")
        expect((yield* store.summaries("tree")).length).toBe(4)
        expect(Option.getOrThrow(yield* store.summary(c.id)).parentId).toBeUndefined()
        const top = yield* store.insertCondensed({
          sessionId: "tree",
          content: "top",
          tier: "normal",
          tokenEstimate: 1,
          childIds: [parent.id]
        })
        expect(top.descendantCount).toBe(3)
        expect((yield* store.summaries("tree", { depth: 2 })).map((s) => s.id)).toEqual([top.id])
      }))

    it.effect("rolls back a condensed write whose link update fails", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const sql = yield* SqlClient.SqlClient
        yield* store.appendTurns("atomic", Fixtures.conversation(4))
        const a = yield* store.insertLeaf(leafOf("atomic", ["t0", "t1"]))
        const b = yield* store.insertLeaf(leafOf("atomic", ["t2", "t3"]))
        // Make the last statement of the transaction (the parent_id update) fail.
        yield* dialect.refuse("refuse_links", "BEFORE UPDATE OF parent_id ON summaries", "true", "refused")
        const error = yield* Effect.flip(store.insertCondensed({
          sessionId: "atomic",
          content: "p",
          tier: "normal",
          tokenEstimate: 1,
          childIds: [a.id, b.id]
        }))
        yield* dialect.dropTrigger("refuse_links", "summaries")
        expect(error.message).toContain("refused")
        expect((yield* store.summaries("atomic")).map((s) => s.id)).toEqual([a.id, b.id])
        expect(yield* sql`SELECT ss.* FROM summary_sources ss JOIN summaries s ON s.id = ss.summary_id
          WHERE s.session_id = 'atomic' AND ss.child_summary_id IS NOT NULL`).toEqual([])
        expect(yield* violations()).toEqual([])
      }))

    it.effect("a search right after appending finds the new turns; indexSearch then has nothing left", () =>
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
      }))

    it.effect("deleting and updating indexed and not yet indexed turns keeps the index consistent and search right", () =>
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
      }))

    it.effect("searches running while turns are appended find the turns appended before them", () =>
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
      }))

    it.effect("an append is all or nothing", () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* dialect.refuse("refuse_bad", "BEFORE INSERT ON turns", "NEW.content = 'bad'", "bad turn")
        const turns = Array.from({ length: 250 }, (_, i) => Fixtures.turn("user", i === 240 ? "bad" : `m${i}`))
        const error = yield* Effect.flip(store.appendTurns("partial", turns))
        yield* dialect.dropTrigger("refuse_bad", "turns")
        expect(error.message).toContain("bad turn")
        expect(yield* store.turns("partial")).toEqual([])
      }))
  })


    layer(store)((it) => {
      it.effect("the work queue: appends queue their session, claims go round it, a settle holds unless turns came in", () =>
        Effect.gen(function*() {
          const store = yield* Store.all
          const claimed = Effect.map(store.claimWork, Option.map((claim) => claim.sessionId))
          expect(yield* store.claimWork).toEqual(Option.none())
          yield* store.appendTurns("qa", Fixtures.conversation(2))
          yield* store.appendTurns("qb", Fixtures.conversation(1))
          // The least claimed first (then by id); a claim moves the session behind the others.
          expect([yield* claimed, yield* claimed, yield* claimed]).toEqual(["qa", "qb", "qa"].map(Option.some))
          const b = Option.getOrThrow(yield* store.claimWork)
          expect(b.sessionId).toBe("qb")
          // Turns came in since the claim: the settle leaves the session queued, with a new stamp.
          yield* store.appendTurns("qb", Fixtures.conversation(2))
          expect(yield* store.settleWork(b)).toBe(false)
          const a = Option.getOrThrow(yield* store.claimWork)
          expect(a.sessionId).toBe("qa")
          expect(yield* store.settleWork(a)).toBe(true)
          const b2 = Option.getOrThrow(yield* store.claimWork)
          expect(b2.sessionId).toBe("qb")
          assert.notStrictEqual(b2.stamp, b.stamp)
          expect(yield* store.settleWork(b2)).toBe(true)
          expect(yield* store.claimWork).toEqual(Option.none())
          // An append that adds nothing (repeats) or fails (a conflict) queues nothing.
          expect(yield* store.appendTurns("qa", Fixtures.conversation(2))).toEqual([])
          yield* Effect.flip(store.appendTurns("qa", [Fixtures.turn("user", "other", { id: "t0" })]))
          expect(yield* store.claimWork).toEqual(Option.none())
          // A rolled-back transaction takes its queue entry with it.
          yield* Effect.flip(store.withTransaction(Effect.zipRight(store.appendTurns("qc", Fixtures.conversation(1)), Effect.fail("no"))))
          expect(yield* store.claimWork).toEqual(Option.none())
        }))
    })

    layer(store)((it) => {
      it.effect("claims made at the same moment take different sessions", () =>
        Effect.gen(function*() {
          const store = yield* Store.all
          const ids = Array.from({ length: 8 }, (_, i) => `c${i}`)
          yield* Effect.forEach(ids, (id) => store.appendTurns(id, Fixtures.conversation(1)), { discard: true })
          const claims = yield* Effect.all(Array.from({ length: 8 }, () => store.claimWork), { concurrency: 8 })
          expect(claims.map((claim) => Option.getOrThrow(claim).sessionId).sort()).toEqual(ids)
        }))
    })

    layer(store)((it) => {
      it.effect("tryWithSessionLease runs only while nobody holds the lease", () =>
        Effect.gen(function*() {
          const store = yield* Store.all
          const inner = yield* store.withSessionLease("busy", store.tryWithSessionLease("busy", Effect.succeed("ran")))
          expect(inner).toEqual(Option.none())
          expect(yield* store.tryWithSessionLease("busy", Effect.succeed("ran"))).toEqual(Option.some("ran"))
          // Released after: the lease can be taken again, with waiting too.
          expect(yield* store.withSessionLease("busy", Effect.succeed(1))).toBe(1)
        }))
    })
  })
