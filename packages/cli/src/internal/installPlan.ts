/**
 * How `precis install` and `uninstall` change an agent's settings files:
 * every file's new text is worked out before the first is written (a file
 * precis cannot read or merge into stops the command with nothing written);
 * a file whose text would not change is left alone (no write, no backup);
 * `--dry-run` says what would change and writes nothing.
 *
 * @internal
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { CliError } from "./errors.js"
import * as JsonDocument from "./jsonDocument.js"
import * as SettingsFile from "./settingsFile.js"

/**
 * An edit of a file's text: the new text (none: the file holds nothing of
 * anyone's any more and goes), or the reason it cannot be made.
 */
export type Edit = (text: string) => Either.Either<Option.Option<string>, string>

/** An edit of a JSON (with comments) settings document; a file left empty goes. */
export const jsonEdit = (
  change: (doc: JsonDocument.Document) => Either.Either<JsonDocument.Document, { readonly reason: string }>
): Edit =>
(text) =>
  Either.flatMap(JsonDocument.parse(text), (doc) =>
    Either.match(change(doc), {
      onLeft: (error) => Either.left(error.reason),
      onRight: (next) =>
        Either.right(next.text === text ? Option.some(text) : JsonDocument.isEmpty(next) ? Option.none() : Option.some(next.text))
    }))

/** A planned change of one file. */
export interface Change {
  readonly file: string
  readonly before: Option.Option<string>
  readonly after: Option.Option<string>
  readonly what: string
}

/** The change `edit` makes to `file` (a missing file counts as empty). */
export const plan = (file: string, edit: Edit, what: string): Effect.Effect<Change, CliError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const before = yield* SettingsFile.read(file)
    const after = yield* Either.match(edit(Option.getOrElse(before, () => "")), {
      onLeft: (reason) => Effect.fail(new CliError({ reason: `${file}: ${reason}; precis leaves it as it is` })),
      onRight: (text) => Effect.succeed(text)
    })
    return { file, before, after, what } satisfies Change
  })

// A missing file counts as empty: an edit that leaves it empty (or takes it out) changes nothing.
const unchanged = (change: Change): boolean =>
  Option.getOrElse(change.before, () => "") === Option.getOrElse(change.after, () => "")

/**
 * Writes each change, or says what it would do with `dryRun`; `backups`
 * says where the old texts go (beside each file, or a folder of backups).
 * Returns whether anything changed (or would).
 */
export const apply = (
  changes: ReadonlyArray<Change>,
  options: { readonly dryRun: boolean; readonly backups: SettingsFile.BackupPlace }
): Effect.Effect<boolean, CliError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const now = DateTime.unsafeMake(yield* Clock.currentTimeMillis)
    const stamp = DateTime.formatIso(now).replace(/[-:]/g, "").replace(".", "")
    let changed = false
    for (const change of changes) {
      if (unchanged(change)) {
        yield* Console.log(`${change.file}: nothing to change`)
        continue
      }
      changed = true
      if (options.dryRun) {
        yield* Console.log(`${change.file}: would ${change.what}`)
        continue
      }
      const backup = yield* SettingsFile.write(change.file, change.after, { stamp, backups: options.backups })
      yield* Console.log(
        `${change.file}: ${change.what}: done` +
          Option.match(backup, { onNone: () => " (a new file)", onSome: (file) => ` (backup: ${file})` })
      )
    }
    return changed
  })
