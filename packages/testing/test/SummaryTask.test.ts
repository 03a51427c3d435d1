import { describe, expect, it } from "@effect/vitest"
import { FactCheck, SummaryTask, Transcript } from "@precis/core"
import * as FastCheck from "effect/FastCheck"
import { Arbitraries } from "../src/index.js"

// Roles the line format can carry: 1 to 64 characters, no colon, no newline.
const role = FastCheck.oneof(
  Arbitraries.role,
  FastCheck.string({ minLength: 1, maxLength: 64 }).filter((r) => !r.includes(":") && !r.includes("\n"))
)
const turns = FastCheck.array(
  FastCheck.record({ role, content: Arbitraries.text, timestamp: FastCheck.option(Arbitraries.timestamp, { nil: undefined }) }),
  { minLength: 1, maxLength: 6 }
)

describe("SummaryTask: the items say what the material says", () => {
  it.prop(
    "the fact check of a leaf's items finds the keys of its rendered material",
    [turns],
    ([turns]) => {
      const task: SummaryTask.SummaryTask = { kind: "leaf", turns, targetTokens: 100 }
      expect(FactCheck.keysOf(task)).toEqual(FactCheck.keys(SummaryTask.material(task)))
    }
  )

  it.prop(
    "the fact check of a condensation's children finds the keys of its rendered material",
    [FastCheck.array(turns, { minLength: 1, maxLength: 4 })],
    ([children]) => {
      const summaries = children.map((turns, i) => ({ depth: i % 2, content: Transcript.formatTurns(turns) }))
      const task: SummaryTask.SummaryTask = { kind: "condense", summaries, targetTokens: 100 }
      expect(FactCheck.keysOf(task)).toEqual(FactCheck.keys(SummaryTask.material(task)))
    }
  )

  it.prop(
    "the material renders each turn once, one line per line of its content",
    [turns],
    ([turns]) => {
      const material = SummaryTask.material({ kind: "leaf", turns, targetTokens: 1 })
      const lines = turns.reduce((n, turn) => n + SummaryTask.lines(turn.content).length, 0)
      expect(material.split("\n")).toHaveLength(lines)
      expect(material.split("\n").filter((line) => !line.startsWith(Transcript.indent))).toHaveLength(turns.length)
    }
  )
})
