/**
 * How an agent runs precis, as `precis install` writes it into the agent's
 * settings: the command (this Node and this script by absolute path, which
 * work whatever the agent's PATH; or a portable form, `--command precis`, or
 * `--command "npx -y @precis/cli"`), then the subcommand, then `--db` when a
 * store was named that holds no secret (one with a password is named in the
 * file of `storeFile.ts`, never on the command line). The words after the
 * subcommand that the user added to an installed entry (`--deadline '30
 * seconds'`) are carried over when the entry is written again.
 *
 * @internal
 */
import { PgStore } from "@precis/store-pg"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { CliError } from "./errors.js"
import * as StoreFile from "./storeFile.js"

/** How precis is run: `words` start the command, `db` follows the subcommand. */
export interface Invocation {
  readonly words: ReadonlyArray<string>
  readonly db: ReadonlyArray<string>
  /** Whether `words` name this machine's files (its Node, this clone). */
  readonly machineSpecific: boolean
}

/** Whether an executable `name` is on `PATH`. */
const onPath = (name: string): Effect.Effect<boolean> =>
  Effect.flatMap(Config.string("PATH").pipe(Effect.orElseSucceed(() => "")), (dirs) => Effect.promise(async () => {
    for (const dir of dirs.split(path.delimiter).filter((d) => d.length > 0)) {
      const found = await fsp.access(path.join(dir, name), fsp.constants.X_OK).then(() => true, () => false)
      if (found) return true
    }
    return false
  }))

/**
 * The invocation for `--db` and `--command`: `--command` split at spaces;
 * without it, `precis` when `portable` is asked for and one is on PATH, else
 * this Node and script by absolute path.
 */
export const make = (
  db: Option.Option<string>,
  command: Option.Option<string>,
  portable: boolean
): Effect.Effect<Invocation, CliError> =>
  Effect.gen(function*() {
    const store = Option.filter(db, (name) => !StoreFile.holdsSecret(name))
    const dbWords = Option.match(store, {
      onNone: () => [],
      onSome: (name) => ["--db", PgStore.isUrl(name) ? name : path.resolve(name)]
    })
    if (Option.isSome(command)) {
      const words = command.value.trim().split(/\s+/).filter((word) => word.length > 0)
      if (words.length === 0) return yield* new CliError({ reason: "--command must name a command" })
      return { words, db: dbWords, machineSpecific: false }
    }
    if (portable && (yield* onPath("precis"))) return { words: ["precis"], db: dbWords, machineSpecific: false }
    return { words: [process.execPath, path.resolve(process.argv[1] ?? "precis")], db: dbWords, machineSpecific: true }
  })

/** The arguments of a subcommand: `sub…`, then `--db` when given. */
export const argsOf = (invocation: Invocation, sub: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...invocation.words.slice(1),
  ...sub,
  ...invocation.db
]

/**
 * A word as a POSIX shell reads it: as it is when it holds only safe
 * characters, else in single quotes (a quote inside as `'\''`).
 */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`

/** The shell line running `sub…` (a hook's command). */
export const line = (invocation: Invocation, sub: ReadonlyArray<string>): string =>
  [invocation.words[0] ?? "precis", ...argsOf(invocation, sub)].map(shellWord).join(" ")

// A `--db WORD` precis wrote, as a shell word (bare, or single-quoted with '\'' inside).
const DB_WORD = /^ --db (?:'(?:[^']|'\\'')*'|[\w@%+=:,./-]+)/

/**
 * The hook line `fresh` (ending in `marker`) with what the user added after
 * `marker` in `installed` kept: the line precis writes again for an entry of
 * its own the user edited.
 */
export const carryLine = (installed: string, fresh: string, marker: string): string => {
  const at = installed.indexOf(marker)
  if (at < 0) return fresh
  const added = installed.slice(at + marker.length).replace(DB_WORD, "")
  const [head] = fresh.split(marker)
  const db = fresh.slice((head ?? "").length + marker.length)
  return `${head}${marker}${db}${added}`
}

/**
 * The arguments `fresh` (whose `sub` word is the marker) with the words the
 * user added after `sub` in `installed` kept (an older `--db` precis wrote
 * is not the user's).
 */
export const carryArgs = (
  installed: ReadonlyArray<unknown>,
  fresh: ReadonlyArray<string>,
  sub: string
): ReadonlyArray<unknown> => {
  const at = installed.indexOf(sub)
  if (at < 0) return fresh
  const added = installed.slice(at + 1)
  return [...fresh, ...(added[0] === "--db" ? added.slice(2) : added)]
}
