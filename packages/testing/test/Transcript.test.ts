import { describe, expect, it } from "@effect/vitest"
import { Transcript } from "@precis/core"
import * as FastCheck from "effect/FastCheck"
import { Arbitraries } from "../src/index.js"

// What formatting keeps of a turn: the short timestamp, the role, the content with `\r\n` as `\n`.
const expected = (turn: { readonly role: string; readonly content: string; readonly timestamp?: string | undefined }) => ({
  timestamp: turn.timestamp === undefined || turn.timestamp.length === 0 ? undefined : Transcript.shortTimestamp(turn.timestamp),
  role: turn.role,
  content: turn.content.replace(/\r\n/g, "\n")
})

// Roles the line format can carry: 1 to 64 characters, no colon, no newline.
const role = FastCheck.oneof(
  Arbitraries.role,
  FastCheck.string({ minLength: 1, maxLength: 64 }).filter((r) => !r.includes(":"))
)

describe("Transcript.parse (round trip)", () => {
  it.prop(
    "parse(formatTurns(turns)) gives back each turn's short timestamp, role and content",
    [FastCheck.array(Arbitraries.turn, { maxLength: 8 })],
    ([turns]) => {
      expect(Transcript.parse(Transcript.formatTurns(turns))).toEqual(turns.map(expected))
    }
  )

  it.prop(
    "holds for any role the format can carry and for missing timestamps",
    [FastCheck.array(
      FastCheck.record({ role, content: Arbitraries.text, timestamp: FastCheck.option(Arbitraries.timestamp, { nil: undefined }) }),
      { minLength: 1, maxLength: 6 }
    )],
    ([turns]) => {
      const text = Transcript.formatTurns(turns)
      expect(Transcript.parse(text)).toEqual(turns.map(expected))
      // Every line of the transcript is a turn line or a continuation: nothing is lost between turns.
      const lines = text.split("\n")
      expect(lines.filter((line) => Transcript.parseTurnLine(line) !== undefined && !line.startsWith("  ")).length)
        .toBe(turns.length)
    }
  )
})
