import { describe, expect, it } from "@effect/vitest"
import { Fixtures } from "@precis/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as MemoryStore from "../src/MemoryStore.js"
import * as PgMemoryStore from "../src/PgMemoryStore.js"
import { freshPgDatabase, pgStoreLayer, skipPg } from "./helpers.js"
import { postgres, storeSuite } from "./storeSuite.js"

describe.skipIf(skipPg)("PgMemoryStore", () => {
  storeSuite("MemoryStore (PostgreSQL)", pgStoreLayer(), postgres)

  it.scoped("layerConfig connects to PRECIS_PG_URL, and a second store over a migrated database migrates nothing", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const config = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["PRECIS_PG_URL", url]])))
      const append = (n: number) =>
        Effect.flatMap(MemoryStore.MemoryStore, (store) => store.appendTurns("cfg", Fixtures.conversation(n))).pipe(
          Effect.provide(PgMemoryStore.layerConfig().pipe(Layer.provide(config)))
        )
      expect((yield* append(2)).length).toBe(2)
      expect((yield* append(3)).map((t) => t.id)).toEqual(["t2"])
    }))

  it.effect("reports an unreachable server as a StoreError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(PgMemoryStore.layer({ host: "127.0.0.1", port: 1, database: "x" })).pipe(Effect.scoped)
      )
      expect(error._tag).toBe("StoreError")
      expect(error.operation).toBe("open")
    }))
})

describe("PgMemoryStore.isUrl", () => {
  it("tells PostgreSQL URLs from file names", () => {
    expect(["postgres://u@h:5432/db", "postgresql://h/db", "POSTGRES://x"].map(PgMemoryStore.isUrl)).toEqual([true, true, true])
    expect(["precis.db", "./postgres://x", ":memory:"].map(PgMemoryStore.isUrl)).toEqual([false, false, false])
  })
})
