/**
 * Reading and rewriting another program's settings file without ever losing
 * it: the old bytes are copied to a backup first; the new text is written to
 * a temporary file beside the real one and renamed over it, so a crash
 * leaves one or the other, never half of each; a symbolic link (a dotfiles
 * repository's) is written through, and stays a link; the file keeps its
 * permissions.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliError } from "./errors.js"

const failure = (file: string, what: string) => (error: { readonly message: string }) =>
  new CliError({ reason: `${file}: cannot ${what}: ${error.message}` })

/** The text `file` holds; none when there is no such file (a link to nothing is none too). */
export const read = (file: string): Effect.Effect<Option.Option<string>, CliError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (!(yield* fs.exists(file).pipe(Effect.mapError(failure(file, "read it"))))) return Option.none()
    return Option.some(yield* fs.readFileString(file).pipe(Effect.mapError(failure(file, "read it"))))
  })

/** The most links followed to the real file (as the kernel's own bound, ELOOP). */
const MAX_LINKS = 40

/** The file a write of `file` changes: `file`, or what its chain of symbolic links ends at. */
const realFile = (file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    let current = path.resolve(file)
    for (let i = 0; i < MAX_LINKS; i++) {
      const target = yield* fs.readLink(current).pipe(Effect.option)
      if (Option.isNone(target)) return current
      current = path.resolve(path.dirname(current), target.value)
    }
    return yield* new CliError({ reason: `${file}: too many symbolic links; precis leaves it as it is` })
  })

/** Where a backup goes: beside the file (none), or in a folder of backups (some). */
export type BackupPlace = Option.Option<string>

/**
 * Writes `content` to `file` (through its links), or removes it when
 * `content` is none and it is a plain file. When it existed, its old bytes go
 * first to `FILE.precis-backup-STAMP` beside the name given (a UTC time to
 * the millisecond) or, with a folder of backups, to that folder under the
 * file's whole path; the backup's path is returned.
 */
export const write = (
  file: string,
  content: Option.Option<string>,
  options: { readonly stamp: string; readonly backups: BackupPlace }
): Effect.Effect<Option.Option<string>, CliError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const real = yield* realFile(file)
    yield* fs.makeDirectory(path.dirname(real), { recursive: true }).pipe(Effect.mapError(failure(file, "create its folder")))
    const existed = yield* fs.exists(real).pipe(Effect.mapError(failure(file, "read it")))
    const backup = Option.match(options.backups, {
      onNone: () => `${file}.precis-backup-${options.stamp}`,
      onSome: (dir) => path.join(dir, `${path.resolve(file).replace(/^[/\\]+/, "").replace(/[/\\:]/g, "__")}.precis-backup-${options.stamp}`)
    })
    if (existed) {
      yield* fs.makeDirectory(path.dirname(backup), { recursive: true, mode: 0o700 }).pipe(Effect.mapError(failure(file, "back it up")))
      yield* fs.copyFile(real, backup).pipe(Effect.mapError(failure(file, "back it up")))
    }
    const saved = existed ? Option.some(backup) : Option.none<string>()
    if (Option.isNone(content)) {
      if (existed && real === path.resolve(file)) yield* fs.remove(real).pipe(Effect.mapError(failure(file, "remove it")))
      else if (existed) yield* replace(real, "{}\n", file)
      return saved
    }
    yield* replace(real, content.value, file)
    return saved
  })

/** `real` replaced by `text` in one rename, keeping its permissions. */
const replace = (real: string, text: string, shown: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const temporary = `${real}.precis-${process.pid}.tmp`
    const mode = yield* fs.stat(real).pipe(Effect.map((info) => Option.some(info.mode & 0o777)), Effect.orElseSucceed(() => Option.none<number>()))
    yield* fs.writeFileString(temporary, text, { mode: Option.getOrElse(mode, () => 0o644) }).pipe(
      Effect.zipRight(Option.match(mode, { onNone: () => Effect.void, onSome: (m) => fs.chmod(temporary, m) })),
      Effect.zipRight(fs.rename(temporary, real)),
      Effect.mapError(failure(shown, "write it"))
    )
  })
