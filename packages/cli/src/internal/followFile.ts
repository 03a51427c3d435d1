/**
 * Reading one followed file (`precis watch`, see `follow.ts`): from its
 * start (its format told by its first lines), from the offset the store
 * recorded (its parser brought up to it), or again from its start when it
 * was truncated or replaced (reported once, its offset recorded as 0 at
 * once); each read's complete lines appended with the new offset in one
 * transaction.
 *
 * @internal
 */
import { Importer } from "@precis/importers"
import type { SearchIndex, StoreError, TurnStore } from "@precis/store"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import { CliError } from "./errors.js"
import type * as FollowedFiles from "./followedFiles.js"
import * as Render from "./render.js"
import * as TranscriptFile from "./transcriptFile.js"

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

const hash = (bytes: Uint8Array): string => createHash("sha1").update(bytes).digest("hex")

const EMPTY_HASH = hash(new Uint8Array())

/** What is known of a followed file that is being read. */
interface State {
  readonly session: string
  readonly parser: Importer.LineParser
  readonly offset: number
  readonly headHash: string
}

/** What reading a file works with: the follower's options, the store, and what it knows of every file. */
export interface Env {
  readonly options: {
    readonly session: Option.Option<string>
    readonly format: Importer.Format
    readonly onEvent: (event: FollowEvent) => Effect.Effect<void>
  }
  readonly store: TurnStore.Service
  readonly index: SearchIndex.Service
  readonly followed: FollowedFiles.FollowedFiles
  readonly states: Map<string, State>
  readonly sessions: Set<string>
  /** Files looked at and read so far. */
  readonly counts: { looks: number; reads: number }
}

/** `TranscriptFile.read`, counted. */
const read = (env: Env, file: string, offset: number, length: number) =>
  Effect.zipLeft(TranscriptFile.read(file, offset, length), Effect.sync(() => env.counts.reads++))

const bytesOf = (env: Env, file: string, offset: number, length: number) =>
  Effect.map(read(env, file, offset, length), (bytes) => bytes.bytes)

const headHash = (env: Env, file: string, offset: number) =>
  Effect.map(bytesOf(env, file, 0, Math.min(offset, HEAD_BYTES)), hash)

const sessionOf = (env: Env, file: string) =>
  Option.getOrElse(env.options.session, () => Render.sessionIdFromPath(file))

// Complete lines of `bytes` (up to its last line break) and how many bytes they take.
const completeLines = (bytes: Uint8Array): { readonly lines: Array<string>; readonly length: number } => {
  const end = bytes.lastIndexOf(0x0a)
  if (end === -1) return { lines: [], length: 0 }
  return { lines: new TextDecoder().decode(bytes.subarray(0, end)).split("\n"), length: end + 1 }
}


// A fresh state for a file read from its start: its format from its first complete lines.
const fresh = (env: Env, file: string) =>
  Effect.gen(function*() {
    const sample = completeLines(yield* bytesOf(env, file, 0, Importer.detectionSampleBytes))
    if (sample.lines.join("").trim().length === 0) return Option.none<State>()
    const format = env.options.format === "auto"
      ? Importer.detect(sample.lines.join("\n"), file)
      : Option.some(env.options.format)
    if (Option.isNone(format)) return yield* new CliError({ reason: "cannot tell its format: give --format" })
    const parser = Importer.lineParser(format.value, file)
    if (parser === undefined) {
      return yield* new CliError({
        reason: `${format.value} is not a line-based format: precis watch follows JSONL transcripts`
      })
    }
    return Option.some<State>({ session: sessionOf(env, file), parser, offset: 0, headHash: EMPTY_HASH })
  })

// The file is read again from its start: said once, and its offset recorded as 0 at once, so that
// neither the next poll nor the next run finds it shorter than its offset again.
const restart = (
  env: Env,
  file: string,
  identity: TranscriptFile.Identity,
  reason: "truncated" | "replaced",
  format: string
) =>
  Effect.gen(function*() {
    env.states.delete(file)
    yield* env.options.onEvent(FollowEvent.Restarted({ file, reason }))
    yield* env.followed.save({
      path: file,
      sessionId: sessionOf(env, file),
      format,
      byteOffset: 0,
      lineCount: 0,
      headHash: EMPTY_HASH,
      fileId: TranscriptFile.fileId(identity)
    })
  })

// Why a file read up to `offset` (`fileId`, `head`) must be read again, if it must.
const staleness = (
  env: Env,
  file: string,
  identity: TranscriptFile.Identity,
  offset: number,
  fileId: string | undefined,
  head: string
) =>
  Effect.gen(function*() {
    if (fileId !== undefined && fileId !== TranscriptFile.fileId(identity)) return Option.some("replaced" as const)
    if (identity.size < offset) return Option.some("truncated" as const)
    if ((yield* headHash(env, file, offset)) !== head) return Option.some("replaced" as const)
    return Option.none()
  })

// The state recorded in the store for `file`, its parser brought up to the recorded offset; else a fresh one.
const load = (env: Env, file: string, identity: TranscriptFile.Identity) =>
  Effect.gen(function*() {
    const row = yield* env.followed.get(file)
    if (Option.isNone(row) || row.value.byteOffset === 0) return yield* fresh(env, file)
    const { byteOffset, fileId, format, headHash: head, sessionId } = row.value
    const stale = yield* staleness(env, file, identity, byteOffset, fileId, head)
    const parser = Importer.lineParser(format as Importer.ConcreteFormat, file)
    if (Option.isNone(stale) && parser !== undefined) {
      const { lines } = completeLines(yield* bytesOf(env, file, 0, byteOffset))
      if (Either.isRight(parser.push(lines))) {
        env.sessions.add(sessionId)
        return Option.some<State>({ session: sessionOf(env, file), parser, offset: byteOffset, headHash: head })
      }
    }
    yield* restart(env, file, identity, Option.getOrElse(stale, () => "replaced" as const), format)
    return yield* fresh(env, file)
  })

// Appends the turns of `lines` (read from `state.offset`, `length` bytes) and records the new offset.
const append = (
  env: Env,
  file: string,
  identity: TranscriptFile.Identity,
  state: State,
  lines: Array<string>,
  length: number
) =>
  Effect.gen(function*() {
    const parsed = state.parser.push(lines)
    if (Either.isLeft(parsed)) return yield* new CliError({ reason: parsed.left.message })
    const offset = state.offset + length
    const head = state.offset >= HEAD_BYTES ? state.headHash : yield* headHash(env, file, offset)
    const prefix = state.session
    const written = yield* env.store.withTransaction(
      Effect.gen(function*() {
        const results = yield* Effect.forEach(parsed.right, (conversation) =>
          Effect.map(
            env.store.appendTurns(Importer.sessionId(prefix, conversation), conversation.turns),
            (added) => ({ session: Importer.sessionId(prefix, conversation), turns: conversation.turns.length, added })
          ))
        yield* env.followed.save({
          path: file,
          sessionId: prefix,
          format: state.parser.format,
          byteOffset: offset,
          lineCount: state.parser.lineCount(),
          headHash: head,
          fileId: TranscriptFile.fileId(identity)
        })
        // Indexed for search with them (a read-only `precis search` cannot index them).
        yield* env.index.indexSearch
        return results
      })
    )
    env.states.set(file, { ...state, offset, headHash: head })
    if (written.length === 0) env.sessions.add(prefix)
    let added = 0
    for (const result of written) {
      added += result.added.length
      env.sessions.add(result.session)
      yield* env.options.onEvent(
        FollowEvent.Imported({ file, session: result.session, turns: result.turns, added: result.added.length, offset })
      )
    }
    return added
  })

/**
 * Reads what `file` (looked at now as `identity`, at the look before as
 * `seen`) gained; returns the turns added.
 */
export const step = (
  env: Env,
  file: string,
  identity: TranscriptFile.Identity,
  seen: TranscriptFile.Identity | undefined
): Effect.Effect<number, StoreError.StoreError | StoreError.TurnConflictError | CliError | TranscriptFile.UnreadableFile> =>
  Effect.gen(function*() {
    let state = env.states.get(file)
    if (state !== undefined && state.offset > 0) {
      const fileId = seen === undefined ? undefined : TranscriptFile.fileId(seen)
      const stale = yield* staleness(env, file, identity, state.offset, fileId, state.headHash)
      if (Option.isSome(stale)) {
        yield* restart(env, file, identity, stale.value, state.parser.format)
        state = undefined
      }
    }
    if (state === undefined) {
      const loaded = yield* load(env, file, identity)
      if (Option.isNone(loaded)) return 0
      state = loaded.value
      env.states.set(file, state)
    }
    if (identity.size <= state.offset) return 0
    const gained = yield* read(env, file, state.offset, identity.size - state.offset)
    // Swapped for another file between the look and the read: the next look sees it.
    if (TranscriptFile.fileId(gained.identity) !== TranscriptFile.fileId(identity)) return 0
    const { length, lines } = completeLines(gained.bytes)
    return length === 0 ? 0 : yield* append(env, file, identity, state, lines, length)
  })
