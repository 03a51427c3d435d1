/**
 * The PostgreSQL store: the port's behavioural suite over it, and what the
 * driver adds (`layerConfig`, its search, a server that cannot be reached).
 * Skipped without a test server (`PRECIS_TEST_PG_URL`), except under CI.
 */
import { describe, expect, it } from "@effect/vitest"
import { Store, TurnStore } from "@precis/store"
import { Fixtures } from "@precis/testing"
import { postgres, storeSuite } from "@precis/testing/StoreSuite"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PgStore from "../src/PgStore.js"
import { freshPgDatabase, pgStoreLayer, skipPg } from "./helpers.js"

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
