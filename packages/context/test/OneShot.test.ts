import { assert, describe, expect, it } from "@effect/vitest"
import { CompactionManager } from "@precis/compaction"
import { TokenEstimator } from "@precis/core"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import { toolSession } from "../../compaction/test/helpers.js"
import * as Assembler from "../src/Assembler.js"
import * as Layout from "../src/Layout.js"
import { assemblerLayer } from "./helpers.js"

const estimator = TokenEstimator.approximate
const sent = (assembled: Assembler.Assembled) => estimator.estimate(Layout.render(assembled))

describe("Assembler, assembled once", () => {
  it.effect("a session that fits its budget whole is given whole, verbatim: every turn, no summary", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      yield* (yield* CompactionManager.CompactionManager).compact("s", { freshTailTurns: 2, leafChunkTokens: 40 })
      expect((yield* store.summaries("s")).length).toBeGreaterThan(0)
      const readOnly = yield* Assembler.makeReadOnly
      const whole = yield* readOnly.assemble("s", { budget: 4000, ...Assembler.oneShot })
      assert.deepStrictEqual(whole.summaries, [])
      assert.deepStrictEqual(whole.pinned, [])
      assert.deepStrictEqual(whole.turns.map((t) => [t.id, t.content]), toolSession.map((t) => [t.id, t.content]))
      expect(whole.header.length).toBeGreaterThan(0)
      expect(whole.tokens).toBeLessThanOrEqual(4000)
      assert.strictEqual(whole.tokens, sent(whole))
      assert.deepStrictEqual(whole.report.stages.map((s) => s.stage), ["whole"])
      // Not whole: when asked not to, or when the turns do not fit the budget.
      const summarized = yield* readOnly.assemble("s", { budget: 4000, ...Assembler.oneShot, whole: false })
      assert.notDeepEqual(summarized.turns.map((t) => t.content), toolSession.map((t) => t.content))
      const tight = yield* readOnly.assemble("s", { budget: 200, ...Assembler.oneShot })
      assert.notInclude(tight.report.stages.map((s) => s.stage), "whole")
      expect(tight.tokens).toBeLessThanOrEqual(200)
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("the header goes before a turn does: a session that fits only without it is whole without it", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", toolSession)
      const readOnly = yield* Assembler.makeReadOnly
      const turnsOnly = estimator.estimate(Layout.render({ summaries: [], turns: toolSession }))
      const whole = yield* readOnly.assemble("s", { budget: turnsOnly, ...Assembler.oneShot })
      assert.strictEqual(whole.header, "")
      assert.deepStrictEqual(whole.turns.map((t) => t.content), toolSession.map((t) => t.content))
      expect(whole.tokens).toBeLessThanOrEqual(turnsOnly)
    }).pipe(Effect.provide(assemblerLayer())))
})
