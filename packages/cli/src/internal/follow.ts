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
import type { Importer } from "@precis/importers"
import { SearchIndex, type StoreError, TurnStore } from "@precis/store"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Changes from "./changes.js"
import { CliError } from "./errors.js"
import * as FollowedFiles from "./followedFiles.js"
import * as FollowFile from "./followFile.js"
import * as TranscriptFile from "./transcriptFile.js"
import * as WatchedTree from "./watchedTree.js"

export {
  /** What following does, file by file. */
  FollowEvent
} from "./followFile.js"

/**
 * The most polls between two looks at a file that stays the same: when its
 * directory notifies changes, and when it does not (then polling is all there is).
 */
const MAX_IDLE_POLLS = { notified: 32, polled: 8 } as const

/** Polls between two scans of the tree, when every directory notifies changes, and when not. */
const RESCAN_POLLS = { notified: 32, polled: 4 } as const

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
  readonly onEvent: (event: FollowFile.FollowEvent) => Effect.Effect<void>
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

/** A follower's state across polls: what reading a file needs, when each file is looked at, the tree. */
interface Env extends FollowFile.Env {
  readonly paths: ReadonlyArray<string>
  readonly changes: Changes.Changes
  readonly schedules: Map<string, Schedule>
  readonly scans: { tree: WatchedTree.Tree; polls: number; last: number }
}

const look = (env: Env, file: string) =>
  Effect.zipLeft(TranscriptFile.look(file), Effect.sync(() => env.counts.looks++))

// What a failure of one file says, whatever it is (an error's message, a defect's).
const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

// Reported, and the file left alone until it changes (as an idle one is).
const failed = (env: Env, file: string, cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    env.states.delete(file)
    yield* env.options.onEvent(FollowFile.FollowEvent.FileFailed({ file, reason: reasonOf(cause) }))
    const seen = yield* Effect.option(look(env, file))
    if (Option.isSome(seen)) env.schedules.set(file, { seen: seen.value, idle: 1, wait: 1 })
    return 0
  })

// Looks at `file`; reads it only if it changed since the last look (else waits longer before the next,
// up to `maxIdle` polls). A file gone since the scan is forgotten; one that fails is `failed`.
const check = (env: Env, file: string, maxIdle: number) =>
  Effect.gen(function*() {
    const looked = yield* Effect.either(look(env, file))
    if (Either.isLeft(looked) && looked.left.missing) {
      env.states.delete(file)
      env.schedules.delete(file)
      return 0
    }
    const identity = yield* looked
    const before = env.schedules.get(file)
    if (before !== undefined && TranscriptFile.unchanged(before.seen, identity)) {
      const idle = Math.min(maxIdle, Math.max(1, before.idle * 2))
      env.schedules.set(file, { seen: identity, idle, wait: idle })
      return 0
    }
    const added = yield* FollowFile.step(env, file, identity, before?.seen)
    env.schedules.set(file, { seen: identity, idle: 0, wait: 0 })
    return added
  }).pipe(
    Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.interrupt : failed(env, file, cause)))
  )

// Reads what the followed files gained; returns the turns added. The tree is scanned again when a
// directory changed, else every few polls.
const poll = (env: Env) =>
  Effect.gen(function*() {
    const scans = env.scans
    scans.polls += 1
    const changed = yield* env.changes.take
    const notified = yield* env.changes.complete
    if (changed.size > 0 || scans.polls - scans.last >= (notified ? RESCAN_POLLS.notified : RESCAN_POLLS.polled)) {
      scans.tree = yield* WatchedTree.scan(env.paths)
      yield* env.changes.watch(scans.tree.directories)
      scans.last = scans.polls
      const present = new Set(scans.tree.files.map((found) => found.path))
      for (const file of [...env.schedules.keys()]) if (!present.has(file)) env.schedules.delete(file)
    }
    let added = 0
    for (const { path: file } of scans.tree.files) {
      const schedule = env.schedules.get(file)
      if (schedule !== undefined && schedule.wait > 0 && !changed.has(path.dirname(file))) {
        env.schedules.set(file, { ...schedule, wait: schedule.wait - 1 })
        continue
      }
      added += yield* check(env, file, notified ? MAX_IDLE_POLLS.notified : MAX_IDLE_POLLS.polled)
    }
    return added
  })

/** A {@link Follower} of `options.paths`, over the store in context; its change notifications live in the scope. */
export const make = (
  options: FollowOptions
): Effect.Effect<
  Follower,
  StoreError.StoreError,
  TurnStore.TurnStore | SearchIndex.SearchIndex | SqlClient.SqlClient | Scope.Scope
> =>
  Effect.gen(function*() {
    const env: Env = {
      options,
      paths: options.paths,
      store: yield* TurnStore.TurnStore,
      index: yield* SearchIndex.SearchIndex,
      followed: yield* FollowedFiles.make,
      changes: yield* Changes.make,
      states: new Map(),
      schedules: new Map(),
      sessions: new Set(),
      counts: { looks: 0, reads: 0 },
      scans: { tree: { files: [], directories: [] }, polls: 0, last: Number.NEGATIVE_INFINITY }
    }
    return {
      poll: poll(env),
      sessions: Effect.sync(() => Array.from(env.sessions)),
      counts: Effect.sync(() => ({ ...env.counts }))
    }
  })
