/**
 * How far each followed transcript file was read: the part of the store port
 * that `@precis/importers`' `Follower` keeps its state in, so that a process
 * that follows a file (`precis watch`, a Claude Code hook) goes on where the
 * last one stopped, reading only what the file gained. A `put` inside
 * `TurnStore.withTransaction` is committed with the turns appended there.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { StoreError } from "./StoreError.js"

/**
 * A followed file as last read: the bytes and lines read (complete lines
 * only), its size then, its device and inode (`dev:ino`), a checksum of what
 * was read (`kind:hex`, whose kind the follower defines), its format, the
 * session it goes to, and the state of its parser after the last line read
 * (JSON, the importer's own Schema), absent when the parser cannot save it.
 *
 * @category models
 * @since 0.1.0
 */
export class FollowedFile extends Schema.Class<FollowedFile>("@precis/store/FollowedFile")({
  path: Schema.String,
  sessionId: Schema.String,
  format: Schema.String,
  byteOffset: Schema.NonNegativeInt,
  lineCount: Schema.NonNegativeInt,
  size: Schema.NonNegativeInt,
  fileId: Schema.optional(Schema.String),
  checksum: Schema.String,
  parserState: Schema.optional(Schema.String)
}) {}

/**
 * The followed files of a store.
 *
 * @category models
 * @since 0.1.0
 */
export interface Service {
  /** How far `path` was read, if it is followed. */
  readonly get: (path: string) => Effect.Effect<Option.Option<FollowedFile>, StoreError>
  /** Records how far a file was read, replacing what was recorded (in the transaction in progress, if any). */
  readonly put: (file: FollowedFile) => Effect.Effect<void, StoreError>
  /** Every followed file, by path. */
  readonly list: Effect.Effect<ReadonlyArray<FollowedFile>, StoreError>
}

/**
 * The followed files of the store in context (the SQL drivers provide it
 * with the rest of the port).
 *
 * @category tags
 * @since 0.1.0
 */
export class FollowedFiles extends Context.Tag("@precis/store/FollowedFiles")<FollowedFiles, Service>() {}
