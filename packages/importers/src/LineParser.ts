/**
 * Incremental parsers of JSONL transcripts, for a file read as it grows (the
 * `Follower`): its complete lines pushed in batches, and its state saved after
 * any line ({@link ParserState}) so that another process goes on from there
 * without reading the lines before again ({@link resume}).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type ConcreteFormat, type Conversation, type ImportError, type ImportOptions, toImportError } from "./Importer.js"
import type { Format } from "./internal/format.js"
import { byName, isLenient, registry } from "./internal/formats.js"
import type { LineReader } from "./internal/jsonl.js"
import * as LineParsers from "./internal/lineParser.js"
import type * as SkipReport from "./SkipReport.js"

/**
 * What a {@link LineParser} holds after its last line, to go on from there in
 * another process ({@link resume}): its format, the lines read, and its
 * reader's own state (the format's Schema decodes it). A turn id repeated
 * across the resumption is not checked against its first content by the
 * parser (the store refuses a different one: `TurnConflictError`).
 *
 * @category models
 * @since 0.1.0
 */
export const ParserState = Schema.Struct({
  format: Schema.Literal(...registry.filter((source) => source.lineBased).map((source) => source.name)),
  lines: Schema.NonNegativeInt,
  reader: Schema.Unknown
})

/**
 * A decoded {@link ParserState}.
 *
 * @category models
 * @since 0.1.0
 */
export type ParserState = typeof ParserState.Type

/**
 * An incremental parser of one JSONL file: the file's complete lines are
 * pushed in order, in as many batches as they arrive, and each push returns
 * the turns its lines hold (by conversation; a conversation without new turns
 * is left out). The turns and their ids are those `Importer.importFile` reads
 * from the whole file. A bad line fails the push with an `ImportError` naming
 * its line; `lineCount` then counts the lines up to it, and the lines after it
 * may be pushed (the next push also gives the turns of the lines before it).
 *
 * @category models
 * @since 0.1.0
 */
export interface LineParser {
  readonly format: ConcreteFormat
  /** Lines pushed so far. */
  readonly lineCount: () => number
  /** Parses the next complete lines (without their line breaks). */
  readonly push: (lines: ReadonlyArray<string>) => Either.Either<ReadonlyArray<Conversation>, ImportError>
  /** The parser's state after the last line pushed, when its format can save it. */
  readonly state: () => Option.Option<ParserState>
  /** What the pushes since the last call skipped and mended (a lenient parser's; always empty for a strict one). */
  readonly report: () => SkipReport.SkipReport
}

/**
 * How a {@link LineParser} reads: strict unless `strict` is `false` (then a
 * lenient format's bad lines are skipped and given by `report`, which its
 * caller must keep and show).
 *
 * @category models
 * @since 0.1.0
 */
export type Options = Pick<ImportOptions, "strict">

const build = (format: ConcreteFormat, fileName: string, reader: LineReader, lines: number, options: Options): LineParser => {
  // A caller that does not report skips must not lose lines silently: strict unless asked.
  const parser = LineParsers.make(reader, format, isLenient(format, options.strict ?? true), lines)
  return {
    format,
    lineCount: parser.lineCount,
    report: parser.report,
    push: (lines) => Either.try({ try: () => parser.push(lines), catch: (error) => toImportError(fileName, error) }),
    state: () =>
      reader.save === undefined
        ? Option.none()
        : Option.some(ParserState.make({ format: format as ParserState["format"], lines: parser.lineCount(), reader: reader.save() }))
  }
}

/**
 * A {@link LineParser} of a file in `format` (one of `Importer.lineFormats`;
 * `undefined` for another), `fileName` naming it in errors, strict unless
 * `options.strict` is `false` ({@link Options}).
 *
 * @example
 * ```ts
 * import { LineParser } from "@precis/importers"
 * const parser = LineParser.make("precis", "live.jsonl")!
 * parser.push(['{"role":"user","content":"hi"}']) // Right([{ suffix: undefined, turns: [...], lines: [1] }])
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const make = (format: ConcreteFormat, fileName: string, options: Options = {}): LineParser | undefined => {
  const source = byName(format)
  return source.lineBased ? build(format, fileName, source.reader(), 0, options) : undefined
}

/**
 * The {@link LineParser} that goes on from `state` (what a parser's `state`
 * gave, in this process or another); `None` when the state is not one its
 * format's reader saved.
 *
 * @category constructors
 * @since 0.1.0
 */
export const resume = (state: ParserState, fileName: string, options: Options = {}): Option.Option<LineParser> => {
  const source: Format = byName(state.format)
  if (!source.lineBased) return Option.none()
  return Option.map(
    // A reader that saves nothing (its state() is None) never gave a state to go on from.
    Option.filter(Option.liftThrowable(source.reader)(state.reader), (reader) => reader.save !== undefined),
    (reader) => build(state.format, fileName, reader, state.lines, options)
  )
}
