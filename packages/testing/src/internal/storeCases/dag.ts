/**
 * The store suite's cases of the summary DAG: leaves, condensed summaries, their links and their
 * atomic writes.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, expect } from "@effect/vitest"
import { SessionState, TokenEstimator } from "@precis/core"
import { Store, Tables } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Fixtures from "../../Fixtures.js"
import { violations } from "../../StoreInvariants.js"
import type { Case } from "./case.js"

/** @internal */
export const cases: ReadonlyArray<Case> = [
  {
    name: "links every source of a large leaf and condensed summary in order, whatever the ids hold",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const sql = yield* SqlClient.SqlClient
        // More sources than one insert batch, with ids that need quoting or escaping (but no control
        // characters: no store takes those, `ConversationTurn.isId`).
        const odd = ["q\"uote", "back\\slash", "per%cent_", "é ü 中文 😀", "[1,2]", "'single'"]
        const ids = Array.from({ length: 250 }, (_, i) => `${odd[i % odd.length]}#${i}`)
        yield* store.appendTurns("links", ids.map((id) => Fixtures.turn("user", `content ${id}`, { id })))
        const leaf = yield* store.insertLeaf(Fixtures.leaf("links", ids))
        expect(Option.getOrThrow(yield* store.summary(leaf.id)).sourceTurnIds).toEqual(ids)
        const rows = Schema.decodeUnknownSync(Schema.Array(Tables.SourceRow))(
          yield* sql`SELECT * FROM summary_sources WHERE summary_id = ${leaf.id} ORDER BY position`
        )
        expect(rows.map((r) => r.position)).toEqual(ids.map((_, i) => i))
        expect(rows.map((r) => r.turn_id)).toEqual(ids)
        expect((yield* store.sourceTurns(leaf.id)).map((t) => t.id)).toEqual(ids)

        yield* store.appendTurns("links", [Fixtures.turn("user", "more", { id: "after" })])
        const second = yield* store.insertLeaf(Fixtures.leaf("links", ["after"]))
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
      })
  },
  {
    name: "writes a leaf with its links, and refuses to cover a turn twice",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("leaf", Fixtures.conversation(6))
        const leaf = yield* store.insertLeaf(Fixtures.leaf("leaf", ["t0", "t1", "t2"]))
        expect(leaf.depth).toBe(0)
        expect(leaf.sourceTurnIds).toEqual(["t0", "t1", "t2"])
        expect(leaf.timeRangeStart).toBe("2025-01-01T00:00:00.000Z")
        expect(leaf.timeRangeEnd).toBe("2025-01-01T00:02:00.000Z")
        expect(Option.getOrThrow(yield* store.summary(leaf.id))).toEqual(leaf)

        // Covered twice, unknown, out of order, skipping a turn or repeating one: refused.
        for (const ids of [["t2", "t3"], ["t3", "nope"], ["t4", "t3"], ["t4"], ["t3", "t3"]]) {
          const refused = yield* Effect.exit(store.insertLeaf(Fixtures.leaf("leaf", ids)))
          assert(Exit.isFailure(refused))
        }
        const error = yield* Effect.flip(store.insertLeaf(Fixtures.leaf("leaf", ["t2", "t3"])))
        expect(error._tag).toBe("StoreError")
        expect(error.message).toBe(
          "DagStore.insertLeaf: the turns must be the next 2 uncovered turns of session leaf, in order"
        )
        expect((yield* store.summaries("leaf")).length).toBe(1)
        expect((yield* store.uncoveredTurns("leaf")).map((t) => t.id)).toEqual(["t3", "t4", "t5"])
        expect((yield* store.sourceTurns(leaf.id)).map((t) => t.id)).toEqual(["t0", "t1", "t2"])
        expect(Option.getOrThrow(yield* store.latestLeaf("leaf")).id).toBe(leaf.id)
      })
  },
  {
    name: "finds summaries by an id prefix (a short id), of one session or of all, in order, within the limit",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        // 17 leaves: two of them share their first hex digit, whatever ids they get.
        yield* store.appendTurns("prefixed", Fixtures.conversation(17))
        const leaves = yield* Effect.forEach(Array.from({ length: 17 }, (_, i) => `t${i}`), (id) =>
          store.insertLeaf(Fixtures.leaf("prefixed", [id])))
        yield* store.appendTurns("other", Fixtures.conversation(1))
        const other = yield* store.insertLeaf(Fixtures.leaf("other", ["t0"]))
        const ids = (sessionId: string | undefined, prefix: string, limit?: number) =>
          Effect.map(store.summariesWithIdPrefix(sessionId, prefix, limit), (found) => found.map((s) => s.id))
        const first = leaves[0]!
        expect(yield* store.summariesWithIdPrefix("prefixed", first.id)).toEqual([first])
        expect(yield* ids("prefixed", SessionState.shortId(first.id))).toEqual([first.id])
        expect(yield* ids(undefined, SessionState.shortId(other.id))).toEqual([other.id])
        expect(yield* ids("prefixed", SessionState.shortId(other.id))).toEqual([])
        const digit = leaves.map((l) => l.id[0]!).find((d, i, all) => all.indexOf(d) !== i)!
        const shared = leaves.filter((l) => l.id.startsWith(digit)).map((l) => l.id)
        expect(shared.length).toBeGreaterThan(1)
        expect(yield* ids("prefixed", digit)).toEqual(shared)
        expect(yield* ids("prefixed", digit, 1)).toEqual(shared.slice(0, 1))
        // Every session: by session, then in conversation order (a shared database holds other cases' too).
        const mine = new Set([other.id, ...leaves.map((l) => l.id)])
        expect((yield* ids(undefined, digit, 1000)).filter((id) => mine.has(id))).toEqual([
          ...(other.id.startsWith(digit) ? [other.id] : []),
          ...shared
        ])
        // No pattern characters: `%` and `_` are themselves.
        expect(yield* ids(undefined, "%")).toEqual([])
        expect(yield* ids(undefined, "_")).toEqual([])
      })
  },
  {
    name: "rewrites a summary's text, tier and estimate in place, and refuses an unknown id",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("rewrite", Fixtures.conversation(4))
        const leaf = yield* store.insertLeaf({ ...Fixtures.leaf("rewrite", ["t0", "t1"], "cut\n[TRUNCATED]"), tier: "fallback" })
        const rewritten = yield* store.rewriteSummary(leaf.id, { content: "a real summary", tier: "normal", tokenEstimate: 3 })
        expect(rewritten).toEqual({ ...leaf, content: "a real summary", tier: "normal", tokenEstimate: 3 })
        expect(Option.getOrThrow(yield* store.summary(leaf.id))).toEqual(rewritten)
        const unknown = yield* Effect.flip(store.rewriteSummary("nope", { content: "x", tier: "normal", tokenEstimate: 1 }))
        expect(unknown.message).toBe("DagStore.rewriteSummary: no summary nope")
      })
  },
  {
    name: "keeps a summary's Also keys with it: written, read back, rewritten, a condensation's own",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("keys", Fixtures.conversation(4))
        const text = "a\nAlso: src/a.ts; pnpm test"
        const a = yield* store.insertLeaf({
          ...Fixtures.leaf("keys", ["t0", "t1"], text),
          tokenEstimate: TokenEstimator.approximate.estimate(text),
          alsoKeys: ["src/a.ts", "pnpm test"]
        })
        const b = yield* store.insertLeaf(Fixtures.leaf("keys", ["t2", "t3"], "b"))
        expect([a.alsoKeys, b.alsoKeys]).toEqual([["src/a.ts", "pnpm test"], []])
        expect((yield* store.summaries("keys")).map((s) => s.alsoKeys)).toEqual([["src/a.ts", "pnpm test"], []])
        const rewritten = yield* store.rewriteSummary(b.id, { content: "b\nAlso: B.x", tier: "normal", tokenEstimate: 2, alsoKeys: ["B.x"] })
        expect(rewritten.alsoKeys).toEqual(["B.x"])
        const parent = yield* store.insertCondensed({
          sessionId: "keys",
          content: "ab\nAlso: src/a.ts; pnpm test; B.x",
          tier: "normal",
          tokenEstimate: TokenEstimator.approximate.estimate("ab\nAlso: src/a.ts; pnpm test; B.x"),
          alsoKeys: ["src/a.ts", "pnpm test", "B.x"],
          childIds: [a.id, b.id]
        })
        expect(Option.getOrThrow(yield* store.summary(parent.id)).alsoKeys).toEqual(["src/a.ts", "pnpm test", "B.x"])
        expect((yield* store.children(parent.id)).map((s) => s.alsoKeys)).toEqual([["src/a.ts", "pnpm test"], ["B.x"]])
      })
  },
  {
    name: "writes a condensed summary and its children's parent_id together",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("tree", Fixtures.conversation(8))
        const a = yield* store.insertLeaf(Fixtures.leaf("tree", ["t0", "t1"], "a"))
        const b = yield* store.insertLeaf(Fixtures.leaf("tree", ["t2", "t3"], "b"))
        const c = yield* store.insertLeaf(Fixtures.leaf("tree", ["t4", "t5"], "c"))
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
        expect([taken.reason, taken.description]).toEqual(["InvalidInput", "a child already has a parent"])
        const mixed = yield* Effect.flip(store.insertCondensed({
          sessionId: "tree",
          content: "x",
          tier: "normal",
          tokenEstimate: 1,
          childIds: [parent.id, c.id]
        }))
        expect([mixed.reason, mixed.description]).toEqual(["InvalidInput", "children of different depths"])
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
      })
  },
  {
    name: "rolls back a condensed write whose link update fails",
    run: (dialect) =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const sql = yield* SqlClient.SqlClient
        yield* store.appendTurns("atomic", Fixtures.conversation(4))
        const a = yield* store.insertLeaf(Fixtures.leaf("atomic", ["t0", "t1"]))
        const b = yield* store.insertLeaf(Fixtures.leaf("atomic", ["t2", "t3"]))
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
      })
  }
]
