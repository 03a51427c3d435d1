/**
 * Following transcript files as they grow, poll by poll (`Follower.start`).
 *
 * - **Which files**: those `watchedTree.ts` finds (each directory listed
 *   once, link loops ended, a file under several paths followed once, only
 *   regular files), found again when a directory changes, or every few polls.
 * - **When**: a file is looked at (`stat`) when its directory reports a change
 *   (`changes.ts`), else on a poll, less and less often while it stays the
 *   same (1, 2, 4, ... up to 32 polls apart); an unchanged file is not read.
 * - **What is read**: see `followFile.ts` (the offset, checksum and parser
 *   state kept in the store's `FollowedFiles`), and `wholeFile.ts` for a
 *   session kept whole (read again at each change, its new turns appended).
 * - **One bad file**: whatever fails on a file (a format it cannot tell, a
 *   turn the store refuses, a file it cannot read) is reported (`FileFailed`),
 *   and the file is left alone until it changes; the others go on. A bad line
 *   is not a bad file: it is reported (`LineSkipped`) and the next lines read.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Changes from "./changes.js"
import { Event } from "./event.js"
import type * as FollowFile from "./followFile.js"
import * as TranscriptFile from "./transcriptFile.js"
import * as WatchedTree from "./watchedTree.js"
import * as WholeFile from "./wholeFile.js"

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

/** A follower's state across polls: what reading a file needs, when each file is looked at, the tree. */
export interface Env extends WholeFile.Env {
  readonly paths: ReadonlyArray<string>
  readonly changes: Changes.Changes
  readonly schedules: Map<string, Schedule>
  readonly scans: { tree: WatchedTree.Tree; polls: number; last: number }
}

const look = (env: Env, file: string) => Effect.zipLeft(WholeFile.look(env, file), Effect.sync(() => env.counts.looks++))

// What a failure of one file says, whatever it is (an error's message, a defect's).
const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

// Reported, and the file left alone until it changes (as an idle one is).
const failed = (env: Env, file: string, cause: Cause.Cause<unknown>, emit: FollowFile.Emit) =>
  Effect.gen(function*() {
    env.states.delete(file)
    const seen = yield* Effect.option(look(env, file))
    if (Option.isSome(seen)) env.schedules.set(file, { seen: seen.value, idle: 1, wait: 1 })
    emit(Event.FileFailed({ file, reason: reasonOf(cause) }))
  })

// Looks at `file`; reads it only if it changed since the last look (else waits longer before the next,
// up to `maxIdle` polls). A file gone since the scan is forgotten; one that fails is `failed`.
const check = (env: Env, file: string, maxIdle: number, emit: FollowFile.Emit): Effect.Effect<void> =>
  Effect.gen(function*() {
    const looked = yield* Effect.either(look(env, file))
    if (Either.isLeft(looked) && looked.left.missing) {
      env.states.delete(file)
      env.schedules.delete(file)
      return
    }
    const identity = yield* looked
    const before = env.schedules.get(file)
    if (before !== undefined && TranscriptFile.unchanged(before.seen, identity)) {
      // A session kept whole whose last message waited: unchanged since, it is settled.
      if (WholeFile.holding(env, file)) yield* WholeFile.step(env, file, true, emit)
      const idle = Math.min(maxIdle, Math.max(1, before.idle * 2))
      env.schedules.set(file, { seen: identity, idle, wait: idle })
      return
    }
    yield* WholeFile.step(env, file, false, emit)
    env.schedules.set(file, { seen: identity, idle: 0, wait: 0 })
  }).pipe(
    Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.interrupt : failed(env, file, cause, emit)))
  )

/**
 * The files to look at in this poll (the tree scanned again when a directory
 * changed, else every few polls), and how long an idle one may wait.
 */
export const due = (env: Env): Effect.Effect<{ readonly files: ReadonlyArray<string>; readonly maxIdle: number }> =>
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
    const files: Array<string> = []
    for (const { folders, path: file } of scans.tree.files) {
      const schedule = env.schedules.get(file)
      if (schedule !== undefined && schedule.wait > 0 && !folders.some((dir) => changed.has(dir))) {
        env.schedules.set(file, { ...schedule, wait: schedule.wait - 1 })
      } else {
        files.push(file)
      }
    }
    return { files, maxIdle: notified ? MAX_IDLE_POLLS.notified : MAX_IDLE_POLLS.polled }
  })

/** Reads what `file` gained, if it changed, saying what it does (never failing: a failure is a `FileFailed`). */
export const file: (env: Env, file: string, maxIdle: number, emit: FollowFile.Emit) => Effect.Effect<void> = check
