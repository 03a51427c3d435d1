/**
 * `isoTimestamp` checks the calendar with arithmetic: the same answers as the
 * `Date`-based check it replaced, on every date-like string.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { isoTimestamp } from "../src/ConversationTurn.js"

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/

// The earlier implementation, as the reference.
const reference = (text: string): string | undefined => {
  const m = ISO_DATE_TIME.exec(text)
  if (m === null) return undefined
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((n) => Number(n ?? 0))
  const date = new Date(Date.UTC(year!, month! - 1, day!))
  const valid = date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day &&
    hour! < 24 && minute! < 60 && second! < 61
  return valid ? text.replace(" ", "T") : undefined
}

const digits = (n: number, max: number) => FastCheck.integer({ min: 0, max }).map((v) => String(v).padStart(n, "0"))

const dateLike = FastCheck.tuple(
  FastCheck.oneof(digits(4, 9999), FastCheck.constantFrom("0000", "0099", "0100", "1900", "2000", "2024", "2100")),
  digits(2, 14),
  digits(2, 33),
  FastCheck.option(FastCheck.tuple(FastCheck.constantFrom("T", " "), digits(2, 25), digits(2, 61), FastCheck.option(digits(2, 62)))),
  FastCheck.constantFrom("", "Z", "+02:00", ".123", "x")
).map(([y, mo, d, time, tail]) =>
  `${y}-${mo}-${d}${time === null ? "" : `${time[0]}${time[1]}:${time[2]}${time[3] === null ? "" : `:${time[3]}`}`}${tail}`
)

describe("isoTimestamp", () => {
  it("answers as the Date-based check on date-like strings, leap years and years before 100 included", () =>
    FastCheck.assert(
      FastCheck.property(dateLike, (text) => {
        expect(isoTimestamp(text)).toBe(reference(text))
      }),
      { numRuns: 5000 }
    ))

  it("knows February", () => {
    expect(["2024-02-29", "2000-02-29", "1900-02-29", "2023-02-29", "0099-01-01", "2025-04-31"].map(isoTimestamp))
      .toEqual(["2024-02-29", "2000-02-29", undefined, undefined, undefined, undefined])
  })
})
