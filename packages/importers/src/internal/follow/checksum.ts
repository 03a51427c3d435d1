/**
 * The checksum of what the follower read of a file (its first `offset`
 * bytes), which tells a file that only grew from one rewritten in place (same
 * inode: what a `writeFile` does), whatever part of it changed. Reading the
 * whole prefix again at every look would cost what following saves, so it
 * hashes windows of it: its first and last 4 KiB, and 512 bytes at eight
 * places between. A line removed, added or changed anywhere before the
 * offset shifts or changes the last window (the lines just before the
 * offset); a change of the same length elsewhere is caught where a window
 * falls on it. `kind:hex`: `sampled` (this), or `head` (the hash of the
 * first KiB that precis kept before its store's schema 8, still checked for
 * the rows it wrote).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"

const EDGE = 4096
const SAMPLE = 512
const SAMPLES = 8
const HEAD = 1024

/** The windows `[start, length]` of the first `offset` bytes that the checksum hashes. */
export const windows = (offset: number): ReadonlyArray<readonly [number, number]> => {
  if (offset === 0) return []
  const out: Array<readonly [number, number]> = [[0, Math.min(EDGE, offset)]]
  for (let i = 1; i <= SAMPLES; i++) {
    const start = Math.floor((i * offset) / (SAMPLES + 1))
    out.push([start, Math.min(SAMPLE, offset - start)])
  }
  out.push([Math.max(0, offset - EDGE), Math.min(EDGE, offset)])
  return out
}

/** The checksum of the first `offset` bytes, read with `read`. */
export const sampled = <E, R>(
  read: (start: number, length: number) => Effect.Effect<Uint8Array, E, R>,
  offset: number
): Effect.Effect<string, E, R> =>
  Effect.gen(function*() {
    const hash = createHash("sha1").update(`${offset}\n`)
    for (const [start, length] of windows(offset)) hash.update(yield* read(start, length))
    return `sampled:${hash.digest("hex")}`
  })

/** Whether the first `offset` bytes (read with `read`) still have the checksum `checksum` (of either kind). */
export const matches = <E, R>(
  read: (start: number, length: number) => Effect.Effect<Uint8Array, E, R>,
  offset: number,
  checksum: string
): Effect.Effect<boolean, E, R> =>
  checksum.startsWith("head:")
    ? Effect.map(
      read(0, Math.min(offset, HEAD)),
      (bytes) => `head:${createHash("sha1").update(bytes).digest("hex")}` === checksum
    )
    : Effect.map(sampled(read, offset), (now) => now === checksum)
