/**
 * Transcript importers: read an agent transcript file into core
 * `ConversationTurn`s. The formats are those of one registry ({@link sources}),
 * each read by a module of its own; `auto` detects the format from the content,
 * the file name only breaking ties. A file of several conversations (OpenAssistant
 * trees) gives a {@link Conversation} each ({@link sessionId}).
 *
 * Every turn has a stable `id` (the source's own where it is unique, else
 * `<format>:<index>-<hash>`), so importing a file twice adds nothing to a store
 * that dedupes by id; tool calls and results carry `ToolMetadata` (core).
 * Bad input fails with an {@link ImportError} `FILE:LINE: reason` and no turns,
 * except in another program's JSONL log, read leniently unless `strict`: there
 * a bad line is skipped and reported (`SkipReport`). The package README says
 * what each format gives and what every turn is checked for.
 *
 * @since 0.1.0
 */
import type { ConversationTurn } from "@precis/core"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { ImportError } from "./ImportError.js"
import { LineFailure, Sink } from "./internal/common.js"
import * as Detect from "./internal/detect.js"
import type { Format as SourceFormat } from "./internal/format.js"
import { byName, isLenient, type Name, registry } from "./internal/formats.js"
import { lineSplitter, readLines } from "./internal/jsonl.js"
import { tolerant } from "./internal/tolerant.js"
import type * as SkipReport from "./SkipReport.js"

/**
 * A concrete transcript format: the name of a format of the registry.
 *
 * @since 0.1.0
 */
export type ConcreteFormat = Name

/**
 * A transcript format, or `"auto"` to detect it.
 *
 * @since 0.1.0
 */
export type Format = ConcreteFormat | "auto"

/**
 * A format the importer reads: its name, what its files are (for help and
 * docs), and whether it is read line by line (JSONL: streamed, and followed as
 * it grows by `LineParser`) or whole (JSON).
 *
 * @since 0.1.0
 */
export interface Source {
  readonly name: ConcreteFormat
  readonly title: string
  readonly lineBased: boolean
}

/**
 * Every format the importer reads, in the order of the registry (the order
 * of `--format`'s choices and of the docs).
 *
 * @example
 * ```ts
 * import { Importer } from "@precis/importers"
 * Importer.sources.map((s) => s.title).join(", ") // "precis JSONL, OpenAI chat JSON, Claude Code JSONL, ..."
 * ```
 * @since 0.1.0
 */
export const sources: ReadonlyArray<Source> = registry.map(({ lineBased, name, title }) => ({ name, title, lineBased }))

/**
 * Every accepted value of {@link Format}, `"auto"` first, then {@link sources}' names.
 *
 * @since 0.1.0
 */
export const formats: ReadonlyArray<Format> = ["auto", ...sources.map((source) => source.name)]

export {
  /**
   * Bad input: the file, the 1-based line, why and what is wrong there (see
   * the `ImportError` module). Its message is `FILE:LINE: description`.
   *
   * @since 0.1.0
   * @category Errors
   */
  ImportError
} from "./ImportError.js"

/**
 * What {@link importFile} is asked for besides the path. The session a file's
 * turns belong to is not one of them: it is the store's parameter
 * (`TurnStore.appendTurns(sessionId, turns)`).
 *
 * @since 0.1.0
 */
export interface ImportOptions {
  /** The format of the file. Default `"auto"`. */
  readonly format?: Format | undefined
  /**
   * Refuse the whole file at its first bad line. By default another program's
   * JSONL log (every line-based format but precis JSONL) is read leniently: a
   * line that cannot be read is skipped and reported ({@link Imported}'s
   * `skipped`), and a NUL in a turn is shown as `␀` (`mended`).
   */
  readonly strict?: boolean | undefined
}


/**
 * How many characters from the start of a file {@link detect} looks at when importing.
 *
 * @since 0.1.0
 */
export const detectionSampleBytes = 64 * 1024

const undetected = (file: string): ImportError =>
  new ImportError({
    file,
    line: 1,
    reason: "UnknownFormat",
    description: `cannot detect the transcript format; pass one of ${formats.filter((f) => f !== "auto").join(", ")}`
  })

/**
 * The format of a file from its first characters (`sample`) and its name:
 * by content — the first non-blank character (`[` for a JSON array, `{` for
 * JSONL or a JSON object) and the keys of the first line or element — and by
 * name only to break ties (`.traj`). `None` when nothing matches or the
 * sample is blank.
 *
 * @example
 * ```ts
 * import { Importer } from "@precis/importers"
 * Importer.detect('{"role":"user","content":"hi"}\n') // Option.some("precis")
 * ```
 * @since 0.1.0
 */
export const detect = (sample: string, fileName?: string): Option.Option<ConcreteFormat> =>
  Option.fromNullable(Detect.detect(sample, fileName))

/**
 * One conversation of a file: its turns, in order, and the 1-based line of
 * the file each comes from (`lines[i]` is the line of `turns[i]`).
 *
 * @since 0.1.0
 */
export interface Conversation {
  /**
   * What tells this conversation apart from the file's others, for formats
   * that hold several (`oasst`: the tree's `message_tree_id`, else its 1-based
   * position among the trees); `undefined` for a file of one conversation.
   * See {@link sessionId}.
   */
  readonly suffix: string | undefined
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
  readonly lines: ReadonlyArray<number>
}

/**
 * What a file holds: its conversations, in the order they start (none when
 * the file has no turns: a blank file, whatever its format, or lines of
 * another format), and the format it was read as (`"auto"` only when the
 * file was blank, so that there was nothing to detect), and what a lenient
 * import skipped and mended (`SkipReport`).
 *
 * @since 0.1.0
 */
export interface Imported extends SkipReport.SkipReport {
  readonly file: string
  readonly format: Format
  readonly conversations: ReadonlyArray<Conversation>
}

/**
 * The session a conversation goes to, given the session (or prefix) the
 * caller chose: `prefix` itself for a file of one conversation, else
 * `prefix-suffix` (so the trees of `trees.jsonl` go to `trees-<tree id>`).
 *
 * @example
 * ```ts
 * import { Importer } from "@precis/importers"
 * Importer.sessionId("trees", { suffix: "6ab2", turns: [], lines: [] }) // "trees-6ab2"
 * ```
 * @since 0.1.0
 */
export const sessionId = (prefix: string, conversation: Conversation): string =>
  conversation.suffix === undefined ? prefix : `${prefix}-${conversation.suffix}`

/**
 * The line of the first turn with id `turnId` in a conversation, if it has one
 * — to name the line of a turn a store refused (`StoreError.TurnConflictError`).
 *
 * @since 0.1.0
 */
export const lineOf = (conversation: Conversation, turnId: string): Option.Option<number> => {
  const index = conversation.turns.findIndex((turn) => turn.id === turnId)
  return index === -1 ? Option.none() : Option.fromNullable(conversation.lines[index])
}

/**
 * Every turn of a file, its conversations one after the other.
 *
 * @since 0.1.0
 */
export const allTurns = (imported: Imported): ReadonlyArray<ConversationTurn.ConversationTurn> =>
  imported.conversations.flatMap((conversation) => conversation.turns)

const readWhole = (format: ConcreteFormat, text: string, out: Sink, skipped: Array<SkipReport.Skipped> | undefined): void => {
  const source = byName(format)
  if (!source.lineBased) return source.reader(text, out)
  const reader = source.reader()
  readLines(skipped === undefined ? reader : tolerant(reader, skipped), text, out)
}

const isBlank = (text: string): boolean => /^\uFEFF?\s*$/.test(text)

/**
 * The {@link ImportError} of a failure thrown by a reader of `file`: a bad
 * line's; anything else thrown is a bug and stays a defect (thrown again).
 *
 * @internal
 */
export const toImportError = (file: string, error: unknown): ImportError => {
  if (error instanceof LineFailure) return new ImportError({ file, line: error.line, reason: "InvalidLine", description: error.reason })
  throw error
}

// A blank file holds no turns, whatever its format (JSON formats would call it invalid JSON).
const nothing = (file: string, format: Format): Imported => ({ file, format, conversations: [], skipped: [], mended: [] })

/**
 * Parses a whole transcript held in memory — the pure variant of
 * {@link importFile}, for tests and benchmarks. `fileName` only names the
 * source in errors (and breaks detection ties).
 *
 * @since 0.1.0
 */
export const parse = (
  text: string,
  format: Format,
  fileName: string,
  options: Pick<ImportOptions, "strict"> = {}
): Either.Either<Imported, ImportError> => {
  if (isBlank(text)) return Either.right(nothing(fileName, format))
  const concrete = format === "auto" ? Detect.detect(text.slice(0, detectionSampleBytes), fileName) : format
  if (concrete === undefined) return Either.left(undetected(fileName))
  const lenient = isLenient(concrete, options.strict)
  const out = new Sink(concrete, lenient)
  const skipped: Array<SkipReport.Skipped> = []
  try {
    readWhole(concrete, text, out, lenient ? skipped : undefined)
  } catch (error) {
    return Either.left(toImportError(fileName, error))
  }
  return Either.right({ file: fileName, format: concrete, conversations: out.conversations, skipped, mended: out.mended })
}

/**
 * Reads a transcript file into its conversations through `FileSystem`. JSONL
 * formats stream line by line; JSON formats are read whole. All or nothing
 * (on a bad line the effect fails with an {@link ImportError} and no turns),
 * but for another program's JSONL log, where a bad line is skipped and
 * reported in `skipped` unless `options.strict`.
 * Every turn is checked whatever the format: its role is a short word
 * (`ConversationTurn.isRole`), its timestamp an ISO-8601 date-time, its
 * metadata nests at most 32 levels, and a turn whose id repeats an earlier one
 * of its conversation has the same role and content.
 *
 * @example
 * ```ts
 * import { NodeFileSystem } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { Importer } from "@precis/importers"
 * const imported = Importer.importFile("session.jsonl", { format: "auto" }).pipe(Effect.provide(NodeFileSystem.layer))
 * ```
 * @since 0.1.0
 */
export const importFile = Effect.fn("Importer.importFile")(function*(
  path: string,
  options: ImportOptions = {}
) {
  const fs = yield* FileSystem.FileSystem
  const unreadable = (error: { readonly message: string }) =>
    new ImportError({ file: path, line: 1, reason: "Unreadable", description: `cannot read the file: ${error.message}` })
  let format = options.format ?? "auto"
  if (format === "auto") {
    const head = yield* fs.stream(path, { bytesToRead: detectionSampleBytes }).pipe(
      Stream.decodeText(),
      Stream.runFold("", (acc, s) => acc + s),
      Effect.mapError(unreadable)
    )
    if (isBlank(head)) return nothing(path, format)
    const detected = Detect.detect(head, path)
    if (detected === undefined) return yield* undetected(path)
    format = detected
  }
  yield* Effect.annotateCurrentSpan({ "precis.import.format": format })
  const lenient = isLenient(format, options.strict)
  const out = new Sink(format, lenient)
  const skipped: Array<SkipReport.Skipped> = []
  const imported: Imported = { file: path, format, conversations: out.conversations, skipped, mended: out.mended }
  const source: SourceFormat = byName(format)
  if (!source.lineBased) {
    const text = source.gather === undefined
      ? yield* Effect.mapError(fs.readFileString(path), unreadable)
      : yield* Effect.mapError(source.gather(path), (description) => new ImportError({ file: path, line: 1, reason: "Unreadable", description }))
    if (isBlank(text)) return nothing(path, format)
    yield* Effect.try({ try: () => source.reader(text, out), catch: (e) => toImportError(path, e) })
    return imported
  }
  const reader = lenient ? tolerant(source.reader(), skipped) : source.reader()
  const lines = lineSplitter((text, line) => reader.push(text, line, out))
  yield* fs.stream(path, { chunkSize: STREAM_CHUNK }).pipe(
    Stream.mapError(unreadable),
    Stream.runForEachChunk((chunk) =>
      Effect.try({
        try: () => {
          for (const bytes of chunk) lines.push(bytes)
        },
        catch: (e) => toImportError(path, e)
      })
    )
  )
  yield* Effect.try({
    try: () => {
      lines.end()
      reader.end?.(out)
    },
    catch: (e) => toImportError(path, e)
  })
  return imported
})

// Bytes per read of a streamed (JSONL) file: each read is one step of the stream.
const STREAM_CHUNK = 1024 * 1024

/**
 * The formats read line by line (JSONL), which `LineParser` reads as a file
 * grows (the `Follower`).
 *
 * @since 0.1.0
 */
export const lineFormats: ReadonlyArray<ConcreteFormat> = sources.filter((source) => source.lineBased).map((source) => source.name)

/**
 * The session a file's turns go to unless one is given: its base name without
 * the extensions `.jsonl`, `.json` and `.traj` (so `runs/pydicom-1458.traj.json`
 * gives `pydicom-1458`), or `default` when nothing is left.
 *
 * @since 0.1.0
 */
export const sessionIdFromPath = (path: string): string => {
  let name = path.split(/[\\/]/).pop() ?? ""
  for (;;) {
    const stripped = name.replace(/\.(jsonl|json|traj)$/i, "")
    if (stripped === name) break
    name = stripped
  }
  return name.length > 0 ? name : "default"
}
