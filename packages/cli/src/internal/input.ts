/**
 * Reading the files the commands are given, with one-line errors for the
 * user's mistakes.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Importer } from "@precis/importers"
import * as Effect from "effect/Effect"
import { CliError } from "./errors.js"
import * as SkippedLines from "./skippedLines.js"

/** Fails with a `CliError` unless `path` is an existing regular file. */
export const requireFile = (path: string, what = "file") =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(path).pipe(
      Effect.catchAll(() => Effect.fail(new CliError({ reason: `${path}: no such ${what}` })))
    )
    if (info.type !== "File") return yield* new CliError({ reason: `${path}: not a file` })
  })

/** Whether `path` exists (a store that does not exist must not be created by a read-only command). */
export const exists = (path: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists(path)).pipe(Effect.orElseSucceed(() => false))

/**
 * The conversations of `path`, parsed in full before anything is written
 * anywhere: a bad line fails the whole import with `FILE:LINE: reason`, and a
 * file without a turn (blank, or a `--format` that matches none of its lines)
 * with `no turns found in FILE as FORMAT`. Another program's JSONL log is read
 * leniently unless `strict`: each line skipped (and each turn whose NUL was
 * made visible) is shown on stderr as `FILE:LINE: skipped: reason`.
 */
export const readConversations = (
  path: string,
  format: Importer.Format,
  strict = false
): Effect.Effect<Importer.Imported, CliError | Importer.ImportError, FileSystem.FileSystem> =>
  Effect.zipRight(requireFile(path), Importer.importFile(path, { format, strict })).pipe(
    Effect.tap(SkippedLines.report),
    Effect.filterOrFail(
      (imported) => imported.conversations.some((conversation) => conversation.turns.length > 0),
      (imported) => new CliError({ reason: `no turns found in ${path} as ${imported.format}` })
    )
  )

/** The formats the commands read, by what their files are (`Importer.sources`), for the help. */
export const formatList = (lineBased?: boolean): string =>
  Importer.sources.filter((source) => lineBased === undefined || source.lineBased === lineBased)
    .map((source) => source.title)
    .join(", ")

/** The text of a file (the `--prior` summary). */
export const readText = (path: string) =>
  Effect.zipRight(
    requireFile(path),
    Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
      Effect.mapError((error) => new CliError({ reason: `${path}: ${error.message}` }))
    )
  )
