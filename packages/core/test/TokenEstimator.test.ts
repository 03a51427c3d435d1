import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as TokenEstimator from "../src/TokenEstimator.js"

const hasLoneSurrogate = (s: string): boolean => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)

describe("TokenEstimator.approximate", () => {
  const { estimate, truncate } = TokenEstimator.approximate

  it("estimates max(1, floor(codePoints / 4))", () => {
    expect(estimate("")).toBe(1)
    expect(estimate("abc")).toBe(1)
    expect(estimate("abcdefgh")).toBe(2)
    expect(estimate("abcdefghi")).toBe(2)
    // four emoji are four code points but eight UTF-16 units
    expect(estimate("😀😀😀😀")).toBe(1)
    expect(estimate("😀".repeat(8))).toBe(2)
  })

  it("truncates to maxTokens * 4 code points", () => {
    expect(truncate("abcdefghij", 2)).toBe("abcdefgh")
    expect(truncate("abc", 2)).toBe("abc")
    expect(truncate("abc", 0)).toBe("")
    expect(truncate("abc", -3)).toBe("")
    expect(truncate("😀😀😀😀😀", 1)).toBe("😀😀😀😀")
    expect(truncate("漢字かな交じり文", 1)).toBe("漢字かな")
  })

  it("never splits a surrogate pair", () =>
    FastCheck.assert(
      FastCheck.property(FastCheck.fullUnicodeString({ maxLength: 200 }), FastCheck.integer({ min: 0, max: 60 }), (s, n) => {
        const out = truncate(s, n)
        expect(hasLoneSurrogate(out)).toBe(false)
        expect(s.startsWith(out)).toBe(true)
        expect([...out].length).toBe(Math.min([...s].length, n * 4))
      })
    ))

  it("counts code points like the string iterator", () =>
    FastCheck.assert(
      FastCheck.property(FastCheck.fullUnicodeString({ maxLength: 200 }), (s) => {
        expect(TokenEstimator.codePointLength(s)).toBe([...s].length)
      })
    ))

  it.effect("is the default when no layer provides one", () =>
    Effect.gen(function*() {
      const estimator = yield* TokenEstimator.TokenEstimator
      expect(estimator).toBe(TokenEstimator.approximate)
    }))

  it.effect("can be replaced by a layer", () =>
    Effect.gen(function*() {
      const custom: TokenEstimator.Service = { estimate: (t) => t.length, truncate: (t, n) => t.slice(0, n) }
      const estimator = yield* Effect.provide(TokenEstimator.TokenEstimator, TokenEstimator.layer(custom))
      expect(estimator.estimate("abcdef")).toBe(6)
    }))
})
