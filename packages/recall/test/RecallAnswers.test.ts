/**
 * What the recall tools answer a new user: a unique start of a turn id names
 * it, an unknown session is `no session` whatever the tool, a turn cut to
 * the page's cap says how to read it whole, and a turn without text says it
 * held only reasoning. The tools as a model calls them (`Toolkit.handle`),
 * over a SQLite store.
 */
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { Fixtures } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PrecisToolkit from "../src/PrecisToolkit.js"

const ToolsLive = PrecisToolkit.layer.pipe(Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie)))

const call = (name: "read" | "search" | "expand" | "describe", params: Record<string, unknown>) =>
  Effect.flatMap(PrecisToolkit.PrecisToolkit, (toolkit) => toolkit.handle(name, params as never))

const message = (result: { readonly result: unknown }) => (result.result as PrecisToolkit.RecallError).message

const seeded = Effect.gen(function*() {
  const store = yield* Store.all
  yield* store.appendTurns("s", [
    Fixtures.turn("assistant", "word ".repeat(2000), { id: "c0c0c0c0-3333-4000-8000-000000000003" }),
    Fixtures.turn("user", "Explain the retry budget", { id: "daa5f00d-1111-4000-8000-000000000001" }),
    Fixtures.turn("assistant", "\n\n", { id: "b0b0b0b0-2222-4000-8000-000000000002" }),
    Fixtures.turn("user", "Thanks", { id: "c0c0c0c1-4444-4000-8000-000000000004" })
  ])
  return yield* store.insertLeaf({
    sessionId: "s",
    content: "A long answer about retries.",
    tier: "normal",
    tokenEstimate: 8,
    turnIds: ["c0c0c0c0-3333-4000-8000-000000000003"]
  })
})

describe("recall answers", () => {
  it.effect("a unique start of an id names its turn; a start shared by two is refused with both", () =>
    Effect.gen(function*() {
      yield* seeded
      for (const prefix of ["daa5", "daa5f0", "b0b0b0b0-2222"]) {
        const found = yield* call("read", { session: "s", id: prefix, around: 0 })
        assert.isFalse(found.isFailure, prefix)
        assert.strictEqual((found.result as typeof PrecisToolkit.TurnsPage.Type).turnId.slice(0, prefix.length), prefix)
      }
      const shared = yield* call("read", { session: "s", id: "c0c0c0c", around: 0 })
      assert.isTrue(shared.isFailure)
      assert.include(message(shared), "c0c0c0c0-3333")
      assert.include(message(shared), "c0c0c0c1-4444")
    }).pipe(Effect.provide(ToolsLive)))

  it.effect("an unknown session is `no session` for search, read and describe alike", () =>
    Effect.gen(function*() {
      yield* seeded
      for (const [name, params] of [
        ["search", { query: "retry", session: "nobody" }],
        ["read", { session: "nobody", id: "daa5" }],
        ["describe", { session: "nobody" }]
      ] as const) {
        const result = yield* call(name, params)
        assert.isTrue(result.isFailure, name)
        assert.strictEqual(message(result), "no session \"nobody\"", name)
      }
      // A known session still searches; without a session every one is searched.
      assert.isFalse((yield* call("search", { query: "retry", session: "s" })).isFailure)
      assert.isFalse((yield* call("search", { query: "retry" })).isFailure)
    }).pipe(Effect.provide(ToolsLive)))

  it.effect("a turn cut to maxTokens says how read gives it whole; the read it names does", () =>
    Effect.gen(function*() {
      const leaf = yield* seeded
      const opened = yield* call("expand", { summaryId: leaf.id, maxTokens: 100 })
      const page = opened.result as typeof PrecisToolkit.ExpandPage.Type
      const cut = page.items[0]!
      assert.isTrue(cut.truncated)
      const named = /read (\{.*\}) gives it whole/.exec(cut.hint ?? "")
      assert.isNotNull(named, cut.hint)
      const whole = yield* call("read", JSON.parse(named![1]!))
      const items = (whole.result as typeof PrecisToolkit.TurnsPage.Type).items
      assert.deepStrictEqual(items.map((i) => [i.truncated, i.content]), [[false, "word ".repeat(2000)]])
      // A turn that fits is not cut and has no hint.
      const read = yield* call("read", { session: "s", id: "c0c0c0c1", around: 0 })
      assert.isUndefined((read.result as typeof PrecisToolkit.TurnsPage.Type).items[0]!.hint)
    }).pipe(Effect.provide(ToolsLive)))

  it.effect("a turn with no text says it held only the model's reasoning", () =>
    Effect.gen(function*() {
      yield* seeded
      const read = yield* call("read", { session: "s", id: "b0b0b0b0", around: 0 })
      const item = (read.result as typeof PrecisToolkit.TurnsPage.Type).items[0]!
      assert.include(item.content, "only the model's reasoning")
      assert.notInclude(item.content, "\n")
    }).pipe(Effect.provide(ToolsLive)))
})
