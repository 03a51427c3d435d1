/**
 * Looking at and reading the transcript files the `Follower` follows. Only a
 * regular file is ever read: a FIFO named `x.jsonl` would block an open (and
 * the watcher, Ctrl-C included) until someone writes to it. A file is opened
 * without waiting (`O_NONBLOCK`) and checked on its open descriptor, so a
 * file swapped for a FIFO or a device between a look and a read is refused
 * too. Each look gives the file's identity (device and inode, size, mtime),
 * which tells a file replaced by another (a new inode) from one that grew,
 * whatever their contents.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"

/** Which file a path names, and its size and modification time when looked at. */
export interface Identity {
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
}

/** The device and inode of `identity`, as the followed-files table keeps them. */
export const fileId = (identity: Identity): string => `${identity.dev}:${identity.ino}`

/** Whether two looks saw the same file unchanged. */
export const unchanged = (a: Identity, b: Identity): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs

/** A followed path cannot be read: missing, not a regular file, not readable. */
export class UnreadableFile extends Data.TaggedError("UnreadableFile")<{
  readonly file: string
  readonly reason: string
  /** Whether the path names nothing (any more). */
  readonly missing: boolean
}> {
  override get message(): string {
    return this.reason
  }
}

const kindOf = (stats: fs.Stats): string =>
  stats.isFIFO()
    ? "a FIFO"
    : stats.isSocket()
    ? "a socket"
    : stats.isCharacterDevice() || stats.isBlockDevice()
    ? "a device"
    : stats.isDirectory()
    ? "a directory"
    : "not a regular file"

/** Whether `stats` are a regular file's, or why it is not followed. */
const regular = (file: string, stats: fs.Stats): Effect.Effect<Identity, UnreadableFile> =>
  stats.isFile()
    ? Effect.succeed({ dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs })
    : Effect.fail(new UnreadableFile({ file, reason: `${kindOf(stats)}, not a regular file: never read`, missing: false }))

const failure = (file: string) => (cause: unknown) =>
  new UnreadableFile({
    file,
    reason: cause instanceof Error ? cause.message : String(cause),
    missing: typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOENT"
  })

/** The identity of the regular file `file` names (through links). */
export const look = (file: string): Effect.Effect<Identity, UnreadableFile> =>
  Effect.flatMap(Effect.tryPromise({ try: () => fsp.stat(file), catch: failure(file) }), (stats) => regular(file, stats))

/** An open transcript file: its identity on the open descriptor, and reads of its bytes. */
export interface Opened {
  readonly identity: Identity
  /** Up to `length` bytes from `offset` (fewer at its end). */
  readonly read: (offset: number, length: number) => Effect.Effect<Uint8Array, UnreadableFile>
}

/**
 * Opens the regular file `file` (without waiting, checked on its descriptor)
 * for the scope.
 */
export const open = (file: string): Effect.Effect<Opened, UnreadableFile, Scope.Scope> =>
  Effect.gen(function*() {
    const handle = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK),
        catch: failure(file)
      }),
      (handle) => Effect.promise(() => handle.close())
    )
    const identity = yield* Effect.flatMap(
      Effect.tryPromise({ try: () => handle.stat(), catch: failure(file) }),
      (stats) => regular(file, stats)
    )
    const read = (offset: number, length: number) =>
      Effect.gen(function*() {
        const bytes = new Uint8Array(Math.max(0, Math.min(length, identity.size - offset)))
        let filled = 0
        while (filled < bytes.length) {
          const { bytesRead } = yield* Effect.tryPromise({
            try: () => handle.read(bytes, filled, bytes.length - filled, offset + filled),
            catch: failure(file)
          })
          if (bytesRead === 0) break
          filled += bytesRead
        }
        return bytes.subarray(0, filled)
      })
    return { identity, read }
  })
