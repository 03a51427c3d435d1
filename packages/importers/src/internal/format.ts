/**
 * What a transcript format is to the importer: its name, a line for the help
 * and docs, how its files are told by their content, and how they are read.
 * Each format's module exports one `format` record; the registry
 * (`formats.ts`) lists them.
 *
 * @internal
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Effect from "effect/Effect"
import type { Sink } from "./common.js"
import type { LineReader } from "./jsonl.js"

/**
 * What detection sees of a file's first characters, by how they start:
 * - `Element`: the first element of a JSON array (parsed whole), and the
 *   start of the array's text (`head`, for keys of later elements);
 * - `ArrayHead`: the start of a JSON array whose first element is not whole in the sample;
 * - `Object`: the first line of JSONL, or a whole JSON object on one line (parsed);
 * - `ObjectText`: an object whose first line does not parse (pretty-printed, or
 *   longer than the sample): the sample, its first line and the file's name;
 * - `Text`: a sample that starts with neither `[` nor `{` (markdown, say): the
 *   sample and the file's name.
 */
export type Probe =
  | { readonly _tag: "Element"; readonly value: Record<string, unknown>; readonly head: string }
  | { readonly _tag: "ArrayHead"; readonly head: string }
  | { readonly _tag: "Object"; readonly value: Record<string, unknown> }
  | { readonly _tag: "ObjectText"; readonly text: string; readonly firstLine: string; readonly fileName: string }
  | { readonly _tag: "Text"; readonly text: string; readonly fileName: string }

/**
 * How a format tells its files: `claims` for what only its files hold (a key
 * of its own, a first key, a file name), `suggests` for weaker evidence (a key
 * somewhere in the sample, a shape other formats may share). Detection takes
 * the first format that claims the probe, else the first that suggests it,
 * in the registry's order.
 */
export interface Detect {
  readonly claims: (probe: Probe) => boolean
  readonly suggests?: ((probe: Probe) => boolean) | undefined
}

interface Common<Name extends string> {
  /** The name `--format` takes and `metadata.sourceFormat` records. */
  readonly name: Name
  /** What its files are, for the help and the docs (`Claude Code JSONL`). */
  readonly title: string
  readonly detect: Detect
  /**
   * The files of this format `precis watch` follows in a folder besides
   * `*.jsonl` (by path: `chats/session-*.json`), and the folders it leaves
   * unlisted (`skips`: given a folder and the names in its parent).
   */
  readonly watch?: {
    readonly follows: (file: string) => boolean
    readonly skips?: ((dir: string, siblings: ReadonlyArray<string>) => boolean) | undefined
    /** Folders besides its own whose changes change a followed file (opencode: its session's messages). */
    readonly folders?: ((file: string) => ReadonlyArray<string>) | undefined
  } | undefined
}

/**
 * A format: read line by line (JSONL: streamed, and followed as it grows by
 * `precis watch`), or whole (JSON).
 */
export type Format<Name extends string = string> =
  | Common<Name> & {
    readonly lineBased: true
    /**
     * Whether its files are another program's log, read leniently by default:
     * a line that cannot be read is skipped and reported, not fatal.
     */
    readonly lenient: boolean
    /**
     * A fresh reader of one file; with `saved` (what an earlier reader's
     * `save` gave), one that goes on after the earlier one's last line
     * (throws when `saved` is not such a state).
     */
    readonly reader: (saved?: unknown) => LineReader
  }
  | Common<Name> & {
    readonly lineBased: false
    /** Reads a whole file into `out`, or throws a `LineFailure`. */
    readonly reader: (text: string, out: Sink) => void
    /**
     * For a session kept in several files (opencode's storage folder): the
     * text the reader reads, gathered from the file at `path` and the files
     * beside it; fails with the reason. Without it, the file's own text.
     */
    readonly gather?: ((path: string) => Effect.Effect<string, string, FileSystem.FileSystem>) | undefined
    /**
     * With `gather`: the files the session at `path` is gathered from (itself
     * first), whose changes change it (`precis watch` looks at them all).
     */
    readonly sources?: ((path: string) => Effect.Effect<ReadonlyArray<string>, never, FileSystem.FileSystem>) | undefined
  }
