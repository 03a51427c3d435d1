import { TokenEstimator, Transcript } from "@precis/core"
import { describe, expect, it } from "@effect/vitest"
import * as Facts from "../src/Facts.js"
import * as Synthetic from "../src/Synthetic.js"

describe("Synthetic", () => {
  it("the same seed gives the same session, another seed another", () => {
    const a = Synthetic.session(2000, { seed: 1 })
    const b = Synthetic.session(2000, { seed: 1 })
    const c = Synthetic.session(2000, { seed: 2 })
    expect(Transcript.formatTurns(a)).toBe(Transcript.formatTurns(b))
    expect(Transcript.formatTurns(a)).not.toBe(Transcript.formatTurns(c))
  })

  it("reaches the requested size, overshooting by at most one turn", () => {
    const turns = Synthetic.session(10_000, { seed: 3 })
    const tokens = TokenEstimator.approximate.estimate(Transcript.formatTurns(turns))
    expect(tokens).toBeGreaterThanOrEqual(10_000 - 1)
    const withoutLast = TokenEstimator.approximate.estimate(Transcript.formatTurns(turns.slice(0, -1)))
    expect(withoutLast).toBeLessThan(10_000)
  })

  it("has ordered timestamps, unique ids, and the roles and facts of a coding session", () => {
    const turns = Synthetic.session(5000, { seed: 5, sessionId: "s" })
    const times = turns.map((t) => Date.parse(t.timestamp!))
    expect(times).toEqual([...times].sort((x, y) => x - y))
    expect(new Set(turns.map((t) => t.id)).size).toBe(turns.length)
    expect(new Set(turns.map((t) => t.role))).toEqual(new Set(["user", "assistant", "tool"]))
    expect(turns.every((t) => t.sessionId === "s")).toBe(true)
    const kinds = Facts.countByKind(Facts.extract(Transcript.formatTurns(turns)))
    for (const kind of ["path", "command", "error", "code", "number", "identifier"] as const) {
      expect(kinds[kind]).toBeGreaterThan(0)
    }
  })

  it("the generator is seeded: random(seed) repeats", () => {
    const r1 = Synthetic.random(9)
    const r2 = Synthetic.random(9)
    const xs = [r1(), r1(), r1()]
    expect([r2(), r2(), r2()]).toEqual(xs)
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
  })
})
