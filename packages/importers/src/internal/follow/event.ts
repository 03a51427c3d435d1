/**
 * What following does, file by file (`Follower.Event`).
 *
 * @internal
 */
import * as Data from "effect/Data"

/** What following does, file by file. */
export type Event = Data.TaggedEnum<{
  /** A batch of complete lines was read: `added` new turns (of `turns`) went to `session`; the file is read up to `offset`. */
  Imported: {
    readonly file: string
    readonly session: string
    readonly turns: number
    readonly added: number
    readonly offset: number
  }
  /** The file is read again from its start: it was truncated, or replaced (another inode, or rewritten in place). */
  Restarted: { readonly file: string; readonly reason: "truncated" | "replaced" }
  /**
   * A line that is not a turn of the file's format (or a turn refused): left out, and the next lines
   * read; `text` is the line as read (without its line break), for its reader to keep (never to show).
   */
  LineSkipped: { readonly file: string; readonly line: number; readonly reason: string; readonly text: string }
  /** A turn stored with its content changed so that it could be stored (`NUL shown as ␀`), as a lenient import does. */
  LineMended: { readonly file: string; readonly line: number; readonly reason: string }
  /** The file cannot be followed (an unknown format, a refused turn, not readable); left alone until it changes. */
  FileFailed: { readonly file: string; readonly reason: string }
}>

/** Constructors of {@link Event}. */
export const Event = Data.taggedEnum<Event>()
