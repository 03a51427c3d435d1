import { describe, expect, it } from "@effect/vitest"
import * as Results from "../src/Results.js"
import * as Stats from "../src/Stats.js"

describe("Stats", () => {
  it("quantiles interpolate between ranks and ignore input order", () => {
    expect(Stats.median([4, 1, 3, 2])).toBe(2.5)
    expect(Stats.quantile([10, 0], 0.9)).toBe(9)
    expect(Stats.quantile([5], 0.1)).toBe(5)
    expect(Number.isNaN(Stats.median([]))).toBe(true)
  })

  it("mean, max and worst (signed, largest magnitude)", () => {
    expect(Stats.mean([1, 2, 6])).toBe(3)
    expect(Stats.max([3, -7, 2])).toBe(3)
    expect(Stats.worst([0.1, -0.4, 0.3])).toBe(-0.4)
  })

  it("relative error is signed and defined at zero", () => {
    expect(Stats.relativeError(120, 100)).toBeCloseTo(0.2)
    expect(Stats.relativeError(75, 100)).toBeCloseTo(-0.25)
    expect(Stats.relativeError(0, 0)).toBe(0)
    expect(Stats.relativeError(3, 0)).toBe(Number.POSITIVE_INFINITY)
  })

  it("growth exponent recovers the power of a power law", () => {
    expect(Stats.growthExponent([[10, 30], [100, 300], [1000, 3000]])).toBeCloseTo(1)
    expect(Stats.growthExponent([[10, 100], [100, 10_000]])).toBeCloseTo(2)
    expect(Stats.growthExponent([[10, 5], [100, 5]])).toBeCloseTo(0)
    expect(Number.isNaN(Stats.growthExponent([[10, 5]]))).toBe(true)
  })
})

describe("Results", () => {
  it("a figure carries its ratio to the baseline and whether the target is met", () => {
    const f = Results.figure({
      section: "s",
      name: "n",
      value: 110,
      unit: "ms",
      baseline: { name: "bound", value: 100, unit: "ms" },
      target: { op: "<=", value: 1.05, on: "ratio" }
    })
    expect(f.ratio).toBeCloseTo(1.1)
    expect(f.pass).toBe(false)
    const g = Results.figure({ section: "s", name: "n", value: 25, unit: "MB/s", target: { op: ">=", value: 20, on: "value" } })
    expect(g.ratio).toBeUndefined()
    expect(g.pass).toBe(true)
    expect(Results.figure({ section: "s", name: "n", value: Number.NaN, unit: "x", target: { op: "<=", value: 1, on: "value" } }).pass)
      .toBe(false)
  })

  it("the table has a row per figure with value, unit, baseline and verdict", () => {
    const t = Results.table([
      Results.figure({ section: "a", name: "x | y", value: 1.234, unit: "µs", baseline: { name: "b", value: 2, unit: "µs" } }),
      Results.figure({ section: "a", name: "z", value: 3, unit: "MB", target: { op: ">=", value: 5, on: "value" } })
    ])
    const lines = t.split("\n")
    expect(lines).toHaveLength(4)
    expect(lines[2]).toContain("x \\| y")
    expect(lines[2]).toContain("1.23 µs")
    expect(lines[2]).toContain("b: 2 µs")
    expect(lines[2]).toContain("0.617")
    expect(lines[3]).toContain("value >= 5")
    expect(lines[3]).toContain("NO")
  })
})
