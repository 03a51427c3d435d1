/**
 * The line splitter of streamed (JSONL) imports gives exactly the lines of
 * `Stream.decodeText` + `Stream.splitLines`, which it replaced, however the
 * bytes are cut into reads.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Stream from "effect/Stream"
import { Buffer } from "node:buffer"
import { lineSplitter } from "../src/internal/jsonl.js"

// The pieces the cases are made of: line breaks of every kind, a byte-order mark, multi-byte
// characters, and bytes that are not UTF-8 (a lone lead byte, a lone continuation byte, 0xFF).
const encoder = new TextEncoder()
const pieces = [
  ...["a", "{\"x\":1}", "\n", "\r\n", "\r", "\n\n", " ", "é", "日本", "🙂", "\uFEFF", ""].map((text) => encoder.encode(text)),
  Uint8Array.of(0xe6),
  Uint8Array.of(0x80),
  Uint8Array.of(0xff)
]

const cut = (bytes: Uint8Array, sizes: ReadonlyArray<number>): Array<Uint8Array> => {
  const out: Array<Uint8Array> = []
  let at = 0
  for (const size of sizes) {
    if (at >= bytes.length) break
    out.push(bytes.subarray(at, at + size))
    at += size
  }
  if (at < bytes.length) out.push(bytes.subarray(at))
  return out
}

const viaStream = (reads: ReadonlyArray<Uint8Array>) =>
  Effect.runSync(Stream.fromIterable(reads).pipe(Stream.decodeText(), Stream.splitLines, Stream.runCollect)).pipe(
    Chunk.toReadonlyArray
  )

const viaSplitter = (reads: ReadonlyArray<Uint8Array>) => {
  const lines: Array<[number, string]> = []
  const splitter = lineSplitter((text, line) => lines.push([line, text]))
  for (const bytes of reads) splitter.push(bytes)
  splitter.end()
  return lines
}

describe("lineSplitter", () => {
  it("numbers the lines Stream.splitLines gives, whatever the reads, for line breaks of every kind, split characters and bytes that are not UTF-8", () =>
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(FastCheck.constantFrom(...pieces), { maxLength: 40 }),
        FastCheck.array(FastCheck.integer({ min: 1, max: 7 }), { maxLength: 40 }),
        (parts, sizes) => {
          const reads = cut(Buffer.concat(parts), sizes)
          expect(viaSplitter(reads)).toEqual(viaStream(reads).map((text, i) => [i + 1, text]))
        }
      ),
      { numRuns: 500 }
    ))

  it("drops a leading byte-order mark, strips \\r before \\n only, and counts blank lines", () => {
    const reads = cut(encoder.encode("\uFEFFone\r\n\ntwo\rthree\n\r\nlast\r"), [2, 3, 5])
    expect(viaSplitter(reads)).toEqual([[1, "one"], [2, ""], [3, "two\rthree"], [4, ""], [5, "last"]])
  })

  it("keeps a byte-order mark that is not at the start, after ASCII reads as after decoded ones", () => {
    const bytes = encoder.encode("ab\n\uFEFFc\né\uFEFF\n")
    const expected = [[1, "ab"], [2, "\uFEFFc"], [3, "é\uFEFF"]]
    expect(viaSplitter(cut(bytes, [3, 100]))).toEqual(expected)
    expect(viaSplitter([bytes])).toEqual(expected)
  })
})
