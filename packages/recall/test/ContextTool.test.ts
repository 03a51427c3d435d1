/**
 * The `context` tool over a real (in-memory) store: the session's context
 * within the budget, the session-state header first and the recall note
 * last; a session far over the budget is fitted, never compacted.
 */
import { assert, describe, it } from "@effect/vitest"
import { CompactionManager } from "@precis/compaction"
import { Summarizer } from "@precis/core"
import { DagStore, Store } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { Fixtures, ScriptedProvider } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ContextTool from "../src/ContextTool.js"
import type * as PrecisToolkit from "../src/PrecisToolkit.js"

/** 60 turns of about 60 tokens each, the first two under a leaf. */
const seeded = Effect.gen(function*() {
  const store = yield* Store.all
  const turns = Array.from({ length: 60 }, (_, i) =>
    Fixtures.turn(
      i % 2 === 0 ? "user" : "assistant",
      `Step ${i}: edited src/module${i}.ts and ran pnpm test; it failed with TypeError x${i}, fixed by a guard. ` +
        "We keep the retry budget at three attempts and log every call.",
      { id: `t${i}` }
    ))
  yield* store.appendTurns("s", turns)
  return yield* store.insertLeaf(Fixtures.leaf("s", ["t0", "t1"], "Edited src/module0.ts; TypeError x0 fixed."))
})

/** The handlers over an in-memory store, with a manager whose model would write summaries if it were asked. */
const Live = ContextTool.layer.pipe(
  Layer.provideMerge(
    CompactionManager.layer().pipe(Layer.provide(Summarizer.layer().pipe(Layer.provide(ScriptedProvider.alwaysReply("Edited modules; TypeErrors fixed.")))))
  ),
  Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie))
)

describe("ContextTool", () => {
  it.effect("context fits the session into the budget, everything sent counted, never compacting", () =>
    Effect.gen(function*() {
      const leaf = yield* seeded
      const tools = yield* ContextTool.WithContext
      const handled = yield* tools.handle("context", { session: "s", budget: 1000 })
      assert.isFalse(handled.isFailure)
      const result = handled.result as typeof ContextTool.Assembled.Type
      assert.strictEqual(result.sessionId, "s")
      assert.isAtMost(result.tokens, 1000)
      assert.isBelow(result.turns, 58)
      assert.strictEqual(result.summaries, 1)
      // Layout's order: the first request pinned, the summaries and their recall note, the header, the turns.
      assert.match(result.text, /^\[\?\] user: /)
      assert.include(result.text, "Edited src/module0.ts")
      assert.include(result.text, `Summary ids: ${leaf.id}.\n\nSession state`)
      assert.strictEqual(Math.floor(Array.from(result.text).length / 4), result.tokens)
      // Over the budget, yet never compacted: the one leaf is still the only summary.
      const dag = yield* DagStore.DagStore
      assert.strictEqual((yield* dag.summaries("s")).length, 1)
    }).pipe(Effect.provide(Live)))

  it.effect("an unknown session is a RecallError result; the toolkit holds the five tools", () =>
    Effect.gen(function*() {
      yield* seeded
      const tools = yield* ContextTool.WithContext
      const handled = yield* tools.handle("context", { session: "nobody" })
      assert.isTrue(handled.isFailure)
      assert.strictEqual((handled.result as PrecisToolkit.RecallError).message, "no session \"nobody\"")
      assert.deepStrictEqual(Object.keys(tools.tools).sort(), ["context", "describe", "expand", "read", "recent", "search"])
    }).pipe(Effect.provide(Live)))
})
