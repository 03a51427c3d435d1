/**
 * Transcript importers: read an agent transcript file into core
 * `ConversationTurn`s.
 *
 * Formats:
 * - `precis`: JSONL, `{ role, content, timestamp?, id?, sessionId?, metadata? }` per line;
 * - `openai`: OpenAI chat messages, a JSON array or `{ "messages": [...] }`, with
 *   `tool_calls` / `tool` results kept as turns and metadata;
 * - `claude-code`: Claude Code session JSONL (`type: "user" | "assistant"` lines;
 *   other line types skipped);
 * - `swe-agent`: a SWE-agent `.traj` object, its `history[]`;
 * - `openhands`: an OpenHands event array (state changes and empty
 *   observations skipped, see below);
 * - `oasst`: OpenAssistant message trees, JSONL, one linear conversation per
 *   tree following the rank-0 reply;
 * - `auto`: detected from the content (first non-blank character, first line's
 *   or first element's keys), the file name only breaking ties.
 *
 * Every turn has a stable `id` (the source's own id where it is unique, else
 * `<format>:<index>-<hash>`), so importing a file twice adds nothing to a store
 * that dedupes by id; `metadata.sourceFormat` names the format, and tool calls
 * and results carry `toolCalls` / `toolCallId` / `toolName`. A turn has a
 * `sessionId` only when its source names one (a precis line's `sessionId`, a
 * Claude Code line's `sessionId`, an OpenAssistant tree id); the session the
 * turns are stored in is the store's own parameter.
 *
 * `openai` and `swe-agent` share one reader of OpenAI-style messages (role,
 * content, `tool_calls`, tool results).
 *
 * OpenHands: an event becomes a turn when it is a `message` action (role from
 * its source), another action (role `assistant`; thought, message and main
 * argument, e.g. `$ command`) or an observation (role `tool`) — except
 * `agent_state_changed` and `null` observations and `change_agent_state`
 * actions, which are controller bookkeeping (18 events of a typical run give 10 turns).
 *
 * Bad input fails with an {@link ImportError} `FILE:LINE: reason` and no turns
 * at all.
 *
 * @since 0.1.0
 */
import type { ConversationTurn } from "@precis/core"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Chunk from "effect/Chunk"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ClaudeCode from "./internal/claudeCode.js"
import { type Context, LineFailure, type Sink, type SourceFormat } from "./internal/common.js"
import * as Detect from "./internal/detect.js"
import { type LineReader, readLines } from "./internal/jsonl.js"
import * as Oasst from "./internal/oasst.js"
import * as OpenAi from "./internal/openai.js"
import * as OpenHands from "./internal/openhands.js"
import * as Precis from "./internal/precis.js"
import * as SweAgent from "./internal/sweAgent.js"

/**
 * A transcript format, or `"auto"` to detect it.
 *
 * @since 0.1.0
 */
export type Format = SourceFormat | "auto"

/**
 * A concrete transcript format (everything but `"auto"`).
 *
 * @since 0.1.0
 */
export type ConcreteFormat = SourceFormat

/**
 * Every accepted value of {@link Format}, `"auto"` first.
 *
 * @since 0.1.0
 */
export const formats: ReadonlyArray<Format> = ["auto", "precis", "openai", "claude-code", "swe-agent", "openhands", "oasst"]

/**
 * Bad input: the file, the 1-based line, and what is wrong there. Its message
 * is `FILE:LINE: reason`.
 *
 * @example
 * ```ts
 * import { Importer } from "@precis/importers"
 * new Importer.ImportError({ file: "session.jsonl", line: 7, reason: "invalid JSON" }).message
 * // "session.jsonl:7: invalid JSON"
 * ```
 * @since 0.1.0
 */
export class ImportError extends Data.TaggedError("ImportError")<{
  readonly file: string
  readonly line: number
  readonly reason: string
}> {
  override get message(): string {
    return `${this.file}:${this.line}: ${this.reason}`
  }
}

/**
 * What {@link importFile} is asked for besides the path. The session a file's
 * turns belong to is not one of them: it is the store's parameter
 * (`MemoryStore.appendTurns(sessionId, turns)`).
 *
 * @since 0.1.0
 */
export interface ImportOptions {
  /** The format of the file. Default `"auto"`. */
  readonly format?: Format | undefined
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
    reason: `cannot detect the transcript format; pass one of ${formats.filter((f) => f !== "auto").join(", ")}`
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

const lineReader = (format: ConcreteFormat, context: Context): LineReader | undefined =>
  format === "precis"
    ? Precis.reader(context)
    : format === "claude-code"
    ? ClaudeCode.reader(context)
    : format === "oasst"
    ? Oasst.reader(context)
    : undefined

const readWhole = (format: ConcreteFormat, text: string, context: Context, out: Sink): void => {
  const reader = lineReader(format, context)
  if (reader !== undefined) return readLines(reader, text, out)
  if (format === "openai") return OpenAi.read(text, context, out)
  if (format === "swe-agent") return SweAgent.read(text, context, out)
  return OpenHands.read(text, context, out)
}

const isBlank = (text: string): boolean => /^\uFEFF?\s*$/.test(text)

// Internal failures carry a line; anything else thrown is a bug and stays a defect.
const toImportError = (file: string, error: unknown): ImportError => {
  if (error instanceof LineFailure) return new ImportError({ file, line: error.line, reason: error.reason })
  throw error
}

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
  fileName: string
): Either.Either<ReadonlyArray<ConversationTurn.ConversationTurn>, ImportError> => {
  if (format === "auto" && isBlank(text)) return Either.right([])
  const concrete = format === "auto" ? Detect.detect(text.slice(0, detectionSampleBytes), fileName) : format
  if (concrete === undefined) return Either.left(undetected(fileName))
  const out: Sink = []
  try {
    readWhole(concrete, text, { format: concrete }, out)
  } catch (error) {
    return Either.left(toImportError(fileName, error))
  }
  return Either.right(out)
}

/**
 * Reads a transcript file into turns through `FileSystem`. JSONL formats
 * stream line by line; JSON formats are read whole. All or nothing: on any
 * bad line the effect fails with an {@link ImportError} and no turns.
 *
 * @example
 * ```ts
 * import { NodeFileSystem } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { Importer } from "@precis/importers"
 * const turns = Importer.importFile("session.jsonl", { format: "auto" }).pipe(Effect.provide(NodeFileSystem.layer))
 * ```
 * @since 0.1.0
 */
export const importFile = Effect.fn("Importer.importFile")(function*(
  path: string,
  options: ImportOptions = {}
) {
  const fs = yield* FileSystem.FileSystem
  const unreadable = (error: { readonly message: string }) =>
    new ImportError({ file: path, line: 1, reason: `cannot read the file: ${error.message}` })
  let format = options.format ?? "auto"
  if (format === "auto") {
    const head = yield* fs.stream(path, { bytesToRead: detectionSampleBytes }).pipe(
      Stream.decodeText(),
      Stream.runFold("", (acc, s) => acc + s),
      Effect.mapError(unreadable)
    )
    if (isBlank(head)) return [] as ReadonlyArray<ConversationTurn.ConversationTurn>
    const detected = Detect.detect(head, path)
    if (detected === undefined) return yield* undetected(path)
    format = detected
  }
  yield* Effect.annotateCurrentSpan({ "precis.import.format": format })
  const context: Context = { format }
  const out: Sink = []
  const reader = lineReader(format, context)
  if (reader === undefined) {
    const text = yield* Effect.mapError(fs.readFileString(path), unreadable)
    const concrete = format
    yield* Effect.try({ try: () => readWhole(concrete, text, context, out), catch: (e) => toImportError(path, e) })
    return out as ReadonlyArray<ConversationTurn.ConversationTurn>
  }
  let line = 0
  yield* fs.stream(path).pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.mapError(unreadable),
    Stream.runForEachChunk((chunk) =>
      Effect.try({
        try: () => {
          for (const text of Chunk.toReadonlyArray(chunk)) reader.push(text, ++line, out)
        },
        catch: (e) => toImportError(path, e)
      })
    )
  )
  return out as ReadonlyArray<ConversationTurn.ConversationTurn>
})
