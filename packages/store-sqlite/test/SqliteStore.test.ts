/**
 * The SQLite store: the port's behavioural suite over it, and what the driver
 * adds (the file, its pages and journal, `layerConfig`, a file that cannot be
 * opened).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { assert, describe, expect, it } from "@effect/vitest"
import { DagStore, SqlStore, TurnStore } from "@precis/store"
import { Fixtures } from "@precis/testing"
import { sqlite, storeSuite } from "@precis/testing/StoreSuite"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SqliteStore from "../src/SqliteStore.js"

/** The store over a plain client of `filename` (SQLite's defaults: no page size or WAL set by the driver). */
const plainStore = (filename: string) =>
  SqlStore.layer(SqliteStore.make()).pipe(Layer.provideMerge(SqliteClient.layer({ filename })), Layer.orDie)

storeSuite("SqliteStore: the port", plainStore(":memory:"), sqlite)

describe("SqliteStore", () => {
  it.effect("a file-backed store survives reopening, in WAL mode", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-store-"))
      const filename = path.join(dir, "store.db")
      const write = Effect.gen(function*() {
        yield* (yield* TurnStore.TurnStore).appendTurns("file", Fixtures.conversation(4))
        return yield* (yield* DagStore.DagStore).insertLeaf(Fixtures.leaf("file", ["t0", "t1"]))
      })
      const leaf = yield* write.pipe(Effect.provide(SqliteStore.layer({ filename })))
      const [turns, summaries, mode] = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const mode = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
        const turns = yield* (yield* TurnStore.TurnStore).turns("file")
        return [turns, yield* (yield* DagStore.DagStore).summaries("file"), mode[0]!.journal_mode] as const
      }).pipe(Effect.provide(plainStore(filename)))
      fs.rmSync(dir, { recursive: true, force: true })
      expect(turns.map((t) => t.id)).toEqual(["t0", "t1", "t2", "t3"])
      expect(summaries).toEqual([leaf])
      expect(mode).toBe("wal")
    }))

  it.effect("a new file gets 16 KiB pages in WAL mode; an existing file keeps its page size", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-pages-"))
      const append = Effect.flatMap(TurnStore.TurnStore, (store) => store.appendTurns("pages", Fixtures.conversation(3)))
      // Read through a plain client: the page size belongs to the file.
      const pragmas = (filename: string) =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [page] = yield* sql<{ page_size: number }>`PRAGMA page_size`
          const [mode] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
          const turns = yield* sql<{ n: number }>`SELECT count(*) AS n FROM turns`
          return { pageSize: page!.page_size, mode: mode!.journal_mode, turns: turns[0]!.n }
        }).pipe(Effect.provide(plainStore(filename)))
      const fresh = path.join(dir, "fresh.db")
      const created = (yield* append.pipe(Effect.provide(SqliteStore.layer({ filename: fresh })))).length
      const freshPragmas = yield* pragmas(fresh)
      // Created by another client with SQLite's default page size, then opened by the store.
      const older = path.join(dir, "older.db")
      yield* pragmas(older)
      const appended = (yield* append.pipe(Effect.provide(SqliteStore.layer({ filename: older })))).length
      const olderPragmas = yield* pragmas(older)
      fs.rmSync(dir, { recursive: true, force: true })
      expect([created, appended]).toEqual([3, 3])
      expect(freshPragmas).toEqual({ pageSize: 16384, mode: "wal", turns: 3 })
      expect(olderPragmas).toEqual({ pageSize: 4096, mode: "wal", turns: 3 })
    }))

  it.effect("layerConfig opens the database named by PRECIS_DB", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-config-"))
      const filename = path.join(dir, "from-config.db")
      const added = yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.appendTurns("cfg", Fixtures.conversation(2))).pipe(
        Effect.provide(
          SqliteStore.layerConfig().pipe(
            Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["PRECIS_DB", filename]]))))
          )
        )
      )
      const exists = fs.existsSync(filename)
      fs.rmSync(dir, { recursive: true, force: true })
      expect(added.length).toBe(2)
      expect(exists).toBe(true)
    }))

  it.effect("layer provides the store's own SqlClient: a table of the caller's is written in the store's transactions", () =>
    Effect.gen(function*() {
      const store = yield* TurnStore.TurnStore
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE notes (session_id TEXT NOT NULL, body TEXT NOT NULL)`
      const both = (session: string, fail: boolean) =>
        store.withTransaction(Effect.gen(function*() {
          yield* store.appendTurns(session, Fixtures.conversation(2))
          yield* sql`INSERT INTO notes (session_id, body) VALUES (${session}, 'read two lines')`
          if (fail) return yield* Effect.fail("interrupted" as const)
        }))
      assert.strictEqual(yield* Effect.flip(both("rolled-back", true)), "interrupted")
      yield* both("committed", false)
      const notes = yield* sql<{ session_id: string }>`SELECT session_id FROM notes`
      assert.deepStrictEqual(notes.map((n) => n.session_id), ["committed"])
      assert.deepStrictEqual((yield* store.sessions).map((s) => s.id), ["committed"])
    }).pipe(Effect.provide(SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie))))

  it.effect("reports an unopenable database as a StoreError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(SqliteStore.layer({ filename: "/nonexistent-dir/x/precis.db" })).pipe(Effect.scoped)
      )
      expect(error._tag).toBe("StoreError")
      expect(error.operation).toBe("Store.open")
      expect(error.message).toMatch(/^\/nonexistent-dir\/x\/precis\.db: /)
    }))
})
