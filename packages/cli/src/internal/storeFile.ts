/**
 * Where an agent's set-up finds a store whose name holds a secret (a
 * PostgreSQL URL with its password): not on a command line, which every
 * user of the machine can read (`ps`), nor in an agent's settings file,
 * which is often readable by all (`~/.claude/settings.json` is 644) or
 * committed (`.mcp.json`), but in a file of the user's alone (mode 600, in a
 * folder of mode 700) that `precis hook` and `precis mcp` read when no
 * `--db` is given. One file serves every agent, as one store does. A hook of
 * Claude Code has no environment of its own, so an `env` entry could not
 * carry it there; the file does, for hooks and MCP servers alike.
 *
 * @internal
 */
import { Redact } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { CliError } from "./errors.js"
import * as HomeFolders from "./homeFolders.js"

/** Whether a store's name holds a secret (what `Redact.url` masks: a password, a secret query value). */
export const holdsSecret = (db: string): boolean => Redact.url(db) !== db

/** The file: `$XDG_CONFIG_HOME/precis/store`, else `$HOME/.config/precis/store`; none without either. */
export const file: Effect.Effect<Option.Option<string>> = Effect.map(
  HomeFolders.under("XDG_CONFIG_HOME", ".config"),
  Option.map((dir) => path.join(dir, "precis", "store"))
)

/**
 * The store the file names; none when there is no file. A file that others
 * can read is refused (as ssh refuses a key of mode 644): it holds a password.
 */
export const read: Effect.Effect<Option.Option<string>, CliError> = Effect.gen(function*() {
  const found = yield* file
  if (Option.isNone(found)) return Option.none()
  const name = found.value
  const stats = yield* Effect.promise(() => fsp.stat(name).catch(() => undefined))
  if (stats === undefined) return Option.none()
  if ((stats.mode & 0o077) !== 0) {
    return yield* new CliError({
      reason: `${name} can be read by other users (mode ${(stats.mode & 0o777).toString(8)}) and holds the store's ` +
        `password: chmod 600 ${name}`
    })
  }
  const text = yield* Effect.tryPromise({
    try: () => fsp.readFile(name, "utf8"),
    catch: () => new CliError({ reason: `${name}: cannot read it` })
  })
  const store = text.trim()
  return store.length === 0 ? Option.none() : Option.some(store)
})

/** Writes `db` to the file (mode 600, its folder 700 when created) and returns the file's path. */
export const write = (db: string): Effect.Effect<string, CliError> =>
  Effect.gen(function*() {
    const found = yield* file
    if (Option.isNone(found)) {
      return yield* new CliError({ reason: "HOME is not set: the file naming the store lives under it" })
    }
    const name = found.value
    yield* Effect.tryPromise({
      try: async () => {
        await fsp.mkdir(path.dirname(name), { recursive: true, mode: 0o700 })
        const temporary = `${name}.precis-${process.pid}.tmp`
        await fsp.writeFile(temporary, `${db}\n`, { mode: 0o600 })
        await fsp.chmod(temporary, 0o600)
        await fsp.rename(temporary, name)
      },
      catch: () => new CliError({ reason: `${name}: cannot write it` })
    })
    return name
  })
