import { TokenEstimator } from "@precis/core"
import { describe, expect, it } from "@effect/vitest"
import * as Facts from "../src/Facts.js"
import * as Oracle from "../src/Oracle.js"
import * as Synthetic from "../src/Synthetic.js"

const material = [
  "hello there, nothing to see in this rather long line of chatter without any facts at all",
  "TypeError at src/a.ts:42",
  "more chatter, more chatter, more chatter, more chatter, more chatter, more chatter",
  "ran `npm test` in src/b.ts"
].join("\n")

describe("Oracle.greedy", () => {
  it("picks the fact-dense lines, in their original order, within the budget", () => {
    const choice = Oracle.greedy(material, 15)
    expect(choice.lines).toEqual([1, 3])
    expect(choice.text).toBe("TypeError at src/a.ts:42\nran `npm test` in src/b.ts")
    expect(choice.covered).toBe(choice.total)
    expect(TokenEstimator.approximate.estimate(choice.text)).toBeLessThanOrEqual(15)
  })

  it("never exceeds the budget and covers what it claims", () => {
    const text = Synthetic.session(3000, { seed: 2 }).map((t) => t.content).join("\n")
    for (const budget of [10, 100, 300]) {
      const choice = Oracle.greedy(text, budget)
      expect(TokenEstimator.approximate.estimate(choice.text)).toBeLessThanOrEqual(budget)
      const facts = Facts.extract(text)
      expect(Facts.retention(facts, choice.text)).toBeGreaterThanOrEqual(choice.covered / facts.length)
    }
  })

  it("with a budget of zero chooses nothing; with a large one covers every fact", () => {
    expect(Oracle.greedy(material, 0).lines).toEqual([])
    const all = Oracle.greedy(material, 10_000)
    expect(all.covered).toBe(all.total)
    expect(all.lines).toEqual([1, 3])
  })

  it("keeps at least as many facts as head truncation of the same size", () => {
    const text = Synthetic.session(5000, { seed: 4 }).map((t) => t.content).join("\n")
    const facts = Facts.extract(text)
    const budget = 250
    expect(Facts.retention(facts, Oracle.greedy(text, budget).text))
      .toBeGreaterThan(Facts.retention(facts, Oracle.head(text, budget)))
  })
})

describe("Oracle.head", () => {
  it("is the default estimator's truncation", () => {
    expect(Oracle.head("abcdefghij", 2)).toBe("abcdefgh")
  })
})
