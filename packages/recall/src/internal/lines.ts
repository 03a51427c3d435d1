/**
 * Newline-delimited frames from a byte stream, each at most a bound in
 * bytes: a longer line is dropped as it arrives (never held whole) and
 * stands as one {@link TooLong} frame, so that the next line is read.
 *
 * @internal
 */
import * as Stream from "effect/Stream"

/** One frame: a line's text (without its `\n` or `\r\n`), or a line longer than the bound. */
export type Frame = { readonly _tag: "Line"; readonly text: string } | { readonly _tag: "TooLong"; readonly bytes: number }

const NEWLINE = 0x0a

/** A splitter of chunks into frames: `push` each chunk, `end` at the end of the input. */
export const splitter = (maxBytes: number) => {
  const decoder = new TextDecoder()
  let pieces: Array<Uint8Array> = []
  let held = 0
  // The bytes of the line being dropped, or -1 when no line is too long.
  let dropped = -1
  const line = (): Frame => {
    if (dropped >= 0) {
      const frame: Frame = { _tag: "TooLong", bytes: dropped }
      dropped = -1
      return frame
    }
    const bytes = new Uint8Array(held)
    let at = 0
    for (const piece of pieces) {
      bytes.set(piece, at)
      at += piece.length
    }
    pieces = []
    held = 0
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length
    return { _tag: "Line", text: decoder.decode(bytes.subarray(0, end)) }
  }
  const take = (part: Uint8Array) => {
    if (dropped >= 0) {
      dropped += part.length
      return
    }
    if (held + part.length > maxBytes) {
      dropped = held + part.length
      pieces = []
      held = 0
      return
    }
    pieces.push(part)
    held += part.length
  }
  return {
    push: (chunk: Uint8Array): ReadonlyArray<Frame> => {
      const frames: Array<Frame> = []
      let start = 0
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
        take(chunk.subarray(start, at))
        frames.push(line())
        start = at + 1
      }
      if (start < chunk.length) take(chunk.subarray(start))
      return frames
    },
    end: (): ReadonlyArray<Frame> => (held > 0 || dropped >= 0 ? [line()] : [])
  }
}

/** The frames of `bytes`, each line at most `maxBytes` (a last line without `\n` included). */
export const frames = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>, maxBytes: number): Stream.Stream<Frame, E, R> =>
  Stream.suspend(() => {
    const split = splitter(maxBytes)
    return Stream.concat(
      Stream.mapConcat(bytes, split.push),
      Stream.suspend(() => Stream.fromIterable(split.end()))
    )
  })
