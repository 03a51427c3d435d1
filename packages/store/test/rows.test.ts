import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as Rows from "../src/internal/rows.js"
import { TurnRow } from "../src/Tables.js"

const decodeTurnRows = Schema.decodeUnknownSync(Schema.Array(TurnRow))

const row = (seq: number, metadata: string | null) => ({
  id: `t${seq}`,
  session_id: "s",
  seq,
  role: "user",
  content: `turn ${seq}`,
  timestamp: seq === 0 ? null : "2025-01-01T00:00:00Z",
  metadata
})

describe("rows", () => {
  describe("checkTurnRow", () => {
    it("gives what the full decode gives for rows that read well", () => {
      const rows = [row(0, null), row(1, `{"toolCallId":"c1","nested":{"n":[1,"two"]}}`), row(2, "{}")]
      expect(rows.map(Rows.checkTurnRow)).toEqual(decodeTurnRows(rows))
    })

    it("gives up on a row the full decode refuses, so that the decode reports it", () => {
      const bad: ReadonlyArray<unknown> = [
        { ...row(1, null), seq: 1.5 },
        { ...row(1, null), content: null },
        { ...row(1, null), timestamp: 3 },
        row(1, "not json"),
        row(1, "[1, 2]"),
        row(1, "null"),
        { id: "t1", session_id: "s", seq: 1, role: "user", content: "x", timestamp: null }
      ]
      for (const one of bad) {
        expect(Rows.checkTurnRow(row(0, null))).toBeDefined()
        expect(Rows.checkTurnRow(one)).toBeUndefined()
        expect(() => decodeTurnRows([row(0, null), one])).toThrow()
      }
    })
  })

  describe("checkRows", () => {
    const Pair = Schema.Struct({ id: Schema.String, n: Schema.Int })
    const check = Rows.checkRows(Pair)

    it("takes rows of the schema in place", () => {
      const rows = [{ id: "a", n: 1 }, { id: "b", n: 2 }]
      expect(check(rows)).toBe(rows)
      expect(check([])).toEqual([])
    })

    it("gives up when one row does not fit", () => {
      expect(check([{ id: "a", n: 1 }, { id: "b", n: 2.5 }])).toBeUndefined()
      expect(check([{ id: "a" }])).toBeUndefined()
      expect(check([null])).toBeUndefined()
    })
  })
})
