import { describe, expect, it } from "@effect/vitest"
import { AlsoLine as Also, TokenEstimator } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import * as AlsoLine from "../src/AlsoLine.js"

describe("AlsoLine.forgets", () => {
  it("drops every second line, and the lines naming a path, a code span or an error", () => {
    const lines = [
      "[2025-01-01T00:00:00] user: fix it",
      "[2025-01-01T00:01:00] user: an odd index",
      "  edited src/app.ts",
      "  an odd index",
      "[?] tool: ran `pnpm test`",
      "  an odd index",
      "  TypeError: boom",
      "  an odd index",
      "[2025-01-01T00:02:00] assistant: done"
    ]
    expect(lines.filter((line, i) => !AlsoLine.forgets(line, i))).toEqual([lines[0], lines[8]])
  })
})

describe("the Also line in the extractive provider's condensation", () => {
  it("is content, not structure: a candidate the provider selects (its keys make it worth keeping)", () => {
    const also = Also.line(["3 failed", "RangeError", "src/money.ts"])
    const summaries = [
      { depth: 0, content: "[2025-01-01T00:00:00] user: fix the totals" },
      { depth: 0, content: `[2025-01-01T00:05:00] assistant: ran the tests\n${also}` }
    ]
    const summary = ExtractiveProvider.extract(
      { kind: "condense", summaries, targetTokens: 1_000 },
      TokenEstimator.approximate
    )
    expect(summary).toContain(also)
    // the summary headers are structure and never selected
    expect(summary).not.toContain("[Summary")
  })
})
