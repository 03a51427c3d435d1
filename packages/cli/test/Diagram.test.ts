import { assert, describe, expect, it } from "@effect/vitest"
import { Escape } from "@precis/core"
import { Fixtures } from "@precis/testing"
import { dot, mermaid } from "../src/internal/diagram.js"
import { leaf } from "./utils/dag.js"

describe("diagrams of the DAG", () => {
  const root = Fixtures.summary({
    id: "p\"<x>#1",
    depth: 1,
    content: "parent",
    tier: "aggressive",
    tokenEstimate: 12,
    sourceSummaryIds: ["a", "b", "missing"]
  })
  const summaries = [root, leaf("a", root.id), leaf("b", root.id), leaf("c")]

  it("mermaid: a flowchart with labelled nodes and parent-to-child edges, labels escaped", () => {
    const text = mermaid("s \"1\"", summaries)
    assert.deepStrictEqual(text.split("\n"), [
      "---",
      "title: \"session s \\\"1\\\"\"",
      "---",
      "flowchart TD",
      "  n0[\"depth 1 · aggressive<br/>12 tokens<br/>no time range<br/>p#34;#60;x#62;#35;1\"]",
      "  n1[\"depth 0 · normal<br/>10 tokens<br/>2025-01-01T00:00:00 → 2025-01-01T00:05:00<br/>a\"]",
      "  n2[\"depth 0 · normal<br/>10 tokens<br/>2025-01-01T00:00:00 → 2025-01-01T00:05:00<br/>b\"]",
      "  n3[\"depth 0 · normal<br/>10 tokens<br/>2025-01-01T00:00:00 → 2025-01-01T00:05:00<br/>c\"]",
      "  n0 --> n1",
      "  n0 --> n2"
    ])
    assert.strictEqual(Escape.mermaid("a&b`c"), "a#38;b#96;c")
  })

  it("dot: a digraph of boxes named by id, parent-to-child edges, strings escaped", () => {
    const text = dot("s", summaries)
    expect(text).toMatch(/^digraph "s" \{\n {2}node \[shape=box/)
    expect(text).toContain(`  "p\\"<x>#1" [label="depth 1 · aggressive\\n12 tokens\\nno time range\\np\\"<x>#1"];`)
    expect(text).toContain(`  "p\\"<x>#1" -> "a";\n  "p\\"<x>#1" -> "b";\n}`)
    assert.notInclude(text, "missing")
    assert.strictEqual(Escape.dot("a\\b\"c\nd"), "a\\\\b\\\"c\\nd")
  })
})
