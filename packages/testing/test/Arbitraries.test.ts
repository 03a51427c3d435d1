import { ConversationTurn, SummaryRecord, ToolMetadata } from "@precis/core"
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

  /** The calls and results of a session, read as `ToolMetadata.read` reads them. */
  const pairsOf = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>) => {
    const calls = turns.flatMap((t, i) => (ToolMetadata.read(t.metadata).toolCalls ?? []).map((c) => ({ id: c.id!, name: c.name, at: i })))
    const results = turns.flatMap((t, i) => {
      const id = ToolMetadata.read(t.metadata).toolCallId
      return id === undefined ? [] : [{ id, at: i, turn: t }]
    })
    return { calls, results }
  }

  it.prop(
    "sessions pair each tool result with a call made before it, by an id unique in the session",
    [Arbitraries.turns({ maxLength: 30 })],
    ([turns]) => {
      expect(turns.length).toBeLessThanOrEqual(30)
      for (const turn of turns) expect(Schema.is(ConversationTurn.ConversationTurn)(turn)).toBe(true)
      const { calls, results } = pairsOf(turns)
      expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length)
      expect(new Set(results.map((r) => r.id)).size).toBe(results.length)
      for (const result of results) {
        const call = calls.find((c) => c.id === result.id)!
        expect(call.at).toBeLessThan(result.at)
        expect(result.turn.role).toBe("tool")
        expect(ToolMetadata.read(result.turn.metadata).toolName).toBe(call.name)
        // Between a call and its result, only the other calls and results of the same exchange.
        for (const between of turns.slice(call.at + 1, result.at)) {
          const meta = ToolMetadata.read(between.metadata)
          expect(meta.toolCalls !== undefined || meta.toolCallId !== undefined).toBe(true)
        }
      }
      // The calls are written in the assistant turn's content, one line each.
      for (const turn of turns) {
        const made = ToolMetadata.read(turn.metadata).toolCalls ?? []
        if (made.length > 0) {
          expect(turn.role).toBe("assistant")
          expect(turn.content.split("\n").filter(ToolMetadata.isCallLine)).toEqual(made.map((c) => ToolMetadata.callLine(c.name, c.arguments as string)))
        }
      }
    }
  )

  it("sessions reach parallel calls both ways, results out of order and unanswered calls", () => {
    const samples = FastCheck.sample(Arbitraries.turns({ maxLength: 40 }), { numRuns: 200, seed: 11 })
    const shapes = samples.map((turns) => {
      const { calls, results } = pairsOf(turns)
      const perTurn = turns.map((t) => (ToolMetadata.read(t.metadata).toolCalls ?? []).length)
      return {
        severalInOneTurn: perTurn.some((n) => n >= 2),
        // Two assistant turns of one call each, both answered after the second.
        aTurnPerCall: calls.some((c, i) => {
          const next = calls[i + 1]
          return next !== undefined && next.at === c.at + 1 && perTurn[c.at] === 1 && perTurn[next.at] === 1 &&
            results.some((r) => r.id === c.id && r.at > next.at)
        }),
        outOfOrder: results.some((r, i) => i > 0 && calls.findIndex((c) => c.id === r.id) < calls.findIndex((c) => c.id === results[i - 1]!.id) && r.at === results[i - 1]!.at + 1),
        unanswered: calls.some((c) => !results.some((r) => r.id === c.id))
      }
    })
    for (const shape of ["severalInOneTurn", "aTurnPerCall", "outOfOrder", "unanswered"] as const) {
      expect(samples.length > 0 && shapes.some((s) => s[shape]), shape).toBe(true)
    }
  })

  it("sessions write parallel calls as asked: all in one assistant turn, or a turn per call", () => {
    const oneTurn = FastCheck.sample(Arbitraries.turns({ maxLength: 40, parallelCalls: ["one turn"] }), { numRuns: 100, seed: 3 })
    const perCall = FastCheck.sample(Arbitraries.turns({ maxLength: 40, parallelCalls: ["a turn per call"] }), { numRuns: 100, seed: 3 })
    const counts = (samples: ReadonlyArray<ReadonlyArray<ConversationTurn.ConversationTurn>>) =>
      samples.flatMap((turns) => turns.map((t) => (ToolMetadata.read(t.metadata).toolCalls ?? []).length).filter((n) => n > 0))
    expect(counts(oneTurn).some((n) => n >= 2)).toBe(true)
    expect(counts(perCall).every((n) => n === 1)).toBe(true)
  })

  it.effect("outcomes cover every provider behaviour", () =>
    Effect.sync(() => {
      const tags = new Set(FastCheck.sample(Arbitraries.outcome, { numRuns: 500, seed: 7 }).map((o) => o._tag))
      expect([...tags].sort()).toEqual(["Delayed", "Die", "Fail", "Hang", "Reply"])
    }))
})
