/**
 * Where a reader opens a database file. SQLite reads a WAL database only
 * through its `-shm` file: it creates one when it can, reads an existing one
 * read-only, and fails ("attempt to write a readonly database") when there is
 * none and it cannot create one (a store in a directory the reader cannot
 * write). Then, and when the store is someone else's (not writable by the
 * reader, who should leave no files of its own beside it), the reader reads a
 * private copy, made in a temporary directory and removed when it is done.
 * No `-shm` means no writer is at work, so the copy is the store as it is.
 *
 * A read-only connection cannot remove the `-wal` and `-shm` files it created
 * (only the last connection to close does, and it must write to do it): when
 * the reader created them on a store it may write, it has SQLite remove them
 * as SQLite does, by opening and closing a connection that stays read-only in
 * effect, which removes them only when no other connection is open.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { StoreError } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { accessSync, closeSync, constants, copyFileSync, existsSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"

// Bytes 18 and 19 of the header: the read and write versions, 2 for WAL.
const isWal = (filename: string): boolean => {
  const header = Buffer.alloc(20)
  const fd = openSync(filename, "r")
  try {
    return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2 && header[19] === 2
  } finally {
    closeSync(fd)
  }
}

const writable = (path: string): boolean => {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** Where a reader opens `filename`: the file itself, or a private copy (see the module notes). */
export interface ReadTarget {
  readonly filename: string
  readonly copy: boolean
  /** Whether the reader creates the `-wal` and `-shm` files, and may have SQLite remove them once done. */
  readonly tidy: boolean
}

// SQLite's own clean-up of a WAL database's files: a connection that reads (SQLite opens the
// database at the first statement) and closes, last (or not: then it leaves them to the others).
// `query_only` keeps it from writing a row.
const tidyUp = (filename: string) =>
  Effect.ignore(Effect.scoped(Effect.flatMap(
    Layer.build(SqliteClient.layer({ filename, disableWAL: true })),
    (context) =>
      Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.zipRight(sql`PRAGMA query_only = ON`, sql`SELECT count(*) AS n FROM sqlite_master`)),
        context
      )
  )))

/**
 * The file a reader opens for `filename`, in the scope: a copy (with its
 * `-wal`) when the file is a WAL database without a `-shm` that the reader
 * cannot create or should not leave (the file or its directory is not
 * writable); the copy's directory is removed when the scope closes.
 */
export const readTarget = (filename: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: (): ReadTarget => {
        if (filename === ":memory:" || existsSync(`${filename}-shm`) || !isWal(filename)) {
          return { filename, copy: false, tidy: false }
        }
        if (writable(filename) && writable(dirname(filename))) return { filename, copy: false, tidy: true }
        const dir = mkdtempSync(join(tmpdir(), "precis-read-"))
        const copy = join(dir, basename(filename))
        copyFileSync(filename, copy)
        if (existsSync(`${filename}-wal`)) copyFileSync(`${filename}-wal`, `${copy}-wal`)
        return { filename: copy, copy: true, tidy: false }
      },
      catch: (cause) => StoreError.StoreError.fromCause(cause, "Store.open", filename)
    }),
    (target) =>
      target.copy
        ? Effect.sync(() => rmSync(dirname(target.filename), { recursive: true, force: true }))
        : target.tidy
        ? tidyUp(target.filename)
        : Effect.void
  )
