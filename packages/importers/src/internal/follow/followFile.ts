/**
 * Reading one followed file: from its start (its format told by its first
 * lines), from the offset the store recorded (its parser resumed from the
 * state recorded with it), or again from its start when it was truncated,
 * replaced or rewritten (reported once, its offset recorded as 0 at once).
 * What it gained is read in chunks of at most `chunkSize` bytes (never the
 * whole file in one string), each chunk's complete lines appended with the
 * new offset, checksum and parser state in one transaction. A bad line is
 * reported once (`LineSkipped`, with its text) and left out; the lines after
 * it are read. Another program's log is read leniently, as `import` reads it
 * (a NUL in a turn shown as ␀: `LineMended`).
 *
 * @internal
 */
import type { ConversationTurn } from "@precis/core"
import { FollowedFiles, type SearchIndex, type StoreError, type TurnStore } from "@precis/store"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Importer from "../../Importer.js"
import * as LineParser from "../../LineParser.js"
import * as Checksum from "./checksum.js"
import { Event } from "./event.js"
import * as TranscriptFile from "./transcriptFile.js"

/** A file cannot be followed: its format cannot be told, or is not read line by line. */
export class FollowFailure extends Data.TaggedError("FollowFailure")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason
  }
}

/** What is known of a followed file that is being read. */
interface State {
  readonly session: string
  readonly parser: LineParser.LineParser
  readonly offset: number
  readonly checksum: string
  readonly fileId: string
}

/** What reading a file works with: the follower's options, the store, and what it knows of every file. */
export interface Env {
  readonly options: {
    readonly session: Option.Option<string>
    readonly format: Importer.Format
    readonly chunkSize: number
  }
  readonly store: TurnStore.Service
  readonly index: SearchIndex.Service
  readonly followed: FollowedFiles.Service
  readonly states: Map<string, State>
  readonly sessions: Set<string>
  /** Files looked at and opened, transcript bytes read (checksums aside), and lines skipped, so far. */
  readonly counts: { looks: number; reads: number; bytes: number; skipped: number }
}

const StoredState = Schema.parseJson(LineParser.ParserState)

// Another program's log is read as `import` reads it: a bad line skipped and reported, a NUL shown as ␀.
const LENIENT: LineParser.Options = { strict: false }

const sessionOf = (env: Env, file: string) => Option.getOrElse(env.options.session, () => Importer.sessionIdFromPath(file))

const decoder = new TextDecoder()

// Complete lines of `bytes` (up to its last line break) and how many bytes they take.
const completeLines = (bytes: Uint8Array): { readonly lines: Array<string>; readonly length: number } => {
  const end = bytes.lastIndexOf(0x0a)
  if (end === -1) return { lines: [], length: 0 }
  return { lines: decoder.decode(bytes.subarray(0, end)).split("\n"), length: end + 1 }
}

// A fresh state for a file read from its start: its format from its first complete lines.
const fresh = (env: Env, file: string, opened: TranscriptFile.Opened) =>
  Effect.gen(function*() {
    const sample = completeLines(yield* opened.read(0, Importer.detectionSampleBytes))
    if (sample.lines.join("").trim().length === 0) return Option.none<State>()
    const format = env.options.format === "auto"
      ? Importer.detect(sample.lines.join("\n"), file)
      : Option.some(env.options.format)
    if (Option.isNone(format)) return yield* new FollowFailure({ reason: "cannot tell its format: give --format" })
    const parser = LineParser.make(format.value, file, LENIENT)
    if (parser === undefined) {
      return yield* new FollowFailure({
        reason: `${format.value} is not a line-based format: precis watch follows JSONL transcripts`
      })
    }
    const checksum = yield* Checksum.sampled(opened.read, 0)
    return Option.some<State>({ session: sessionOf(env, file), parser, offset: 0, checksum, fileId: TranscriptFile.fileId(opened.identity) })
  })

// The file is read again from its start: said once, and its offset recorded as 0 at once, so that
// neither the next poll nor the next run finds it shorter than its offset again.
const restart = (env: Env, file: string, opened: TranscriptFile.Opened, reason: "truncated" | "replaced", format: string) =>
  Effect.gen(function*() {
    env.states.delete(file)
    yield* env.followed.put(
      new FollowedFiles.FollowedFile({
        path: file,
        sessionId: sessionOf(env, file),
        format,
        byteOffset: 0,
        lineCount: 0,
        size: opened.identity.size,
        fileId: TranscriptFile.fileId(opened.identity),
        checksum: yield* Checksum.sampled(opened.read, 0)
      })
    )
    return Event.Restarted({ file, reason })
  })

// Why a file read up to `offset` (`fileId`, `checksum`) must be read again, if it must.
const staleness = (opened: TranscriptFile.Opened, offset: number, fileId: string | undefined, checksum: string) =>
  Effect.gen(function*() {
    if (fileId !== undefined && fileId !== TranscriptFile.fileId(opened.identity)) return Option.some("replaced" as const)
    if (opened.identity.size < offset) return Option.some("truncated" as const)
    if (!(yield* Checksum.matches(opened.read, offset, checksum))) return Option.some("replaced" as const)
    return Option.none()
  })

// The complete lines of `opened` from `offset` to `end`, chunk by chunk: `use` gets each chunk's lines
// and the bytes they take, and returns the offset to go on from.
const chunks = <E, R>(
  env: Env,
  opened: TranscriptFile.Opened,
  offset: number,
  end: number,
  use: (lines: Array<string>, length: number, at: number) => Effect.Effect<number, E, R>
) =>
  Effect.gen(function*() {
    let at = offset
    let carry = new Uint8Array(0)
    while (at + carry.length < end) {
      const bytes = yield* opened.read(at + carry.length, Math.min(env.options.chunkSize, end - at - carry.length))
      if (bytes.length === 0) break
      env.counts.bytes += bytes.length
      const pending = carry.length === 0 ? bytes : Buffer.concat([carry, bytes])
      const { length, lines } = completeLines(pending)
      carry = pending.slice(length)
      if (length > 0) at = yield* use(lines, length, at)
    }
    return at
  })

// Says what the parser skipped and mended since it was last asked (a lenient format's bad lines).
const reportOf = (env: Env, file: string, parser: LineParser.LineParser, emit: Emit) => {
  const { mended, skipped } = parser.report()
  for (const { line, reason, text } of skipped) {
    env.counts.skipped++
    emit(Event.LineSkipped({ file, line, reason, text }))
  }
  for (const { line, reason } of mended) emit(Event.LineMended({ file, line, reason }))
}

// Pushes `lines`, leaving out each bad line (reported once: skipped by the lenient parser of another
// program's log, or failing the push of a strict format) and reading the lines after it.
const pushAll = (env: Env, file: string, parser: LineParser.LineParser, lines: ReadonlyArray<string>, emit: Emit) => {
  const bySuffix = new Map<string | undefined, { suffix: string | undefined; turns: Array<ConversationTurn.ConversationTurn>; lines: Array<number> }>()
  let rest = lines
  for (;;) {
    const before = parser.lineCount()
    const pushed = parser.push(rest)
    reportOf(env, file, parser, emit)
    if (Either.isRight(pushed)) {
      for (const conversation of pushed.right) {
        const entry = bySuffix.get(conversation.suffix) ?? { suffix: conversation.suffix, turns: [], lines: [] }
        entry.turns.push(...conversation.turns)
        entry.lines.push(...conversation.lines)
        bySuffix.set(conversation.suffix, entry)
      }
      return [...bySuffix.values()]
    }
    env.counts.skipped++
    const text = rest[pushed.left.line - before - 1] ?? ""
    emit(Event.LineSkipped({ file, line: pushed.left.line, reason: pushed.left.description, text: text.endsWith("\r") ? text.slice(0, -1) : text }))
    // The lines up to the bad one were read; the next push also gives the turns of those before it.
    rest = rest.slice(Math.max(1, parser.lineCount() - before))
  }
}

// The state recorded in the store for `file`, its parser resumed at the recorded offset; else a fresh one.
const load = (env: Env, file: string, opened: TranscriptFile.Opened, emit: Emit) =>
  Effect.gen(function*() {
    const row = yield* env.followed.get(file)
    if (Option.isNone(row) || row.value.byteOffset === 0) return yield* fresh(env, file, opened)
    const { byteOffset, checksum, fileId, format, parserState, sessionId } = row.value
    const stale = yield* staleness(opened, byteOffset, fileId, checksum)
    if (Option.isNone(stale)) {
      const parser = yield* resume(env, file, opened, row.value.format, byteOffset, parserState)
      if (Option.isSome(parser)) {
        env.sessions.add(sessionId)
        return Option.some<State>({
          session: sessionOf(env, file),
          parser: parser.value,
          offset: byteOffset,
          checksum,
          fileId: TranscriptFile.fileId(opened.identity)
        })
      }
    }
    emit(yield* restart(env, file, opened, Option.getOrElse(stale, () => "replaced" as const), format))
    return yield* fresh(env, file, opened)
  })

// The parser at `offset`: from its recorded state; else (rows written before parsers saved one) its
// lines up to the offset parsed again, nothing written.
const resume = (
  env: Env,
  file: string,
  opened: TranscriptFile.Opened,
  format: string,
  offset: number,
  saved: string | undefined
) =>
  Effect.gen(function*() {
    if (saved !== undefined) {
      return Option.flatMap(Schema.decodeUnknownOption(StoredState)(saved), (state) => LineParser.resume(state, file, LENIENT))
    }
    const parser = Schema.is(LineParser.ParserState.fields.format)(format) ? LineParser.make(format, file, LENIENT) : undefined
    if (parser === undefined) return Option.none()
    const reached = yield* chunks(env, opened, 0, offset, (lines, length, at) =>
      Effect.sync(() => {
        const pushed = parser.push(lines)
        parser.report() // What these lines skipped was said when they were first read.
        return Either.isRight(pushed) ? at + length : Number.NaN
      }))
    return reached === offset ? Option.some(parser) : Option.none()
  })

// Appends the turns of `lines` (read from `state.offset`, `length` bytes) and records the new offset.
const append = (
  env: Env,
  file: string,
  opened: TranscriptFile.Opened,
  state: State,
  lines: Array<string>,
  length: number,
  emit: Emit
) =>
  Effect.gen(function*() {
    const conversations = pushAll(env, file, state.parser, lines, emit)
    const offset = state.offset + length
    const checksum = yield* Checksum.sampled(opened.read, offset)
    const parserState = Option.getOrUndefined(Option.map(state.parser.state(), (s) => Schema.encodeSync(StoredState)(s)))
    const prefix = state.session
    const written = yield* env.store.withTransaction(
      Effect.gen(function*() {
        const results = yield* Effect.forEach(conversations, (conversation) => {
          const session = Importer.sessionId(prefix, conversation)
          return Effect.map(env.store.appendTurns(session, conversation.turns), (added) => ({ session, turns: conversation.turns.length, added }))
        })
        yield* env.followed.put(
          new FollowedFiles.FollowedFile({
            path: file,
            sessionId: prefix,
            format: state.parser.format,
            byteOffset: offset,
            lineCount: state.parser.lineCount(),
            size: opened.identity.size,
            fileId: state.fileId,
            checksum,
            ...(parserState === undefined ? {} : { parserState })
          })
        )
        // Indexed for search with them (a read-only `precis search` cannot index them).
        yield* env.index.indexSearch
        return results
      })
    )
    const next: State = { ...state, offset, checksum }
    env.states.set(file, next)
    if (written.length === 0) env.sessions.add(prefix)
    for (const result of written) {
      env.sessions.add(result.session)
      emit(Event.Imported({ file, session: result.session, turns: result.turns, added: result.added.length, offset }))
    }
    return next
  })

/** Where what following does goes, as it does it. */
export type Emit = (event: Event) => void

/**
 * Reads what `file` gained since it was last read, saying what it does with `emit`.
 */
export const step = (
  env: Env,
  file: string,
  emit: Emit
): Effect.Effect<
  void,
  StoreError.StoreError | StoreError.TurnConflictError | FollowFailure | TranscriptFile.UnreadableFile
> =>
  Effect.scoped(Effect.gen(function*() {
    const opened = yield* TranscriptFile.open(file)
    env.counts.reads++
    let state = env.states.get(file)
    if (state !== undefined) {
      const stale = yield* staleness(opened, state.offset, state.fileId, state.checksum)
      if (Option.isSome(stale)) {
        emit(yield* restart(env, file, opened, stale.value, state.parser.format))
        state = undefined
      }
    }
    if (state === undefined) {
      const loaded = yield* load(env, file, opened, emit)
      if (Option.isNone(loaded)) return
      state = loaded.value
      env.states.set(file, state)
    }
    let current = state
    yield* chunks(env, opened, current.offset, opened.identity.size, (lines, length) =>
      Effect.map(append(env, file, opened, current, lines, length, emit), (next) => {
        current = next
        return next.offset
      }))
  }))
