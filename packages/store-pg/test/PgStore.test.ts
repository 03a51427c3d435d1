/**
 * The PostgreSQL store: the port's behavioural suite over it, and what the
 * driver adds (`layerConfig`, its search, a server that cannot be reached).
 * Skipped without a test server (`PRECIS_TEST_PG_URL`), except under CI.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Store, TurnStore, WorkQueue } from "@precis/store"
import { Fixtures, Logs } from "@precis/testing"
import { postgres, storeSuite } from "@precis/testing/StoreSuite"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as PgStore from "../src/PgStore.js"
import { freshPgDatabase, pgClient, pgStoreLayer, skipPg } from "./helpers.js"

describe.skipIf(skipPg)("PgStore", () => {
  storeSuite("PgStore: the port", pgStoreLayer(), postgres)

  it.scoped("layerConfig connects to PRECIS_PG_URL, and a second store over a migrated database migrates nothing", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const config = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["PRECIS_PG_URL", url]])))
      const append = (n: number) =>
        Effect.flatMap(TurnStore.TurnStore, (store) => store.appendTurns("cfg", Fixtures.conversation(n))).pipe(
          Effect.provide(PgStore.layerConfig().pipe(Layer.provide(config)))
        )
      expect((yield* append(2)).length).toBe(2)
      expect((yield* append(3)).map((t) => t.id)).toEqual(["t2"])
    }))

  it.effect("search: words over turns and summaries, a turn's leaf, the session filter, input that is no syntax", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("a", [
        Fixtures.turn("user", "the flux capacitor hums in src/app.ts", { id: "a0" }),
        Fixtures.turn("assistant", "replaced the capacitor", { id: "a1" })
      ])
      yield* store.appendTurns("b", [Fixtures.turn("user", "a capacitor elsewhere", { id: "b0" })])
      const leaf = yield* store.insertLeaf({
        sessionId: "a",
        content: "Capacitor notes",
        tier: "normal",
        tokenEstimate: 3,
        turnIds: ["a0"]
      })
      const all = yield* store.search(undefined, "capacitor")
      expect(all.map((h) => `${h.kind}:${h.id}`).sort()).toEqual(["summary:" + leaf.id, "turn:a0", "turn:a1", "turn:b0"].sort())
      const inA = yield* store.search("a", "flux capacitor")
      expect(inA.map((h) => h.id)).toEqual(["a0"])
      expect(inA[0]!.leafId).toBe(leaf.id)
      expect(inA[0]!.seq).toBe(0)
      expect(inA[0]!.snippet).toContain("«capacitor»")
      // a path is a phrase of its words; a prefix; operators and quotes are plain text
      expect((yield* store.search("a", "src/app.ts")).map((h) => h.id)).toEqual(["a0"])
      expect((yield* store.search("a", "capac*")).length).toBe(3)
      // Operators are text: symbols alone match nothing, and words keep their meaning around them.
      for (const odd of ["\"", "*", "-", "&|!()", "':*", "NEAR("]) {
        expect(yield* store.search("a", odd)).toEqual([])
      }
      expect((yield* store.search("a", "flux & !hums")).map((h) => h.id)).toEqual(["a0"])
      expect((yield* store.search("a", "'flux' | nothing")).map((h) => h.id)).toEqual([])
      expect(yield* store.search("a", "   ")).toEqual([])
      expect((yield* store.search(undefined, "capacitor", { limit: 2 })).length).toBe(2)
    }).pipe(Effect.provide(pgStoreLayer())))

  it.scoped("read-only at the connection: a reader's SqlClient cannot write; create: false refuses an empty database", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const open = <A, E>(options: Omit<PgStore.PgOptions, "url">, use: Effect.Effect<A, E, Store.Store | SqlClient.SqlClient>) =>
        Effect.scoped(Effect.flatMap(Layer.build(PgStore.layer({ url: Redacted.make(url), ...options })), (ctx) => Effect.provide(use, ctx)))
      const empty = yield* Effect.flip(open({ create: false }, Effect.void))
      expect(empty.message).toBe("Store.open: not a precis store (it is empty)")
      yield* open({}, Effect.flatMap(TurnStore.TurnStore, (store) => store.appendTurns("s", Fixtures.conversation(2))))
      const write = yield* Effect.flip(open({ readonly: true }, Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO sessions (id, created_at) VALUES ('x', 'now')`)))
      expect(String(write.cause ?? write)).toMatch(/read-only transaction/)
      const turns = yield* open({ readonly: true }, Effect.flatMap(TurnStore.TurnStore, (store) => store.turns("s")))
      expect(turns.length).toBe(2)
      const added = yield* open({ create: false }, Effect.flatMap(TurnStore.TurnStore, (store) => store.appendTurns("s", Fixtures.conversation(3))))
      expect(added.length).toBe(1)
    }))

  it.scoped("the projects migration gives the sessions a schema-7 database holds their project and time span", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const store = PgStore.layer({ url: Redacted.make(url) })
      yield* Effect.flatMap(TurnStore.TurnStore, (turns) =>
        turns.appendTurns("s", [
          Fixtures.turn("user", "hi", { id: "a", timestamp: "2025-01-02T00:00:00Z", metadata: { sourceFormat: "codex", cwd: "" } }),
          Fixtures.turn("user", "go", { id: "b", timestamp: "2025-01-03T00:00:00Z", metadata: { cwd: "/w/app", gitRoot: "/w" } }),
          Fixtures.turn("user", "on", { id: "c", timestamp: "2025-01-01T00:00:00Z", metadata: { cwd: "/w/other" } })
        ])).pipe(Effect.provide(store))
      // Back to schema 7: the columns and the migration's record go.
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.forEach([
          // Back to schema 7: what 8_followed_files, 9_projects and 11_summary_keys added goes.
          "ALTER TABLE summaries DROP COLUMN also_keys",
          "DROP TABLE followed_files",
          "DROP INDEX sessions_cwd",
          "DROP INDEX sessions_git_root",
          ...["cwd", "git_root", "agent", "started_at", "ended_at"].map((column) => `ALTER TABLE sessions DROP COLUMN ${column}`),
          "DELETE FROM precis_migrations WHERE migration_id > 7"
        ], (statement) => sql.unsafe(statement))).pipe(Effect.provide(pgClient(url)), Effect.orDie)
      const sessions = yield* Effect.flatMap(TurnStore.TurnStore, (turns) => turns.sessions).pipe(Effect.provide(store))
      expect(sessions.map((s) => [s.id, s.project, s.startedAt, s.endedAt])).toEqual([
        ["s", { directory: "/w/app", gitRoot: "/w", agent: "codex" }, "2025-01-01T00:00:00Z", "2025-01-03T00:00:00Z"]
      ])
    }))

  it.scoped("NUL: refused in a turn (a StoreError, not the driver's), stripped by nobody else; the same on SQLite", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const error = yield* Effect.flip(
        Effect.flatMap(TurnStore.TurnStore, (store) =>
          store.appendTurns("s", [Fixtures.turn("user", "ok"), { role: "tool", content: "bin\u0000ary" } as never])).pipe(
            Effect.provide(PgStore.layer({ url: Redacted.make(url) }))
          )
      )
      expect(error.message).toBe("TurnStore.appendTurns: turn 2 of 2: \"content\" must not hold U+0000 (NUL)")
    }))

  it.scopedLive("a waiter for a session's lock says so once, then takes it when the holder lets go", () => {
    const warnings = Logs.capture()
    return Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const store = Layer.fresh(PgStore.layer({ url: Redacted.make(url) }))
      const gate = yield* Deferred.make<void>()
      const held = yield* Deferred.make<void>()
      const lease = (effect: Effect.Effect<void>) =>
        Effect.flatMap(WorkQueue.WorkQueue, (queue) => queue.withSessionLease("s", effect)).pipe(Effect.provide(store))
      const a = yield* Effect.fork(lease(Effect.zipRight(Deferred.succeed(held, undefined), Deferred.await(gate))))
      yield* Deferred.await(held)
      const b = yield* Effect.fork(lease(Effect.void))
      yield* Effect.sleep("300 millis")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(a)
      yield* Fiber.join(b)
      expect(warnings.messages).toEqual([
        "session s is held by another process (compacting it): waiting until it is done " +
        "(a holder that was killed gives it up at once, with its connection)"
      ])
    }).pipe(Effect.provide(warnings.layer))
  })

  it.effect("reports an unreachable server as a StoreError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(PgStore.layer({ host: "127.0.0.1", port: 1, database: "x" })).pipe(Effect.scoped)
      )
      expect(error._tag).toBe("StoreError")
      expect(error.operation).toBe("Store.open")
    }))
})

describe("PgStore.isUrl", () => {
  it("tells PostgreSQL URLs from file names", () => {
    expect(["postgres://u@h:5432/db", "postgresql://h/db", "POSTGRES://x"].map(PgStore.isUrl)).toEqual([true, true, true])
    expect(["precis.db", "./postgres://x", ":memory:"].map(PgStore.isUrl)).toEqual([false, false, false])
  })
})
