/**
 * What the follower's tests share: a store on disk in a folder of their own,
 * the follower over it, its events collected, and transcripts to follow.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { SqliteStore } from "@precis/store-sqlite"
import type { FollowedFiles, Store, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as Follower from "../src/Follower.js"

/** A new folder under the system's temporary one. */
export const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "precis-follow-"))

/**
 * A folder for this test file, removed after its tests; each call of the
 * function returned makes a new folder in it, one per case.
 */
export const caseFolders = (): (() => string) => {
  const root = tempDir()
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
  let count = 0
  return () => {
    const dir = path.join(root, `case${count++}`)
    fs.mkdirSync(dir)
    return dir
  }
}

/** Minute `i` of 2025-01-01, as an ISO-8601 timestamp: the time of the `i`th line of a test's session. */
export const at = (i: number): string => new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString()

/** The follower over the SQLite store `filename` (with the store, for the tests to read it). */
export const followerLayer = (filename: string): Layer.Layer<Follower.Follower | Store.Store | FollowedFiles.FollowedFiles> =>
  Layer.provideMerge(Follower.layer, Layer.merge(SqliteStore.layer({ filename }), NodeFileSystem.layer)).pipe(Layer.orDie)

/** A started follower whose polls collect their events into `events`, and return the turns they added. */
export interface Polling {
  readonly poll: Effect.Effect<number>
  readonly sessions: Follower.Following["sessions"]
  readonly counts: Follower.Following["counts"]
}

/** Follows `paths` into the store `store.db` in `dir`; `use` gets the follower and the events so far. */
export const following = <A, E>(
  dir: string,
  paths: ReadonlyArray<string>,
  use: (
    follower: Polling,
    events: Array<Follower.Event>
  ) => Effect.Effect<A, E, TurnStore.TurnStore | FollowedFiles.FollowedFiles>,
  options: Omit<Follower.Options, "paths"> = {}
) => {
  const events: Array<Follower.Event> = []
  return Effect.scoped(Effect.gen(function*() {
    const started = yield* Effect.flatMap(Follower.Follower, (follower) => follower.start({ paths, ...options }))
    const poll = started.poll.pipe(
      Stream.tap((event) => Effect.sync(() => void events.push(event))),
      Stream.runFold(0, (added, event) => (event._tag === "Imported" ? added + event.added : added))
    )
    return yield* use({ poll, sessions: started.sessions, counts: started.counts }, events)
  })).pipe(Effect.provide(followerLayer(path.join(dir, "store.db"))))
}

/** `n` polls: the turns they added. */
export const polls = (follower: Polling, n: number) =>
  Effect.map(Effect.replicateEffect(follower.poll, n), (added) => added.reduce((a, b) => a + b, 0))

/** A precis JSONL session of `count` turns, one minute apart. */
export const sessionJsonl = (count: number, prefix = "t"): string =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `${prefix}${i}`,
      role: i % 2 === 0 ? "user" : "assistant",
      timestamp: at(i),
      content: `Step ${i}: edited src/module${i}.ts and ran \`pnpm test\`; it failed, fixed by guarding the call.`
    })).join("\n") + "\n"
