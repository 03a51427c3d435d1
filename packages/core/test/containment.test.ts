import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { containment } from "../src/internal/containment.js"

describe("containment", () => {
  it("finds a needle at the start, in the middle, at the end, and not one that is absent", () => {
    const contains = containment("npm test: 12 tests, 1 failed in src/app.ts")
    expect(contains("npm")).toBe(true)
    expect(contains("1 failed")).toBe(true)
    expect(contains("app.ts")).toBe(true)
    expect(contains("src/app.tsx")).toBe(false)
    expect(contains("pnpm")).toBe(false)
    expect(contains("")).toBe(true)
  })

  it("answers as String.includes for any text and needle, short ones and repeats included", () => {
    // A small alphabet, so that needles often occur and trigram buckets collide.
    const text = FastCheck.string({ unit: FastCheck.constantFrom("a", "b", "/", ".", "é", "😀"), maxLength: 60 })
    FastCheck.assert(
      FastCheck.property(text, FastCheck.array(text.map((t) => t.slice(0, 8)), { maxLength: 12 }), (haystack, needles) => {
        const contains = containment(haystack)
        for (const needle of [...needles, haystack, haystack.slice(1), haystack.slice(0, -1)]) {
          expect(contains(needle)).toBe(haystack.includes(needle))
        }
      }),
      { numRuns: 500 }
    )
  })
})
