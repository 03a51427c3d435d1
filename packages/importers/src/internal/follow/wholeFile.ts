/**
 * Following a session kept whole rather than line by line: a JSON file that
 * its agent writes again, whole, at each change (Gemini CLI's
 * `chats/session-*.json`; its JSONL recording, whose records are rewritten
 * in place), or a session gathered from several files (opencode's storage:
 * the session's info file, its messages' and their parts' files). At each
 * change the session is read again whole and the turns whose ids its store
 * session does not hold yet are appended (a turn's id is the agent's own, or
 * derived from its place: `TurnStore.appendTurns` keeps one of each); a turn
 * already stored stays as it was first stored.
 *
 * The agent is still writing its last message while it answers (Gemini CLI
 * adds the tool calls and their results to it; opencode's parts stream in),
 * so the turns of the file's last message are held back until a look finds
 * the session unchanged since it was read, or a later message follows it:
 * a turn is stored once it is settled, not half-written.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fsp from "node:fs/promises"
import type { StoreError } from "@precis/store"
import * as Importer from "../../Importer.js"
import type { Format } from "../format.js"
import { byName, registry } from "../formats.js"
import { Event } from "./event.js"
import * as FollowFile from "./followFile.js"
import * as TranscriptFile from "./transcriptFile.js"

/** What is known of a session followed whole: its format, and whether turns of its last message wait. */
interface Whole {
  readonly format: Importer.ConcreteFormat
  readonly held: boolean
}

/** What following whole sessions adds to reading files: the file system, and what is known of each. */
export interface Env extends FollowFile.Env {
  readonly fileSystem: FileSystem.FileSystem
  /** The format of each file looked at (line-based ones too), once told. */
  readonly formats: Map<string, Importer.ConcreteFormat>
  readonly wholes: Map<string, Whole>
  /** The ids stored in each session a whole file went to (read from the store once). */
  readonly storedIds: Map<string, Set<string>>
  /** The agent is not writing the files (a hook at one of its events): every message is settled at once. */
  readonly settled: boolean
}

const formats: ReadonlyArray<Format> = registry

const isWhole = (format: Importer.ConcreteFormat): boolean => !Importer.lineFormats.includes(format)

/**
 * The format of `file`: the follower's, else the one recorded for it, else
 * told by its first bytes (`None` while it is blank).
 */
const formatOf = (env: Env, file: string) =>
  Effect.gen(function*() {
    if (env.options.format !== "auto") return Option.some<Importer.ConcreteFormat>(env.options.format)
    const known = env.formats.get(file)
    if (known !== undefined) return Option.some(known)
    const row = yield* env.followed.get(file)
    const recorded = Option.filter(Option.map(row, (r) => r.format), (f): f is Importer.ConcreteFormat => Importer.formats.includes(f as Importer.Format) && f !== "auto")
    const format = Option.isSome(recorded) ? recorded : yield* Effect.scoped(Effect.gen(function*() {
      const opened = yield* TranscriptFile.open(file)
      const sample = new TextDecoder().decode(yield* opened.read(0, Importer.detectionSampleBytes))
      // Its complete lines (a JSONL line being written is not told by its start); a file of one line, whole.
      const end = sample.lastIndexOf("\n")
      const text = end === -1 ? sample : sample.slice(0, end)
      if (text.trim().length === 0) return Option.none<Importer.ConcreteFormat>()
      const detected = Importer.detect(text, file)
      // A first line still being written is told once it is whole.
      if (Option.isNone(detected) && end === -1) return Option.none<Importer.ConcreteFormat>()
      if (Option.isNone(detected)) return yield* new FollowFile.FollowFailure({ reason: "cannot tell its format: give --format" })
      return detected
    }))
    if (Option.isSome(format)) env.formats.set(file, format.value)
    return format
  })

/**
 * How `file` looks now: its own identity, or for a session gathered from
 * several files, one that changes when any of them changes (their sizes
 * summed, the latest modification).
 */
export const look = (env: Env, file: string): Effect.Effect<TranscriptFile.Identity, TranscriptFile.UnreadableFile> =>
  Effect.gen(function*() {
    const own = yield* TranscriptFile.look(file)
    // Its format once read, else the one whose files its path names (so that the first look is already the whole's).
    const known = env.formats.get(file)
    const source: Format | undefined = known === undefined ? formats.find((f) => f.watch?.follows(file) === true) : byName(known)
    if (source === undefined || source.lineBased || source.sources === undefined) return own
    const files = yield* Effect.provideService(source.sources(file), FileSystem.FileSystem, env.fileSystem)
    let size = 0
    let mtimeMs = 0
    for (const member of files) {
      const stats = yield* Effect.promise(() => fsp.stat(member).catch(() => undefined))
      if (stats === undefined) continue
      size += stats.size
      mtimeMs = Math.max(mtimeMs, stats.mtimeMs)
    }
    return { ...own, size, mtimeMs }
  })

/** Whether the turns of `file`'s last message wait for it to settle. */
export const holding = (env: Env, file: string): boolean => env.wholes.get(file)?.held === true

// The ids stored in `session`, read from the store the first time.
const storedIds = (env: Env, session: string) =>
  Effect.gen(function*() {
    const known = env.storedIds.get(session)
    if (known !== undefined) return known
    const ids = new Set((yield* env.store.turns(session)).map((turn) => turn.id))
    env.storedIds.set(session, ids)
    return ids
  })

/**
 * Reads the whole session `file` again and appends its settled turns not yet
 * stored; `settled`: the file stayed the same since it was last read, so its
 * last message is settled too.
 */
const readWhole = (env: Env, file: string, format: Importer.ConcreteFormat, settled: boolean, emit: FollowFile.Emit) =>
  Effect.gen(function*() {
    const { size } = yield* TranscriptFile.look(file)
    const imported = yield* Effect.provideService(Importer.importFile(file, { format }), FileSystem.FileSystem, env.fileSystem)
    env.counts.reads++
    env.counts.bytes += size
    const prefix = Option.getOrElse(env.options.session, () => Importer.sessionIdFromPath(file))
    let held = false
    for (const conversation of imported.conversations) {
      const session = Importer.sessionId(prefix, conversation)
      const ids = yield* storedIds(env, session)
      // The last message's turns (those of its line) wait until the file is settled.
      const lastLine = conversation.lines.at(-1)
      const ready = settled ? conversation.turns.length : conversation.lines.findIndex((line) => line === lastLine)
      const fresh = conversation.turns.slice(0, ready).filter((turn) => turn.id === undefined || !ids.has(turn.id))
      held ||= conversation.turns.slice(ready).some((turn) => turn.id === undefined || !ids.has(turn.id))
      const added = yield* env.store.withTransaction(Effect.zipLeft(env.store.appendTurns(session, fresh), env.index.indexSearch))
      for (const turn of added) ids.add(turn.id)
      env.sessions.add(session)
      if (fresh.length > 0) emit(Event.Imported({ file, session, turns: conversation.turns.length, added: added.length, offset: size }))
    }
    env.wholes.set(file, { format, held })
  })

/**
 * Reads what `file` gained: a session kept whole is read again (`settled`:
 * unchanged since its last read), any other file as `FollowFile.step` reads it.
 */
export const step = (
  env: Env,
  file: string,
  settled: boolean,
  emit: FollowFile.Emit
): Effect.Effect<
  void,
  | StoreError.StoreError
  | StoreError.TurnConflictError
  | FollowFile.FollowFailure
  | TranscriptFile.UnreadableFile
  | Importer.ImportError
> =>
  Effect.gen(function*() {
    const format = yield* formatOf(env, file)
    if (Option.isSome(format) && isWhole(format.value)) return yield* readWhole(env, file, format.value, settled || env.settled, emit)
    if (settled) return
    yield* FollowFile.step(env, file, emit)
  })
