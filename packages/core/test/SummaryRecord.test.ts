import { describe, expect, it } from "@effect/vitest"
import * as SummaryRecord from "../src/SummaryRecord.js"

describe("timeRange", () => {
  it("takes the earliest start and latest end, ignoring missing ends", () => {
    expect(SummaryRecord.timeRange([
      { start: "2025-01-02T00:00:00Z", end: "2025-01-03T00:00:00Z" },
      { start: null, end: undefined },
      { start: "2025-01-01T00:00:00Z", end: "2025-01-02T00:00:00Z" }
    ])).toEqual({ start: "2025-01-01T00:00:00Z", end: "2025-01-03T00:00:00Z" })
    expect(SummaryRecord.timeRange([{ start: "", end: null }])).toEqual({ start: undefined, end: undefined })
  })

  it("compares instants, not text, when the offsets differ", () => {
    expect(SummaryRecord.timeRange([
      { start: "2025-01-01T10:00:00+02:00", end: "2025-01-01T10:00:00+02:00" },
      { start: "2025-01-01T09:00:00Z", end: "2025-01-01T09:00:00Z" }
    ])).toEqual({ start: "2025-01-01T10:00:00+02:00", end: "2025-01-01T09:00:00Z" })
  })

  it("compares text when either side does not parse, instants again once both do", () => {
    // "b" beats "2025-..." as an end by text, then a parsable later instant
    // cannot be compared with "b" by instant: text decides again ("2026" < "b").
    expect(SummaryRecord.timeRange([
      { start: "2025-01-01T00:00:00Z", end: "2025-01-01T00:00:00Z" },
      { start: "b", end: "b" },
      { start: "2024-01-01T00:00:00Z", end: "2026-01-01T00:00:00Z" }
    ])).toEqual({ start: "2024-01-01T00:00:00Z", end: "b" })
    // An unparsable start loses to a parsable one only by text; a later parsable
    // start is then compared by instant with the parsable current one.
    expect(SummaryRecord.timeRange([
      { start: "zzz", end: null },
      { start: "2025-06-01T00:00:00Z", end: null },
      { start: "2025-06-01T01:00:00+02:00", end: null }
    ])).toEqual({ start: "2025-06-01T01:00:00+02:00", end: undefined })
  })
})
