/**
 * The followed files over SQL (the table `followed_files`, created by
 * migration `8_followed_files`, see `migrations.ts`).
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { FollowedFile, type Service } from "../FollowedFiles.js"
import { StoreError } from "../StoreError.js"

// An integer column may come back as text (pg gives 64-bit integers so).
const Count = Schema.Union(Schema.Number, Schema.NumberFromString)

const Row = Schema.Struct({
  path: Schema.String,
  session_id: Schema.String,
  format: Schema.String,
  byte_offset: Count,
  line_count: Count,
  size: Schema.NullOr(Count),
  file_id: Schema.NullOr(Schema.String),
  checksum: Schema.NullOr(Schema.String),
  parser_state: Schema.NullOr(Schema.String)
})

const fromRow = (row: typeof Row.Type): FollowedFile =>
  new FollowedFile({
    path: row.path,
    sessionId: row.session_id,
    format: row.format,
    byteOffset: row.byte_offset,
    lineCount: row.line_count,
    size: row.size ?? row.byte_offset,
    ...(row.file_id === null ? {} : { fileId: row.file_id }),
    checksum: row.checksum ?? "",
    ...(row.parser_state === null ? {} : { parserState: row.parser_state })
  })

const failure = (operation: string) => (cause: unknown) => StoreError.fromCause(cause, `FollowedFiles.${operation}`)

/**
 * The followed files over `sql`.
 *
 * @internal
 */
export const make = (sql: SqlClient.SqlClient): Service => {
  const columns = sql`path, session_id, format, byte_offset, line_count, size, file_id, checksum, parser_state`
  const find = SqlSchema.findOne({
    Request: Schema.String,
    Result: Row,
    execute: (path) => sql`SELECT ${columns} FROM followed_files WHERE path = ${path}`
  })
  const all = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Row,
    execute: () => sql`SELECT ${columns} FROM followed_files ORDER BY path`
  })
  return {
    get: (path) => find(path).pipe(Effect.map(Option.map(fromRow)), Effect.mapError(failure("get"))),
    list: all(undefined).pipe(Effect.map((rows) => rows.map(fromRow)), Effect.mapError(failure("list"))),
    put: (file) =>
      Effect.flatMap(DateTime.now, (now) =>
        // head_hash: what precis before schema 8 kept (the hash of the first KiB); '' since.
        sql`INSERT INTO followed_files (path, session_id, format, byte_offset, line_count, head_hash, updated_at,
            size, file_id, checksum, parser_state)
          VALUES (${file.path}, ${file.sessionId}, ${file.format}, ${file.byteOffset}, ${file.lineCount}, '',
            ${DateTime.formatIso(now)}, ${file.size}, ${file.fileId ?? null}, ${file.checksum},
            ${file.parserState ?? null})
          ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, format = excluded.format,
            byte_offset = excluded.byte_offset, line_count = excluded.line_count, head_hash = excluded.head_hash,
            updated_at = excluded.updated_at, size = excluded.size, file_id = excluded.file_id,
            checksum = excluded.checksum, parser_state = excluded.parser_state`).pipe(
          Effect.asVoid,
          Effect.mapError(failure("put"))
        )
  }
}
