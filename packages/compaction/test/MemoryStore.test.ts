import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Fixtures } from "@precis/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as MemoryStore from "../src/MemoryStore.js"
import * as SqliteMemoryStore from "../src/SqliteMemoryStore.js"
import { storeLayer } from "./helpers.js"
import { leafOf, sqlite, storeSuite } from "./storeSuite.js"


storeSuite("MemoryStore (SQLite)", storeLayer(), sqlite)

describe("MemoryStore", () => {
  it.effect("a file-backed store survives reopening, in WAL mode", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-store-"))
      const filename = path.join(dir, "store.db")
      const write = Effect.gen(function*() {
        const store = yield* MemoryStore.MemoryStore
        yield* store.appendTurns("file", Fixtures.conversation(4))
        return yield* store.insertLeaf(leafOf("file", ["t0", "t1"]))
      })
      const leaf = yield* write.pipe(Effect.provide(SqliteMemoryStore.layer({ filename })))
      const [turns, summaries, mode] = yield* Effect.gen(function*() {
        const store = yield* MemoryStore.MemoryStore
        const sql = yield* SqlClient.SqlClient
        const mode = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
        return [yield* store.turns("file"), yield* store.summaries("file"), mode[0]!.journal_mode] as const
      }).pipe(Effect.provide(storeLayer(filename)))
      fs.rmSync(dir, { recursive: true, force: true })
      expect(turns.map((t) => t.id)).toEqual(["t0", "t1", "t2", "t3"])
      expect(summaries).toEqual([leaf])
      expect(mode).toBe("wal")
    }))

  it.effect("a new file gets 16 KiB pages in WAL mode; an existing file keeps its page size", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-pages-"))
      const append = Effect.flatMap(MemoryStore.MemoryStore, (store) => store.appendTurns("pages", Fixtures.conversation(3)))
      // Read through a plain client: the page size belongs to the file.
      const pragmas = (filename: string) =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [page] = yield* sql<{ page_size: number }>`PRAGMA page_size`
          const [mode] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
          const turns = yield* sql<{ n: number }>`SELECT count(*) AS n FROM turns`
          return { pageSize: page!.page_size, mode: mode!.journal_mode, turns: turns[0]!.n }
        }).pipe(Effect.provide(storeLayer(filename)))
      const fresh = path.join(dir, "fresh.db")
      const created = (yield* append.pipe(Effect.provide(SqliteMemoryStore.layer({ filename: fresh })))).length
      const freshPragmas = yield* pragmas(fresh)
      // Created by another client with SQLite's default page size, then opened by the store.
      const older = path.join(dir, "older.db")
      yield* pragmas(older)
      const appended = (yield* append.pipe(Effect.provide(SqliteMemoryStore.layer({ filename: older })))).length
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
      const added = yield* Effect.flatMap(MemoryStore.MemoryStore, (store) => store.appendTurns("cfg", Fixtures.conversation(2))).pipe(
        Effect.provide(
          SqliteMemoryStore.layerConfig().pipe(
            Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["PRECIS_DB", filename]]))))
          )
        )
      )
      const exists = fs.existsSync(filename)
      fs.rmSync(dir, { recursive: true, force: true })
      expect(added.length).toBe(2)
      expect(exists).toBe(true)
    }))

  it.effect("reports an unopenable database as a StoreError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(SqliteMemoryStore.layer({ filename: "/nonexistent-dir/x/precis.db" })).pipe(Effect.scoped)
      )
      expect(error._tag).toBe("StoreError")
      expect(error.operation).toBe("open")
      expect(error.message).toMatch(/^\/nonexistent-dir\/x\/precis\.db: /)
    }))
})
