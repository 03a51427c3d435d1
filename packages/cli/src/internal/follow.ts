/**
 * Following transcript files as they grow (`precis watch`). Each poll reads
 * the bytes a file gained up to its last complete line (a partial last line
 * waits for its line break), parses them with the file's
 * `Importer.LineParser` and appends their turns and the new offset in one
 * transaction, so an interruption (Ctrl-C) leaves either both or neither.
 *
 * - **Which files**: those `watchedTree.ts` finds (each directory listed
 *   once, link loops ended, a file under several paths followed once, only
 *   regular files), found again when a directory changes, or every few polls.
 * - **When**: a file is looked at (`stat`) when its directory reports a change
 *   (`changes.ts`), else on a poll, less and less often while it stays the
 *   same (1, 2, 4, ... up to 32 polls apart); an unchanged file is not read.
 * - **Which file it is**: the offset lives in the store's database, in the
 *   CLI's own table (`followedFiles.ts`), with the file's device and inode
 *   and a hash of its first bytes. A file with another inode was replaced
 *   (whatever its content), one shorter than its offset was truncated, one
 *   whose first bytes changed was rewritten: each is read again from the
 *   start (turns already stored are skipped by `appendTurns`), reported once,
 *   its offset recorded as 0 at once. After a restart, the lines before the
 *   offset are parsed again (nothing written) to rebuild the parser's state,
 *   so ids come out as a whole-file import's.
 * - **One bad file**: whatever fails on a file (a bad line, a format it
 *   cannot tell, a turn the store refuses, a file it cannot read) is reported
 *   (`FileFailed`), and the file is left alone until it changes; the others
 *   go on.
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { Importer } from "@precis/importers"
import { SearchIndex, type StoreError, TurnStore } from "@precis/store"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Changes from "./changes.js"
import { CliError } from "./errors.js"
import * as FollowedFiles from "./followedFiles.js"
import * as Render from "./render.js"
import * as TranscriptFile from "./transcriptFile.js"
import * as WatchedTree from "./watchedTree.js"

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
  /** The file cannot be followed (a bad line, an unknown format, a refused turn, not readable); left alone until it changes. */
  FileFailed: { readonly file: string; readonly reason: string }
}>

/** Constructors of {@link FollowEvent}. */
export const FollowEvent = Data.taggedEnum<FollowEvent>()

/** The first bytes whose hash tells a rewritten file from a grown one. */
const HEAD_BYTES = 1024

/**
 * The most polls between two looks at a file that stays the same: when its
 * directory notifies changes, and when it does not (then polling is all there is).
 */
const MAX_IDLE_POLLS = { notified: 32, polled: 8 } as const

/** Polls between two scans of the tree, when every directory notifies changes, and when not. */
const RESCAN_POLLS = { notified: 32, polled: 4 } as const

const hash = (bytes: Uint8Array): string => createHash("sha1").update(bytes).digest("hex")

const EMPTY_HASH = hash(new Uint8Array())

/** What is known of a followed file that is being read. */
interface State {
  readonly session: string
  readonly parser: Importer.LineParser
  readonly offset: number
  readonly headHash: string
}

/** When a file is looked at next: as it was last seen, and the polls to wait (idle backoff). */
interface Schedule {
  readonly seen: TranscriptFile.Identity
  readonly idle: number
  readonly wait: number
}

/** What to follow and how. */
export interface FollowOptions {
  /** Files and directories (their `.jsonl` files, at any depth, found again as they change). */
  readonly paths: ReadonlyArray<string>
  /** The session of the one file followed; else each file's base name. */
  readonly session: Option.Option<string>
  readonly format: Importer.Format
  readonly onEvent: (event: FollowEvent) => Effect.Effect<void>
}

/** Fails unless every path is a regular file or a directory, and unless `--session` goes with a single file. */
export const checkPaths = (paths: ReadonlyArray<string>, session: Option.Option<string>) =>
  Effect.forEach(paths, (file) =>
    Effect.gen(function*() {
      const stats = yield* Effect.promise(() => fsp.stat(file).catch(() => undefined))
      if (stats === undefined) return yield* new CliError({ reason: `${file}: no such file or directory` })
      if (!stats.isFile() && !stats.isDirectory()) {
        return yield* new CliError({ reason: `${file}: not a regular file or a directory: never read` })
      }
      if (Option.isSome(session) && (paths.length > 1 || !stats.isFile())) {
        return yield* new CliError({ reason: "--session names the session of a single file: give one FILE" })
      }
    }), { discard: true })

/**
 * A follower: `poll` reads what the followed files gained since the last
 * poll (returning the turns added); `sessions` are the sessions the followed
 * files go to.
 */
export interface Follower {
  readonly poll: Effect.Effect<number>
  readonly sessions: Effect.Effect<ReadonlyArray<string>>
  /** How many times files were looked at (`stat`) and read (opened) so far: what idle files cost. */
  readonly counts: Effect.Effect<{ readonly looks: number; readonly reads: number }>
}

// Complete lines of `bytes` (up to its last line break) and how many bytes they take.
const completeLines = (bytes: Uint8Array): { readonly lines: Array<string>; readonly length: number } => {
  const end = bytes.lastIndexOf(0x0a)
  if (end === -1) return { lines: [], length: 0 }
  return { lines: new TextDecoder().decode(bytes.subarray(0, end)).split("\n"), length: end + 1 }
}


// What a failure of one file says, whatever it is (an error's message, a defect's).
const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

/** A {@link Follower} of `options.paths`, over the store in context; its change notifications live in the scope. */
export const make = (
  options: FollowOptions
): Effect.Effect<
  Follower,
  StoreError.StoreError,
  TurnStore.TurnStore | SearchIndex.SearchIndex | SqlClient.SqlClient | Scope.Scope
> =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const index = yield* SearchIndex.SearchIndex
    const followed = yield* FollowedFiles.make
    const changes = yield* Changes.make
    const states = new Map<string, State>()
    const schedules = new Map<string, Schedule>()
    const sessions = new Set<string>()
    let tree: WatchedTree.Tree = { files: [], directories: [] }
    let polls = 0
    let lastScan = Number.NEGATIVE_INFINITY
    const counts = { looks: 0, reads: 0 }
    const look = (file: string) => Effect.zipLeft(TranscriptFile.look(file), Effect.sync(() => counts.looks++))
    const read = (file: string, offset: number, length: number) =>
      Effect.zipLeft(TranscriptFile.read(file, offset, length), Effect.sync(() => counts.reads++))
    const bytesOf = (file: string, offset: number, length: number) =>
      Effect.map(read(file, offset, length), (bytes) => bytes.bytes)
    const headHash = (file: string, offset: number) => Effect.map(bytesOf(file, 0, Math.min(offset, HEAD_BYTES)), hash)

    const sessionOf = (file: string) => Option.getOrElse(options.session, () => Render.sessionIdFromPath(file))

    const fail = (file: string, reason: string) =>
      Effect.zipRight(Effect.sync(() => states.delete(file)), options.onEvent(FollowEvent.FileFailed({ file, reason })))

    // A fresh state for a file read from its start: its format from its first complete lines.
    const fresh = (file: string) =>
      Effect.gen(function*() {
        const sample = completeLines(yield* bytesOf(file, 0, Importer.detectionSampleBytes))
        if (sample.lines.join("").trim().length === 0) return Option.none<State>()
        const format = options.format === "auto"
          ? Importer.detect(sample.lines.join("\n"), file)
          : Option.some(options.format)
        if (Option.isNone(format)) return yield* new CliError({ reason: "cannot tell its format: give --format" })
        const parser = Importer.lineParser(format.value, file)
        if (parser === undefined) {
          return yield* new CliError({
            reason: `${format.value} is not a line-based format: precis watch follows JSONL transcripts`
          })
        }
        return Option.some<State>({ session: sessionOf(file), parser, offset: 0, headHash: EMPTY_HASH })
      })

    // The file is read again from its start: said once, and its offset recorded as 0 at once, so that
    // neither the next poll nor the next run finds it shorter than its offset again.
    const restart = (file: string, identity: TranscriptFile.Identity, reason: "truncated" | "replaced", format: string) =>
      Effect.gen(function*() {
        states.delete(file)
        yield* options.onEvent(FollowEvent.Restarted({ file, reason }))
        yield* followed.save({
          path: file,
          sessionId: sessionOf(file),
          format,
          byteOffset: 0,
          lineCount: 0,
          headHash: EMPTY_HASH,
          fileId: TranscriptFile.fileId(identity)
        })
      })

    // Why a file read up to `offset` (`fileId`, `head`) must be read again, if it must.
    const staleness = (file: string, identity: TranscriptFile.Identity, offset: number, fileId: string | undefined, head: string) =>
      Effect.gen(function*() {
        if (fileId !== undefined && fileId !== TranscriptFile.fileId(identity)) return Option.some("replaced" as const)
        if (identity.size < offset) return Option.some("truncated" as const)
        if ((yield* headHash(file, offset)) !== head) return Option.some("replaced" as const)
        return Option.none()
      })

    // The state recorded in the store for `file`, its parser brought up to the recorded offset; else a fresh one.
    const load = (file: string, identity: TranscriptFile.Identity) =>
      Effect.gen(function*() {
        const row = yield* followed.get(file)
        if (Option.isNone(row) || row.value.byteOffset === 0) return yield* fresh(file)
        const { byteOffset, fileId, format, headHash: head, sessionId } = row.value
        const stale = yield* staleness(file, identity, byteOffset, fileId, head)
        const parser = Importer.lineParser(format as Importer.ConcreteFormat, file)
        if (Option.isNone(stale) && parser !== undefined) {
          const { lines } = completeLines(yield* bytesOf(file, 0, byteOffset))
          if (Either.isRight(parser.push(lines))) {
            sessions.add(sessionId)
            return Option.some<State>({ session: sessionOf(file), parser, offset: byteOffset, headHash: head })
          }
        }
        yield* restart(file, identity, Option.getOrElse(stale, () => "replaced" as const), format)
        return yield* fresh(file)
      })

    // Appends the turns of `lines` (read from `state.offset`, `length` bytes) and records the new offset.
    const append = (file: string, identity: TranscriptFile.Identity, state: State, lines: Array<string>, length: number) =>
      Effect.gen(function*() {
        const parsed = state.parser.push(lines)
        if (Either.isLeft(parsed)) return yield* new CliError({ reason: parsed.left.message })
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
              headHash: head,
              fileId: TranscriptFile.fileId(identity)
            })
            // Indexed for search with them (a read-only `precis search` cannot index them).
            yield* index.indexSearch
            return results
          })
        )
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

    // Reads what `file` (looked at as `identity`) gained.
    const step = (file: string, identity: TranscriptFile.Identity) =>
      Effect.gen(function*() {
        let state = states.get(file)
        if (state !== undefined && state.offset > 0) {
          const seen = schedules.get(file)?.seen
          const fileId = seen === undefined ? undefined : TranscriptFile.fileId(seen)
          const stale = yield* staleness(file, identity, state.offset, fileId, state.headHash)
          if (Option.isSome(stale)) {
            yield* restart(file, identity, stale.value, state.parser.format)
            state = undefined
          }
        }
        if (state === undefined) {
          const loaded = yield* load(file, identity)
          if (Option.isNone(loaded)) return 0
          state = loaded.value
          states.set(file, state)
        }
        if (identity.size <= state.offset) return 0
        const gained = yield* read(file, state.offset, identity.size - state.offset)
        // Swapped for another file between the look and the read: the next look sees it.
        if (TranscriptFile.fileId(gained.identity) !== TranscriptFile.fileId(identity)) return 0
        const { length, lines } = completeLines(gained.bytes)
        return length === 0 ? 0 : yield* append(file, identity, state, lines, length)
      })

    // Looks at `file`; reads it only if it changed since the last look (else waits longer before the next,
    // up to `maxIdle` polls). A file gone since the scan is forgotten.
    const check = (file: string, maxIdle: number) =>
      Effect.gen(function*() {
        const looked = yield* Effect.either(look(file))
        if (Either.isLeft(looked) && looked.left.missing) {
          states.delete(file)
          schedules.delete(file)
          return 0
        }
        const identity = yield* looked
        const before = schedules.get(file)
        if (before !== undefined && TranscriptFile.unchanged(before.seen, identity)) {
          const idle = Math.min(maxIdle, Math.max(1, before.idle * 2))
          schedules.set(file, { seen: identity, idle, wait: idle })
          return 0
        }
        const added = yield* step(file, identity)
        // Recorded after the step: a failed file is left alone until it changes, as an idle one.
        schedules.set(file, { seen: identity, idle: 0, wait: 0 })
        return added
      }).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.gen(function*() {
            yield* fail(file, reasonOf(cause))
            const seen = yield* Effect.option(look(file))
            if (Option.isSome(seen)) schedules.set(file, { seen: seen.value, idle: 1, wait: 1 })
            return 0
          })
        )
      )

    /** Reads what the followed files gained; returns the turns added. */
    const poll = Effect.gen(function*() {
      polls += 1
      const changed = yield* changes.take
      const notified = yield* changes.complete
      const every = notified ? RESCAN_POLLS.notified : RESCAN_POLLS.polled
      if (changed.size > 0 || polls - lastScan >= every) {
        tree = yield* WatchedTree.scan(options.paths)
        yield* changes.watch(tree.directories)
        lastScan = polls
        const present = new Set(tree.files.map((found) => found.path))
        for (const file of [...schedules.keys()]) if (!present.has(file)) schedules.delete(file)
      }
      let added = 0
      for (const { path: file } of tree.files) {
        const schedule = schedules.get(file)
        if (schedule !== undefined && schedule.wait > 0 && !changed.has(path.dirname(file))) {
          schedules.set(file, { ...schedule, wait: schedule.wait - 1 })
          continue
        }
        added += yield* check(file, notified ? MAX_IDLE_POLLS.notified : MAX_IDLE_POLLS.polled)
      }
      return added
    })

    return { poll, sessions: Effect.sync(() => Array.from(sessions)), counts: Effect.sync(() => ({ ...counts })) }
  })
