import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { centrality, hashOf, type NearFacts, nearKey, nearKeyFacts, wordy } from "../src/internal/score.js"

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

  it("nearKeyFacts gives the hash, length and wordiness of nearKey without building it", () => {
    const factsOf = (text: string): NearFacts => {
      const facts: NearFacts = { hash: 0, length: 0, wordy: false }
      nearKeyFacts(text, facts)
      return facts
    }
    const expected = (text: string): NearFacts => {
      const key = nearKey(text)
      return { hash: hashOf(key), length: key.length, wordy: wordy(key) }
    }
    const samples = [
      ...texts,
      "",
      "at f (src/x.ts:12:3)",
      "PASS src/a.test.ts (42 tests) 2009ms",
      "commit DEADBEEF1 and 0xFF, 0X1g, 0x, 007 1234567 abcdef0 abcdef 123456 Cafe12 0XFF",
      "[info] id=1649 step 3 of 12",
      "h 0 h 0 h",
      "h 0 h 0 hh"
    ]
    for (const text of samples) expect(factsOf(text)).toEqual(expected(text))
    FastCheck.assert(
      FastCheck.property(
        FastCheck.stringMatching(/^[ a-fA-FxXhH0-9_.:/é-]{0,40}$/),
        (text) => {
          expect(factsOf(text)).toEqual(expected(text))
        }
      ),
      { numRuns: 500 }
    )
  })

  it("centrality counts a term once whatever its case, over many distinct terms", () => {
    // TF-IDF as documented, term by term over the lower-cased texts (none of
    // these terms is a stop word): the scan and the term table must agree with it.
    const reference = (docs: ReadonlyArray<string>): Array<number> => {
      const stop = new Set<string>()
      const tf = new Map<string, number>()
      const df = new Map<string, number>()
      const terms = docs.map((doc) => {
        const distinct = [...new Set((doc.toLowerCase().match(/[\p{L}_][\p{L}\p{N}_]+|\d{2,}/gu) ?? []).filter((t) => !stop.has(t)))]
        for (const t of doc.toLowerCase().match(/[\p{L}_][\p{L}\p{N}_]+|\d{2,}/gu) ?? []) if (!stop.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1)
        for (const t of distinct) df.set(t, (df.get(t) ?? 0) + 1)
        return distinct
      })
      const n = docs.length
      const scores = terms.map((ts) =>
        ts.length === 0 ? 0 : ts.reduce((sum, t) => sum + Math.max(0, Math.log1p(tf.get(t)!) * Math.log((n + 1) / (df.get(t)! + 0.5))), 0) /
          Math.sqrt(ts.length + 1)
      )
      const best = Math.max(0, ...scores)
      return best > 0 ? scores.map((x) => x / best) : scores
    }
    const docs = Array.from({ length: 600 }, (_, i) => `Term${i} TERM${i % 7} term${i % 7} Parse_${i % 3} ${i * 13} x${i}Y`)
    docs.push("Größe größe GRÖSSE", "Größe")
    expect(Array.from(centrality(docs))).toEqual(reference(docs))
    expect(Array.from(centrality(["Parse CONFIG now", "parse config now", "other words"])).slice(0, 2)).toEqual([1, 1])
  })
})
