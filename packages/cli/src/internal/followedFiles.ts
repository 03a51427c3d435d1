/**
 * How far `precis watch` read each transcript file it follows: a table of the
 * CLI's own, `followed_files`, in the store's database, over the `SqlClient`
 * the store layer provides (`Layers.store`). Not part of the library's store
 * port or migrations: {@link make} creates it where it is missing, with the
 * definition stores written by earlier versions already hold (their rows stay
 * and are read as they are), and adds the `file_id` column (device and inode)
 * to a table without it (its rows have none: only their content tells). A
 * `save` inside `TurnStore.withTransaction` is committed with the turns
 * appended there.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { StoreError } from "@precis/store"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * How far a followed transcript file was read: the bytes and lines read
 * (complete lines only), its format and the session it goes to, and the hash
 * of its first bytes (up to `byteOffset`, at most 1 KiB), which tells a file
 * that was replaced or rewritten from one that only grew.
 */
export interface FollowedFile {
  readonly path: string
  readonly sessionId: string
  readonly format: string
  readonly byteOffset: number
  readonly lineCount: number
  readonly headHash: string
  /** The file's device and inode (`dev:ino`) when read; absent in rows written before it was kept. */
  readonly fileId?: string | undefined
}

// An integer column may come back as text (pg gives 64-bit integers so).
const Count = Schema.Union(Schema.Number, Schema.NumberFromString)

const Row = Schema.Struct({
  path: Schema.String,
  session_id: Schema.String,
  format: Schema.String,
  byte_offset: Count,
  line_count: Count,
  head_hash: Schema.String,
  file_id: Schema.NullOr(Schema.String)
})

// An advisory-lock key of ours that serializes creating the table across
// PostgreSQL processes (two concurrent `CREATE TABLE IF NOT EXISTS` can collide).
const CREATE_LOCK = 0x70726566

const failure = (operation: string) => (cause: unknown) => StoreError.StoreError.fromCause(cause, operation)

/** The followed files of a store: how far each was read, and recording it. */
export interface FollowedFiles {
  /** How far `path` was read, if it is followed. */
  readonly get: (path: string) => Effect.Effect<Option.Option<FollowedFile>, StoreError.StoreError>
  /** Records how far a file was read, replacing what was recorded (in the transaction in progress, if any). */
  readonly save: (file: FollowedFile) => Effect.Effect<void, StoreError.StoreError>
}

/** The followed files over the `SqlClient` in context, their table created unless the database has it. */
export const make: Effect.Effect<FollowedFiles, StoreError.StoreError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const create = sql`CREATE TABLE IF NOT EXISTS followed_files (
    path TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL,
    format TEXT NOT NULL,
    byte_offset INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  // The device and inode of a file, added to a table created without them (on SQLite, by whichever
  // of two processes starting at once gets there first).
  const hasFileId = Effect.map(
    sql<{ readonly name: string }>`SELECT name FROM pragma_table_info('followed_files')`,
    (columns) => columns.some((c) => c.name === "file_id")
  )
  const addFileId = sql`ALTER TABLE followed_files ADD COLUMN file_id TEXT`
  const pg = sql.withTransaction(Effect.all([
    sql`SELECT pg_advisory_xact_lock(${CREATE_LOCK})`,
    create,
    sql`ALTER TABLE followed_files ADD COLUMN IF NOT EXISTS file_id TEXT`
  ], { discard: true }))
  const sqlite = Effect.zipRight(
    create,
    Effect.flatMap(hasFileId, (has): Effect.Effect<void, SqlError> =>
      has ? Effect.void : Effect.catchAll(Effect.asVoid(addFileId), (error) =>
        Effect.flatMap(hasFileId, (added) => (added ? Effect.void : Effect.fail(error)))))
  )
  yield* sql.onDialectOrElse({ pg: () => pg, orElse: () => sqlite }).pipe(Effect.mapError(failure("FollowedFiles.create")))

  const find = SqlSchema.findOne({
    Request: Schema.String,
    Result: Row,
    execute: (path) =>
      sql`SELECT path, session_id, format, byte_offset, line_count, head_hash, file_id FROM followed_files
        WHERE path = ${path}`
  })

  const get: FollowedFiles["get"] = (path) =>
    find(path).pipe(
      Effect.map(Option.map((row): FollowedFile => ({
        path: row.path,
        sessionId: row.session_id,
        format: row.format,
        byteOffset: row.byte_offset,
        lineCount: row.line_count,
        headHash: row.head_hash,
        ...(row.file_id === null ? {} : { fileId: row.file_id })
      }))),
      Effect.mapError(failure("FollowedFiles.get"))
    )

  const save: FollowedFiles["save"] = (file) =>
    Effect.flatMap(
      DateTime.now,
      (now) =>
        sql`INSERT INTO followed_files (path, session_id, format, byte_offset, line_count, head_hash, file_id, updated_at)
          VALUES (${file.path}, ${file.sessionId}, ${file.format}, ${file.byteOffset}, ${file.lineCount},
            ${file.headHash}, ${file.fileId ?? null}, ${DateTime.formatIso(now)})
          ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, format = excluded.format,
            byte_offset = excluded.byte_offset, line_count = excluded.line_count, head_hash = excluded.head_hash,
            file_id = excluded.file_id, updated_at = excluded.updated_at`
    ).pipe(Effect.asVoid, Effect.mapError(failure("FollowedFiles.save")))

  return { get, save }
})
