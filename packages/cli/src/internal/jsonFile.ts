/**
 * Reading and rewriting a JSON settings file of another program without ever
 * losing it: a file that is not a JSON object is refused, not replaced; the
 * old bytes are copied to a backup beside it first; the new text is written
 * to a temporary file and renamed over the old one, so a crash leaves one or
 * the other, never half of each.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Json } from "./claudeSettings.js"
import { CliError } from "./errors.js"

const failure = (file: string, what: string) => (error: { readonly message: string }) =>
  new CliError({ reason: `${file}: cannot ${what}: ${error.message}` })

/** The object `file` holds; none when there is no such file. */
export const read = (file: string): Effect.Effect<Option.Option<Json>, CliError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (!(yield* fs.exists(file).pipe(Effect.mapError(failure(file, "read it"))))) return Option.none()
    const text = yield* fs.readFileString(file).pipe(Effect.mapError(failure(file, "read it")))
    if (text.trim().length === 0) return Option.some({})
    const parsed = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () => new CliError({ reason: `${file}: not valid JSON; fix it first (precis leaves it as it is)` })
    })
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return yield* new CliError({ reason: `${file}: not a JSON object; precis leaves it as it is` })
    }
    return Option.some(parsed as Json)
  })

/**
 * Writes `content` to `file` (two-space JSON and a final line break),
 * creating its folder; an empty object removes the file instead (it holds
 * no setting). When the file existed, its old bytes go first to
 * `FILE.precis-backup-STAMP` (a UTC time to the millisecond), whose path is
 * returned.
 */
export const write = (
  file: string,
  content: Json,
  stamp: string
): Effect.Effect<Option.Option<string>, CliError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(Effect.mapError(failure(file, "create its folder")))
    const existed = yield* fs.exists(file).pipe(Effect.mapError(failure(file, "read it")))
    const backup = `${file}.precis-backup-${stamp}`
    if (existed) yield* fs.copyFile(file, backup).pipe(Effect.mapError(failure(file, "back it up")))
    if (Object.keys(content).length === 0) {
      if (existed) yield* fs.remove(file).pipe(Effect.mapError(failure(file, "remove it")))
      return existed ? Option.some(backup) : Option.none()
    }
    const temporary = `${file}.precis-${process.pid}.tmp`
    // The new file keeps the old one's permissions (~/.claude.json is the user's alone).
    const mode = existed ? Option.some((yield* fs.stat(file).pipe(Effect.mapError(failure(file, "read it")))).mode) : Option.none()
    yield* fs.writeFileString(temporary, `${JSON.stringify(content, null, 2)}\n`).pipe(
      Effect.zipRight(Option.match(mode, { onNone: () => Effect.void, onSome: (m) => fs.chmod(temporary, m & 0o777) })),
      Effect.zipRight(fs.rename(temporary, file)),
      Effect.mapError(failure(file, "write it"))
    )
    return existed ? Option.some(backup) : Option.none()
  })
