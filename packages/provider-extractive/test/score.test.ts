import { describe, expect, it } from "@effect/vitest"
import { centrality, nearKey } from "../src/internal/score.js"

// Expected values were produced by the first (iterator-based) implementation:
// the faster tokenization must give the same keys and scores.
const texts = [
  "Fixed TypeError in src/app.ts: `parseConfig()` failed at line 42, see ERR_HTTP_500 and v1.2.3",
  "Deadbeef 0x1F cafe1234 build 2025 und Größe İstanbul ΣΑΣ",
  "the and for",
  "fixes src/app.ts again: `parseConfig()` retried 3 times, 42 passed"
]

describe("score", () => {
  it("nearKey lower-cases words, maps hex ids to h and digit runs to 0, across scripts", () => {
    expect(texts.map(nearKey)).toEqual([
      "fixed typeerror in src app ts parseconfig failed at line 0 see err http 0 and v0 0 0",
      "h h h build 0 und größe i stanbul σας",
      "the and for",
      "fixes src app ts again parseconfig retried 0 times 0 passed"
    ])
    expect(nearKey("")).toBe("")
    expect(nearKey("--- ... ---")).toBe("")
  })

  it("centrality scores texts by their distinct, non-stop-word terms", () => {
    expect(Array.from(centrality(texts))).toEqual([1, 0.847680716852025, 0, 0.8587415325877683])
    expect(Array.from(centrality([]))).toEqual([])
    expect(Array.from(centrality(["and the", ""]))).toEqual([0, 0])
  })
})
