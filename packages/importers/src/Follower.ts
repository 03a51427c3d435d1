/**
 * Following transcript files as they grow: one file, or the transcripts of a
 * folder (its JSONL files, Gemini CLI's chats, opencode's sessions: found
 * again as it changes), each read from where the last reader
 * stopped, in this process or another. A poll reads what each file gained,
 * in chunks of complete lines, appends their turns to the store and records,
 * in the same transaction, how far the file was read (its offset, size,
 * inode, a checksum of what was read, its format and its parser's state:
 * `@precis/store`'s `FollowedFiles`). So a process that starts on a file
 * already followed reads only the bytes added since (a Claude Code hook, at
 * each event), and an interruption leaves the turns and the offset both
 * written or neither. A file truncated, replaced (another inode) or
 * rewritten in place (its checksum changed) is read again from its start
 * (turns already stored are kept once); a bad line is reported and left
 * out; a file that cannot be followed is reported and left alone until it
 * changes, the others going on. A session kept whole (a JSON file written
 * again at each turn, opencode's storage) is read again whole when it
 * changes, and only its turns not yet stored are appended, those of its last
 * message once it is settled (see `Options.settled`).
 *
 * @example
 * ```ts
 * import { Follower } from "@precis/importers"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Effect, Layer, Stream } from "effect"
 * const program = Effect.flatMap(Follower.Follower, (follower) =>
 *   follower.follow({ paths: ["session.jsonl"], interval: "1 second" }).pipe(Stream.runForEach(Effect.log)))
 * program.pipe(Effect.provide(Follower.layer.pipe(Layer.provide(SqliteStore.layer({ filename: "precis.db" })))))
 * ```
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { FollowedFiles, SearchIndex, TurnStore } from "@precis/store"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Format } from "./Importer.js"
import * as Changes from "./internal/follow/changes.js"
import * as Events from "./internal/follow/event.js"
import * as Poll from "./internal/follow/poll.js"

/**
 * What following does, file by file: a batch `Imported`, a file `Restarted`
 * from its start, a `LineSkipped` (a bad line, said once), a `LineMended` (a NUL
 * shown as ␀, as a lenient import does), a file that `FileFailed`.
 *
 * @category models
 * @since 0.1.0
 */
export type Event = Events.Event

/**
 * Constructors of {@link Event}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const Event = Events.Event

/**
 * What to follow and how.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * Files and directories (their `*.jsonl` files, Gemini CLI's `chats/session-*.json`
   * and opencode's `session/<project>/ses_*.json`, at any depth, found again as they
   * change); only regular files are read.
   */
  readonly paths: ReadonlyArray<string>
  /** The session of the one file followed; else each file's (`Importer.sessionIdFromPath`). */
  readonly session?: string | undefined
  /** The files' format (default `"auto"`: told by each file's first lines). */
  readonly format?: Format | undefined
  /** The most bytes read at once, and appended in one transaction (default 8 MiB). */
  readonly chunkSize?: number | undefined
  /**
   * The agent is not writing the files (a hook run at one of its events): the
   * last message of a session kept whole is imported at once, not held back
   * until a later look finds it unchanged (default `false`).
   */
  readonly settled?: boolean | undefined
}

/**
 * Files being followed.
 *
 * @category models
 * @since 0.1.0
 */
export interface Following {
  /** Reads what the followed files gained since the last poll: what it did, as it does it. */
  readonly poll: Stream.Stream<Event>
  /** The sessions the followed files went to so far. */
  readonly sessions: Effect.Effect<ReadonlyArray<string>>
  /**
   * How many times files were looked at (`stat`) and opened, the bytes of
   * transcript read (checksums aside), and the lines skipped, so far.
   */
  readonly counts: Effect.Effect<
    { readonly looks: number; readonly reads: number; readonly bytes: number; readonly skipped: number }
  >
}

/**
 * The follower.
 *
 * @category models
 * @since 0.1.0
 */
export interface Service {
  /** Starts following `options.paths` (nothing read yet); its change notifications live in the scope. */
  readonly start: (options: Options) => Effect.Effect<Following, never, Scope.Scope>
  /** Follows `options.paths`, a poll every `interval`, until interrupted: what it does. */
  readonly follow: (options: Options & { readonly interval: Duration.DurationInput }) => Stream.Stream<Event>
}

/**
 * The follower of the store in context.
 *
 * @category tags
 * @since 0.1.0
 */
export class Follower extends Context.Tag("@precis/importers/Follower")<Follower, Service>() {}

/** The bytes read at once unless `chunkSize` says otherwise. */
const DEFAULT_CHUNK = 8 * 1024 * 1024

/**
 * The follower over the store in context (`TurnStore`, `SearchIndex`,
 * `FollowedFiles`: what the SQL drivers provide) and the `FileSystem` (a
 * session kept in several files is gathered through it).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<
  Service,
  never,
  TurnStore.TurnStore | SearchIndex.SearchIndex | FollowedFiles.FollowedFiles | FileSystem.FileSystem
> =
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const index = yield* SearchIndex.SearchIndex
    const followed = yield* FollowedFiles.FollowedFiles
    const fileSystem = yield* FileSystem.FileSystem
    const start = (options: Options) =>
      Effect.gen(function*() {
        const env: Poll.Env = {
          options: {
            session: Option.fromNullable(options.session),
            format: options.format ?? "auto",
            chunkSize: Math.max(1, options.chunkSize ?? DEFAULT_CHUNK)
          },
          paths: options.paths,
          store,
          index,
          followed,
          fileSystem,
          settled: options.settled === true,
          formats: new Map(),
          wholes: new Map(),
          storedIds: new Map(),
          changes: yield* Changes.make,
          states: new Map(),
          schedules: new Map(),
          sessions: new Set(),
          counts: { looks: 0, reads: 0, bytes: 0, skipped: 0 },
          scans: { tree: { files: [], directories: [] }, polls: 0, last: Number.NEGATIVE_INFINITY }
        }
        // Each event as it happens (an import once its transaction is committed), the files one by one.
        const poll = Stream.unwrap(Effect.map(Poll.due(env), ({ files, maxIdle }) =>
          Stream.asyncPush<Event>((emit) =>
            Effect.forkScoped(Effect.ensuring(
              Effect.forEach(files, (file) => Poll.file(env, file, maxIdle, (event) => void emit.single(event)), { discard: true }),
              Effect.sync(() => emit.end())
            )), { bufferSize: "unbounded" })))
        return {
          poll,
          sessions: Effect.sync(() => Array.from(env.sessions)),
          counts: Effect.sync(() => ({ ...env.counts }))
        }
      })
    return Follower.of({
      start,
      follow: (options) =>
        Stream.unwrapScoped(
          Effect.map(start(options), (following) => Stream.repeat(following.poll, Schedule.spaced(options.interval)))
        )
    })
  })

/**
 * {@link make} as a layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<
  Follower,
  never,
  TurnStore.TurnStore | SearchIndex.SearchIndex | FollowedFiles.FollowedFiles | FileSystem.FileSystem
> =
  Layer.effect(Follower, make)
