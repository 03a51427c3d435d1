import { assert, describe, it } from "@effect/vitest"
import { Fixtures } from "@precis/testing"
import { dagNode, preview, tierCountsOf, tree } from "../src/internal/render.js"
import { leaf } from "./utils/dag.js"

describe("preview", () => {
  it("skips omission markers and blank lines, drops the timestamp, cuts long lines", () => {
    assert.strictEqual(preview("[… 28 lines omitted]\n\n[2025-03-14T09:02:11] user: fix the PDF bug"), "user: fix the PDF bug")
    assert.strictEqual(preview("[?] tool: ok"), "tool: ok")
    // the extractive provider's own prefixes: the date once, then the time only
    assert.strictEqual(preview("[…]\n[09:07] tool: ok"), "tool: ok")
    assert.strictEqual(preview("[2025-03-14T09:02] user: hi"), "user: hi")
    const long = preview(`assistant: ${"x".repeat(100)}`)
    assert.strictEqual(long.length, 60)
    assert.isTrue(long.endsWith("…"))
    assert.strictEqual(preview("[… 3 lines omitted]"), "")
  })
})

describe("tree", () => {
  const root = Fixtures.summary({
    id: "p",
    depth: 1,
    content: "parent",
    tier: "aggressive",
    tokenEstimate: 12,
    sourceSummaryIds: ["a", "b"]
  })
  const summaries = [root, leaf("a", "p"), leaf("b", "p"), leaf("c")]

  it("puts children under their parent with tree connectors, roots unindented", () => {
    assert.deepStrictEqual(tree(summaries).map((l) => l.replace(/ · [^·]*$/, "")), [
      "depth 1 · aggressive · 12 tokens · no time range",
      "├─ depth 0 · normal · 10 tokens · 2025-01-01T00:00:00 → 2025-01-01T00:05:00",
      "└─ depth 0 · normal · 10 tokens · 2025-01-01T00:00:00 → 2025-01-01T00:05:00",
      "depth 0 · normal · 10 tokens · 2025-01-01T00:00:00 → 2025-01-01T00:05:00"
    ])
    assert.isTrue(tree(summaries)[1]!.endsWith(`a  "leaf a"`))
  })

  it("gives JSON nodes with null for missing fields, and counts tiers", () => {
    assert.deepStrictEqual(dagNode(root), {
      id: "p",
      depth: 1,
      tier: "aggressive",
      parentId: null,
      tokenEstimate: 12,
      timeRangeStart: null,
      timeRangeEnd: null,
      children: ["a", "b"]
    })
    assert.deepStrictEqual(tierCountsOf(summaries), { normal: 3, aggressive: 1, fallback: 0 })
  })
})
