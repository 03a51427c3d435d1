/**
 * Following transcript files as they grow (`precis watch`), by polling with
 * `stat`: polling is simple and works the same on every platform and file
 * system (network mounts, editors that replace files), where change
 * notifications do not. Each poll reads the bytes a file gained up to its
 * last complete line (a partial last line waits for its line break), parses
 * them with the file's `Importer.LineParser` and appends their turns and the
 * new offset in one transaction, so an interruption (Ctrl-C) leaves either
 * both or neither. The offset lives in the store's database, in the CLI's own
 * table (`followedFiles.ts`), with a hash of the file's first bytes: a file
 * shorter than its offset was truncated, one whose first bytes changed was
 * replaced; either is read again
 * from the start (turns already stored are skipped by `appendTurns`). After a
 * restart, the lines before the offset are parsed again (nothing written) to
 * rebuild the parser's state, so ids come out as a whole-file import's.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Importer } from "@precis/importers"
import { SearchIndex, type StoreError, TurnStore } from "@precis/store"
import * as Chunk from "effect/Chunk"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { createHash } from "node:crypto"
import { CliError } from "./errors.js"
import * as FollowedFiles from "./followedFiles.js"
import * as Render from "./render.js"

/** What following does, file by file. */
export type FollowEvent = Data.TaggedEnum<{
  /** Complete lines were read: `added` new turns (of `turns`) went to `session`; the file is read up to `offset`. */
  Imported: {
    readonly file: string
    readonly session: string
    readonly turns: number
    readonly added: number
    readonly offset: number
  }
  /** The file is read again from its start: it was truncated or replaced. */
  Restarted: { readonly file: string; readonly reason: "truncated" | "replaced" }
  /** The file cannot be followed (a bad line, an unknown format, a conflicting turn); it is left alone. */
  FileFailed: { readonly file: string; readonly reason: string }
}>

/** Constructors of {@link FollowEvent}. */
export const FollowEvent = Data.taggedEnum<FollowEvent>()

/** The first bytes whose hash tells a replaced file from a grown one. */
const HEAD_BYTES = 1024

const hash = (bytes: Uint8Array): string => createHash("sha1").update(bytes).digest("hex")

/** What is known of a followed file. */
interface State {
  readonly session: string
  readonly parser: Importer.LineParser
  readonly offset: number
  readonly headHash: string
}

/** What to follow and how. */
export interface FollowOptions {
  /** Files and directories (their `.jsonl` files, at any depth, found again at each poll). */
  readonly paths: ReadonlyArray<string>
  /** The session of the one file followed; else each file's base name. */
  readonly session: Option.Option<string>
  readonly format: Importer.Format
  readonly onEvent: (event: FollowEvent) => Effect.Effect<void>
}

/** Fails unless every path exists, and unless `--session` goes with a single file. */
export const checkPaths = (paths: ReadonlyArray<string>, session: Option.Option<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    for (const path of paths) {
      const info = yield* fs.stat(path).pipe(
        Effect.catchAll(() => Effect.fail(new CliError({ reason: `${path}: no such file or directory` })))
      )
      if (Option.isSome(session) && (paths.length > 1 || info.type !== "File")) {
        return yield* new CliError({ reason: "--session names the session of a single file: give one FILE" })
      }
    }
  })

/**
 * A follower: `poll` reads what every followed file gained since the last
 * poll (returning the turns added); `sessions` are the sessions the followed
 * files go to.
 */
export interface Follower {
  readonly poll: Effect.Effect<number, StoreError.StoreError>
  readonly sessions: Effect.Effect<ReadonlyArray<string>>
}

/** A {@link Follower} of `options.paths`, over the store in context. */
export const make = (
  options: FollowOptions
): Effect.Effect<
  Follower,
  StoreError.StoreError,
  FileSystem.FileSystem | Path.Path | TurnStore.TurnStore | SearchIndex.SearchIndex | SqlClient.SqlClient
> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const store = yield* TurnStore.TurnStore
    const index = yield* SearchIndex.SearchIndex
    const followed = yield* FollowedFiles.make
    const states = new Map<string, State>()
    const failed = new Set<string>()
    const sessions = new Set<string>()

    const files = Effect.forEach(options.paths, (root) =>
      Effect.gen(function*() {
        const info = yield* fs.stat(root)
        if (info.type === "File") return [root]
        const names = yield* fs.readDirectory(root, { recursive: true })
        return names.filter((name) => name.endsWith(".jsonl")).sort().map((name) => path.join(root, name))
      }).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))).pipe(Effect.map((lists) => lists.flat()))

    const readBytes = (file: string, offset: number, length: number) =>
      fs.stream(file, { offset, bytesToRead: length }).pipe(
        Stream.runCollect,
        Effect.map((chunks) => {
          const parts = Chunk.toReadonlyArray(chunks)
          const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0))
          let at = 0
          for (const part of parts) {
            out.set(part, at)
            at += part.length
          }
          return out
        })
      )

    const headHash = (file: string, offset: number) =>
      Effect.map(readBytes(file, 0, Math.min(offset, HEAD_BYTES)), hash)

    // Complete lines of `bytes` (up to its last line break) and how many bytes they take.
    const completeLines = (bytes: Uint8Array): { readonly lines: Array<string>; readonly length: number } => {
      const end = bytes.lastIndexOf(0x0a)
      if (end === -1) return { lines: [], length: 0 }
      const lines = new TextDecoder().decode(bytes.subarray(0, end)).split("\n")
      return { lines, length: end + 1 }
    }

    const fail = (file: string, reason: string) =>
      Effect.zipRight(Effect.sync(() => failed.add(file)), options.onEvent(FollowEvent.FileFailed({ file, reason })))

    const sessionOf = (file: string) => Option.getOrElse(options.session, () => Render.sessionIdFromPath(file))

    // A fresh state for a file read from its start: its format from its first complete lines.
    const fresh = (file: string) =>
      Effect.gen(function*() {
        const sample = completeLines(yield* readBytes(file, 0, Importer.detectionSampleBytes))
        if (sample.lines.join("").trim().length === 0) return Option.none<State>()
        const format = options.format === "auto"
          ? Importer.detect(sample.lines.join("\n"), file)
          : Option.some(options.format)
        if (Option.isNone(format)) {
          yield* fail(file, "cannot tell its format: give --format")
          return Option.none<State>()
        }
        const parser = Importer.lineParser(format.value, file)
        if (parser === undefined) {
          yield* fail(file, `${format.value} is not a line-based format: precis watch follows JSONL transcripts`)
          return Option.none<State>()
        }
        return Option.some<State>({ session: sessionOf(file), parser, offset: 0, headHash: hash(new Uint8Array()) })
      })

    // The state of a file recorded in the store, its parser brought up to the recorded offset.
    const resume = (file: string, size: number, row: FollowedFiles.FollowedFile) =>
      Effect.gen(function*() {
        const parser = Importer.lineParser(row.format as Importer.ConcreteFormat, file)
        if (parser === undefined || size < row.byteOffset) return Option.none<State>()
        if ((yield* headHash(file, row.byteOffset)) !== row.headHash) return Option.none<State>()
        const { lines } = completeLines(yield* readBytes(file, 0, row.byteOffset))
        if (Either.isLeft(parser.push(lines))) return Option.none<State>()
        sessions.add(row.sessionId)
        return Option.some<State>({ session: sessionOf(file), parser, offset: row.byteOffset, headHash: row.headHash })
      })

    const load = (file: string, size: number) =>
      Effect.gen(function*() {
        const row = yield* followed.get(file)
        if (Option.isSome(row)) {
          const resumed = yield* resume(file, size, row.value)
          if (Option.isSome(resumed)) return resumed
          const reason = size < row.value.byteOffset ? "truncated" : "replaced"
          yield* options.onEvent(FollowEvent.Restarted({ file, reason }))
        }
        return yield* fresh(file)
      })

    const step = (file: string) =>
      Effect.gen(function*() {
        const size = Number((yield* fs.stat(file)).size)
        let state = states.get(file)
        if (state !== undefined && state.offset > 0) {
          const reason = size < state.offset
            ? "truncated"
            : (yield* headHash(file, state.offset)) !== state.headHash
            ? "replaced"
            : undefined
          if (reason !== undefined) {
            states.delete(file)
            state = undefined
            yield* options.onEvent(FollowEvent.Restarted({ file, reason }))
            const restarted = yield* fresh(file)
            if (Option.isNone(restarted)) return 0
            state = restarted.value
          }
        }
        if (state === undefined) {
          const loaded = yield* load(file, size)
          if (Option.isNone(loaded)) return 0
          state = loaded.value
          states.set(file, state)
        }
        if (size <= state.offset) return 0
        const { lines, length } = completeLines(yield* readBytes(file, state.offset, size - state.offset))
        if (length === 0) return 0
        const parsed = state.parser.push(lines)
        if (Either.isLeft(parsed)) {
          states.delete(file)
          yield* fail(file, parsed.left.message)
          return 0
        }
        const offset = state.offset + length
        const head = state.offset >= HEAD_BYTES ? state.headHash : yield* headHash(file, offset)
        const prefix = state.session
        const written = yield* store.withTransaction(
          Effect.gen(function*() {
            const results = yield* Effect.forEach(parsed.right, (conversation) =>
              Effect.map(
                store.appendTurns(Importer.sessionId(prefix, conversation), conversation.turns),
                (added) => ({ session: Importer.sessionId(prefix, conversation), turns: conversation.turns.length, added })
              ))
            yield* followed.save({
              path: file,
              sessionId: prefix,
              format: state.parser.format,
              byteOffset: offset,
              lineCount: state.parser.lineCount(),
              headHash: head
            })
            // Indexed for search with them (a read-only `precis search` cannot index them).
            yield* index.indexSearch
            return results
          })
        ).pipe(
          Effect.catchTag("TurnConflictError", (error) => Effect.as(fail(file, error.message), undefined))
        )
        if (written === undefined) {
          states.delete(file)
          return 0
        }
        states.set(file, { ...state, offset, headHash: head })
        if (written.length === 0) sessions.add(prefix)
        let added = 0
        for (const result of written) {
          added += result.added.length
          sessions.add(result.session)
          yield* options.onEvent(
            FollowEvent.Imported({ file, session: result.session, turns: result.turns, added: result.added.length, offset })
          )
        }
        return added
      })

    /** Reads what every followed file gained; returns the turns added. */
    const poll = Effect.gen(function*() {
      let added = 0
      for (const file of yield* files) {
        if (failed.has(file)) continue
        added += yield* step(file).pipe(
          Effect.catchTags({
            SystemError: (error) => Effect.as(fail(file, error.message), 0),
            BadArgument: (error) => Effect.as(fail(file, error.message), 0)
          })
        )
      }
      return added
    })

    return { poll, sessions: Effect.sync(() => Array.from(sessions)) }
  })
