import { ConversationTurn, SummaryRecord } from "@precis/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Arbitraries } from "../src/index.js"

describe("Arbitraries", () => {
  it.prop("turns are valid ConversationTurns with ISO timestamps", [Arbitraries.turn], ([turn]) => {
    expect(Schema.is(ConversationTurn.ConversationTurn)(turn)).toBe(true)
    if (turn.timestamp !== undefined) expect(new Date(turn.timestamp).toISOString()).toBe(turn.timestamp)
  })

  it.prop("summary records are valid, of depth 0 to 3", [Arbitraries.summaryRecord], ([record]) => {
    expect(Schema.is(SummaryRecord.SummaryRecord)(record)).toBe(true)
    expect(record.depth).toBeGreaterThanOrEqual(0)
    expect(record.depth).toBeLessThanOrEqual(3)
  })

  it("text reaches the awkward cases: surrogate pairs, combining marks, fences", () => {
    const samples = FastCheck.sample(Arbitraries.text, { numRuns: 500, seed: 42 })
    expect(samples.some((s) => /[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(s))).toBe(true)
    expect(samples.some((s) => s.includes("\u0301"))).toBe(true)
    expect(samples.some((s) => s.includes("```"))).toBe(true)
  })

  it.effect("outcomes cover every provider behaviour", () =>
    Effect.sync(() => {
      const tags = new Set(FastCheck.sample(Arbitraries.outcome, { numRuns: 500, seed: 7 }).map((o) => o._tag))
      expect([...tags].sort()).toEqual(["Delayed", "Die", "Fail", "Hang", "Reply"])
    }))
})
