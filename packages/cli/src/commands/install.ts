/**
 * `precis install claude-code` and `precis uninstall claude-code`: add
 * precis's hooks and MCP server to Claude Code's settings, and take exactly
 * those out again (the merge rules are `internal/claudeSettings.ts`'s). Each
 * file is read, changed in memory and written only when it changed, after a
 * backup of what it held; a file precis cannot read as a JSON object is left
 * alone and the command fails before writing anything. `--dry-run` says what
 * would change and writes nothing.
 *
 * The files: with `--user` (the default) `~/.claude/settings.json` (hooks) and
 * `~/.claude.json` (MCP servers, user scope); with `--project` the current
 * folder's `.claude/settings.json` and `.mcp.json`.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Path from "@effect/platform/Path"
import { PgStore } from "@precis/store-pg"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ClaudeCode from "../internal/claudeCode.js"
import * as Settings from "../internal/claudeSettings.js"
import { CliError } from "../internal/errors.js"
import * as JsonFile from "../internal/jsonFile.js"
import * as Opt from "../internal/options.js"

const user = Options.boolean("user").pipe(
  Options.withDescription("change the user settings: ~/.claude/settings.json and ~/.claude.json (the default when --project is not given)")
)

const project = Options.boolean("project").pipe(
  Options.withDescription(
    "change the current folder's project settings instead: .claude/settings.json and .mcp.json (shared with " +
      "whoever uses the project; Claude Code asks before it starts a project's MCP server; default: off)"
  )
)

const dryRun = Options.boolean("dry-run").pipe(
  Options.withDescription("say what would change, write nothing (default: off)")
)

/** The two files of a scope. */
interface Files {
  readonly hooks: string
  readonly servers: string
}

const filesOf = (scope: { readonly user: boolean; readonly project: boolean }) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    if (scope.user && scope.project) return yield* new CliError({ reason: "--user and --project exclude each other" })
    if (scope.project) {
      const root = path.resolve(".")
      return { hooks: path.join(root, ".claude", "settings.json"), servers: path.join(root, ".mcp.json") } satisfies Files
    }
    const home = yield* ClaudeCode.home
    return { hooks: path.join(home, ".claude", "settings.json"), servers: path.join(home, ".claude.json") } satisfies Files
  })

/**
 * How Claude Code runs this precis: this Node and this script, by absolute
 * path (a hook runs in Claude Code's environment, whose PATH may not have
 * either), with `--db` when one was given.
 */
const invocation = (db: Option.Option<string>) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const script = path.resolve(process.argv[1] ?? "precis")
    const store = Option.map(db, (name) => (PgStore.isUrl(name) ? name : path.resolve(name)))
    const dbArgs = Option.match(store, { onNone: () => [], onSome: (name) => ["--db", name] })
    return {
      hookCommand: [process.execPath, script, "hook", "claude-code", ...dbArgs].map(Settings.shellWord).join(" "),
      server: Settings.serverEntry(process.execPath, [script, "mcp", ...dbArgs])
    }
  })

/** A file's planned change: its content now (none when missing) and after. */
interface Change {
  readonly file: string
  readonly before: Option.Option<Settings.Json>
  readonly after: Settings.Json
  readonly what: string
}

const plan = (
  file: string,
  change: (json: Settings.Json) => Either.Either<Settings.Json, Settings.SettingsShapeError>,
  what: string
) =>
  Effect.gen(function*() {
    const before = yield* JsonFile.read(file)
    const after = yield* Either.match(change(Option.getOrElse(before, () => ({}))), {
      onLeft: (error) => Effect.fail(new CliError({ reason: `${file}: ${error.reason}; precis leaves it as it is` })),
      onRight: Effect.succeed
    })
    return { file, before, after, what } satisfies Change
  })

/** Writes each change (all planned before the first write), or says what it would do with `dryRun`. */
const apply = (changes: ReadonlyArray<Change>, dryRun: boolean) =>
  Effect.gen(function*() {
    const now = DateTime.unsafeMake(yield* Clock.currentTimeMillis)
    const stamp = DateTime.formatIso(now).replace(/[-:]/g, "").replace(".", "")
    for (const change of changes) {
      if (Settings.unchanged(Option.getOrElse(change.before, () => ({})), change.after)) {
        yield* Console.log(`${change.file}: nothing to change`)
        continue
      }
      if (dryRun) {
        yield* Console.log(`${change.file}: would ${change.what}`)
        continue
      }
      const backup = yield* JsonFile.write(change.file, change.after, stamp)
      yield* Console.log(
        `${change.file}: ${change.what}: done` +
          Option.match(backup, { onNone: () => " (a new file)", onSome: (file) => ` (backup: ${file})` })
      )
    }
  })

const hookNames = Settings.hookSpecs.map((spec) => spec.event + (spec.matcher === undefined ? "" : ` (${spec.matcher})`))

/** `precis install claude-code`. */
export const installClaudeCode = Command.make(
  "claude-code",
  { user, project, db: Opt.agentDb, dryRun },
  (args) =>
    Effect.gen(function*() {
      const files = yield* filesOf(args)
      const { hookCommand, server } = yield* invocation(args.db)
      const changes = [
        yield* plan(files.hooks, (json) => Settings.addHooks(json, hookCommand), `add the hooks ${hookNames.join(", ")}`),
        yield* plan(files.servers, (json) => Settings.addServer(json, server), `add the MCP server "${ClaudeCode.serverName}"`)
      ]
      yield* apply(changes, args.dryRun)
      const db = yield* ClaudeCode.storeOf(args.db)
      yield* Console.log(
        `store: ${db}. Start Claude Code again (or run /hooks and /mcp) for the change to take effect; ` +
          `undo with precis uninstall claude-code${args.project ? " --project" : ""}.`
      )
    })
).pipe(
  Command.withDescription(
    "Set up Claude Code to use precis: hooks (PreCompact and SessionEnd import the session's transcript and compact " +
      "it; SessionStart after a compaction or a resume gives back the session state) and the MCP server precis " +
      "mcp (search, expand, describe, read, context). Merges into the settings that are there, writes a backup of each " +
      "file it changes first, and changes nothing when run again."
  )
)

/** `precis uninstall claude-code`. */
export const uninstallClaudeCode = Command.make(
  "claude-code",
  { user, project, dryRun },
  (args) =>
    Effect.gen(function*() {
      const files = yield* filesOf(args)
      const changes = [
        yield* plan(files.hooks, (json) => Either.right(Settings.removeHooks(json)), "remove precis's hooks"),
        yield* plan(files.servers, (json) => Either.right(Settings.removeServer(json)), "remove precis's MCP server")
      ]
      yield* apply(changes, args.dryRun)
    })
).pipe(
  Command.withDescription(
    "Take out of Claude Code's settings exactly what precis install claude-code added (its hooks and its MCP " +
      "server), leaving everything else as it is; a backup of each file changed is written first. The store stays."
  )
)

/** One line for the root page and the README. */
export const summary = "Set up Claude Code to use precis (hooks and the MCP server)"

/** The `install` command. */
export const command = Command.make("install").pipe(
  Command.withDescription("Set up an agent to use precis: precis install claude-code."),
  Command.withSubcommands([installClaudeCode])
)

/** The `uninstall` command. */
export const uninstall = Command.make("uninstall").pipe(
  Command.withDescription("Undo precis install: precis uninstall claude-code."),
  Command.withSubcommands([uninstallClaudeCode])
)
