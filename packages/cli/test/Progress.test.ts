import { assert, describe, it } from "@effect/vitest"
import { CompactionProgress } from "@precis/compaction"
import { describe as describeEvent, worthALine } from "../src/internal/progress.js"

const tiers = { normal: 2, aggressive: 1, fallback: 0 }
const leaf = (done: number, total: number) =>
  CompactionProgress.ProgressEvent.LeafWritten({ sessionId: "s", done, total, tiers })

describe("progress", () => {
  it("describes each event with a bar, counts and tiers", () => {
    assert.strictEqual(
      describeEvent(leaf(3, 12)),
      "leaves [######------------------] 3/12 · tiers: normal 2, aggressive 1, fallback 0"
    )
    assert.strictEqual(
      describeEvent(CompactionProgress.ProgressEvent.CondensedWritten({ sessionId: "s", depth: 0, done: 1, total: 1, tiers })),
      "depth 1 [########################] 1/1 · tiers: normal 2, aggressive 1, fallback 0"
    )
    assert.strictEqual(
      describeEvent(CompactionProgress.ProgressEvent.LeafPassStarted({ sessionId: "s", chunks: 4, turns: 40 })),
      "leaf pass: 40 turns in 4 chunks"
    )
  })

  it("plain logs show every step of a short pass, about every tenth of a long one, and the last", () => {
    assert.deepStrictEqual([1, 2, 3].map((d) => worthALine(leaf(d, 3))), [true, true, true])
    const shown = Array.from({ length: 1000 }, (_, i) => i + 1).filter((d) => worthALine(leaf(d, 1000)))
    assert.deepStrictEqual(shown, [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
    assert.isTrue(worthALine(leaf(7, 7)))
    assert.isTrue(worthALine(CompactionProgress.ProgressEvent.CondenseStarted({ sessionId: "s", depth: 2, groups: 9 })))
  })
})
