/**
 * `precis install AGENT` and `precis uninstall AGENT`: add precis's MCP
 * server (and, for Claude Code, its hooks) to a coding agent's settings, and
 * take exactly those out again. Each file is edited as a document, so what
 * is not precis's stays byte for byte (`jsonDocument.ts`, `codexConfig.ts`);
 * all files are planned before the first is written, each written only when
 * it changes, after a backup (`installPlan.ts`). `--dry-run` says what would
 * change and writes nothing.
 *
 * The files: Claude Code with `--user` (the default) `~/.claude/settings.json`
 * (hooks) and `~/.claude.json` (MCP servers, user scope), with `--project` the
 * current folder's `.claude/settings.json` and `.mcp.json` (their backups
 * outside the project, under precis's state folder, so none is committed);
 * Codex `~/.codex/config.toml`, Gemini CLI `~/.gemini/settings.json`,
 * opencode `~/.config/opencode/opencode.json` (`agentFolders.ts`).
 *
 * A store whose name holds a password never goes on a command line or into
 * these files: it is written to a file of mode 600 that precis reads
 * (`storeFile.ts`), and it is shown masked.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Path from "@effect/platform/Path"
import { Redact } from "@precis/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as AgentCommand from "../internal/agentCommand.js"
import * as AgentFolders from "../internal/agentFolders.js"
import * as ClaudeCode from "../internal/claudeCode.js"
import * as Settings from "../internal/claudeSettings.js"
import * as Codex from "../internal/codexConfig.js"
import * as AgentHooks from "../internal/agentHooks.js"
import { CliError, reported } from "../internal/errors.js"
import * as HomeFolders from "../internal/homeFolders.js"
import * as Plan from "../internal/installPlan.js"
import * as McpServers from "../internal/mcpServers.js"
import * as OpencodePlugin from "../internal/opencodePlugin.js"
import * as Opt from "../internal/options.js"
import * as StoreFile from "../internal/storeFile.js"

const user = Options.boolean("user").pipe(
  Options.withDescription("change the user settings: ~/.claude/settings.json and ~/.claude.json (the default when --project is not given)")
)

const project = Options.boolean("project").pipe(
  Options.withDescription(
    "change the current folder's project settings instead: .claude/settings.json and .mcp.json (shared with " +
      "whoever uses the project; Claude Code asks before it starts a project's MCP server; their backups go to " +
      "~/.local/state/precis/backups, not into the project; default: off)"
  )
)

const dryRun = Options.boolean("dry-run").pipe(
  Options.withDescription("say what would change, write nothing (default: off)")
)

const commandOption = Options.text("command").pipe(
  Options.withPseudoName("COMMAND"),
  Options.optional,
  Options.withDescription(
    "how the agent runs precis, words split at spaces: precis (on the agent's PATH) or \"npx -y @precis/cli\", a " +
      "form that works on every machine (default: with --project, precis when it is on PATH; else this Node and " +
      "this precis by absolute path)"
  )
)

/** One file an agent set-up changes: how install and uninstall edit it, and what each says. */
interface Target {
  readonly file: string
  readonly install: (invocation: AgentCommand.Invocation) => Plan.Edit
  readonly uninstall: Plan.Edit
  readonly adds: string
  readonly removes: string
}

const serverTarget = (file: string, shape: McpServers.Shape): Target => ({
  file,
  install: (invocation) => Plan.jsonEdit((doc) => McpServers.add(doc, shape, invocation)),
  uninstall: Plan.jsonEdit((doc) => Either.right(McpServers.remove(doc, shape))),
  adds: `add the MCP server "${McpServers.serverName}"`,
  removes: "remove precis's MCP server"
})

const hookNamesOf = (set: Settings.HookSet) => set.specs.map((spec) => spec.event + (spec.matcher === undefined ? "" : ` (${spec.matcher})`))

const hookNames = hookNamesOf(Settings.claudeCodeHooks)

/** Claude Code's two files of a scope. */
const claudeTargets = (scope: { readonly user: boolean; readonly project: boolean }) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    if (scope.user && scope.project) return yield* new CliError({ reason: "--user and --project exclude each other" })
    const root = path.resolve(".")
    const hooks = scope.project ? path.join(root, ".claude", "settings.json") : path.join(yield* ClaudeCode.userDir, "settings.json")
    const servers = scope.project ? path.join(root, ".mcp.json") : path.join(yield* ClaudeCode.home, ".claude.json")
    const hookTarget: Target = {
      file: hooks,
      install: (invocation) => Plan.jsonEdit((doc) => Settings.addHooks(doc, AgentCommand.line(invocation, Settings.hookWords))),
      uninstall: Plan.jsonEdit((doc) => Either.right(Settings.removeHooks(doc))),
      adds: `add the hooks ${hookNames.join(", ")}`,
      removes: "remove precis's hooks"
    }
    return [hookTarget, serverTarget(servers, McpServers.claudeCode)]
  })

// The variables that name precis's folders (and its store, when no secret), as set now: Codex passes only a
// few of the environment's variables to an MCP server, so its table names them.
const codexEnv = Effect.gen(function*() {
  const env: Record<string, string> = {}
  for (const name of [ClaudeCode.storeVariable, "XDG_DATA_HOME", "XDG_CONFIG_HOME"]) {
    const value = yield* HomeFolders.variable(name)
    if (Option.isSome(value) && !StoreFile.holdsSecret(value.value)) env[name] = value.value
  }
  return env
})

const codexTarget = Effect.gen(function*() {
  const home = yield* AgentFolders.codexHome
  const env = yield* codexEnv
  return {
    file: `${home}/config.toml`,
    install: (invocation) => (text) => Either.map(Codex.add(text, invocation, env), Option.some),
    uninstall: (text) => Either.map(Codex.remove(text), (next) => (next.trim() === "" ? Option.none() : Option.some(next))),
    adds: `add the MCP server [mcp_servers.${McpServers.serverName}]`,
    removes: "remove precis's MCP server"
  } satisfies Target
})

interface InstallArgs {
  readonly db: Option.Option<string>
  readonly command: Option.Option<string>
  readonly dryRun: boolean
}

/** Plans every target's install, names a secret store in its file, writes, and says what it did. */
const install = (
  targets: ReadonlyArray<Target>,
  args: InstallArgs,
  options: { readonly project: boolean; readonly restart: string; readonly undo: string }
) =>
  Effect.gen(function*() {
    const invocation = yield* AgentCommand.make(args.db, args.command, options.project)
    const changes = yield* Effect.forEach(targets, (target) => Plan.plan(target.file, target.install(invocation), target.adds))
    const secret = Option.filter(args.db, StoreFile.holdsSecret)
    const named = Option.isSome(secret) && !args.dryRun ? Option.some(yield* StoreFile.write(secret.value)) : Option.none()
    yield* Plan.apply(changes, { dryRun: args.dryRun, backups: options.project ? Option.some(yield* AgentFolders.backupsDir) : Option.none() })
    const db = Redact.url(yield* ClaudeCode.storeOf(args.db))
    const where = Option.match(named, {
      onNone: () => Option.isSome(secret) ? " (with --dry-run, its URL is not written anywhere)" : "",
      onSome: (file) => ` (its URL, password included, is in ${file}, mode 600: no command line or settings file holds it)`
    })
    yield* Console.log(`store: ${db}${where}. ${options.restart} Undo with ${options.undo}.`)
    if (options.project && invocation.machineSpecific) {
      yield* Console.log(
        `note: ${targets.map((t) => t.file).join(" and ")} are files a team may commit, and they now name this machine's ` +
          `Node and precis (${invocation.words.join(" ")}); for a form that works on every machine, run this again with ` +
          "--command precis (precis on PATH) or --command \"npx -y @precis/cli\"."
      )
    }
  })

const uninstallFrom = (targets: ReadonlyArray<Target>, dryRun: boolean, project: boolean) =>
  Effect.gen(function*() {
    const changes = yield* Effect.forEach(targets, (target) => Plan.plan(target.file, target.uninstall, target.removes))
    yield* Plan.apply(changes, { dryRun, backups: project ? Option.some(yield* AgentFolders.backupsDir) : Option.none() })
    // The file naming a store with its password serves every agent's set-up: it stays, and is said.
    const named = yield* StoreFile.file
    const stays = yield* StoreFile.read.pipe(Effect.map(Option.isSome), Effect.orElseSucceed(() => true))
    if (Option.isSome(named) && stays) {
      yield* Console.log(
        `${named.value} still names the store (with its password) for the other agents' set-ups; remove it when none uses precis.`
      )
    }
  })

const restartClaude = "Start Claude Code again (or run /hooks and /mcp) for the change to take effect."

/** `precis install claude-code`. */
export const installClaudeCode = Command.make(
  "claude-code",
  { user, project, db: Opt.agentDb, command: commandOption, dryRun },
  (args) =>
    Effect.flatMap(claudeTargets(args), (targets) =>
      install(targets, args, {
        project: args.project,
        restart: restartClaude,
        undo: `precis uninstall claude-code${args.project ? " --project" : ""}`
      }))
).pipe(
  Command.withDescription(
    "Set up Claude Code to use precis: hooks (PreCompact and SessionEnd import the session's transcript and compact " +
      "it; SessionStart after a compaction or a resume gives back the session state) and the MCP server precis " +
      "mcp (search, expand, describe, read, context). Edits the settings that are there (comments, keys and " +
      "numbers stay as they are, a link stays a link), writes a backup of each file it changes first, and changes " +
      "nothing when run again."
  )
)

/** The `install` and `uninstall` subcommands of an agent whose set-up is an MCP server in one file. */
const serverAgent = (
  name: string,
  title: string,
  target: Effect.Effect<Target | ReadonlyArray<Target>, CliError>,
  restart: string,
  hooks = ""
) => {
  const targets = Effect.map(target, (t): ReadonlyArray<Target> => ("file" in t ? [t] : t))
  return {
    install: Command.make(name, { db: Opt.agentDb, command: commandOption, dryRun }, (args) =>
      Effect.flatMap(targets, (ts) => install(ts, args, { project: false, restart, undo: `precis uninstall ${name}` }))).pipe(
        Command.withDescription(
          `Set up ${title} to use precis: its MCP server precis mcp (search, expand, describe, read, context)${hooks}, merged ` +
            "into the settings that are there (comments and the user's keys stay), a backup first; changes nothing " +
            "when run again."
        )
      ),
    uninstall: Command.make(name, { dryRun }, (args) => Effect.flatMap(targets, (ts) => uninstallFrom(ts, args.dryRun, false))).pipe(
      Command.withDescription(`Take out of ${title}'s settings exactly what precis install ${name} added, a backup first.`)
    )
  }
}

// Codex's hooks go to hooks.json beside config.toml (Claude Code's shape); they run once [features] codex_hooks = true.
const codexHooksTarget = Effect.map(AgentFolders.codexHome, (home): Target => ({
  file: `${home}/hooks.json`,
  install: (invocation) =>
    Plan.jsonEdit((doc) => Settings.addHooks(doc, AgentCommand.line(invocation, AgentHooks.codexHooks.words), AgentHooks.codexHooks)),
  uninstall: Plan.jsonEdit((doc) => Either.right(Settings.removeHooks(doc, AgentHooks.codexHooks))),
  adds: `add the hooks ${hookNamesOf(AgentHooks.codexHooks).join(", ")}`,
  removes: "remove precis's hooks"
}))

const codex = serverAgent(
  "codex",
  "Codex CLI",
  Effect.all([codexTarget, codexHooksTarget]),
  "Start Codex again (see /mcp) for the change to take effect; its hooks run once config.toml has [features] " +
    "codex_hooks = true and you trust them (/hooks).",
  " and its hooks in hooks.json (PreCompact imports the rollout and compacts it; Stop imports; SessionStart gives back " +
    "the session state: precis hook codex)"
)
// Gemini CLI's settings.json holds both: the MCP server and the hooks (PreCompress, SessionStart on a resume, SessionEnd).
const geminiTarget = Effect.map(AgentFolders.geminiHome, (home): Target => ({
  file: `${home}/settings.json`,
  install: (invocation) =>
    Plan.jsonEdit((doc) =>
      Either.flatMap(
        McpServers.add(doc, McpServers.gemini, invocation),
        (next) => Settings.addHooks(next, AgentCommand.line(invocation, AgentHooks.geminiHooks.words), AgentHooks.geminiHooks)
      )
    ),
  uninstall: Plan.jsonEdit((doc) => Either.right(Settings.removeHooks(McpServers.remove(doc, McpServers.gemini), AgentHooks.geminiHooks))),
  adds: `add the MCP server "${McpServers.serverName}" and the hooks ${hookNamesOf(AgentHooks.geminiHooks).join(", ")}`,
  removes: "remove precis's MCP server and hooks"
}))

const gemini = serverAgent(
  "gemini",
  "Gemini CLI",
  geminiTarget,
  "Start Gemini CLI again (see /mcp and /hooks) for the change to take effect.",
  " and its hooks (PreCompress and SessionEnd import the chat and compact it; SessionStart on a resume gives back the " +
    "session state: precis hook gemini)"
)
// opencode has no hooks in its settings: precis's plugin, a file of its own, runs precis hook opencode.
const opencodeTargets = Effect.all([
  Effect.map(AgentFolders.opencodeConfig, (file) => serverTarget(file, McpServers.opencode)),
  Effect.map(OpencodePlugin.pluginFile, (file): Target => ({
    file,
    install: OpencodePlugin.install,
    uninstall: OpencodePlugin.uninstall,
    adds: "add precis's plugin (on session.idle and session.compacted: precis hook opencode)",
    removes: "remove precis's plugin"
  }))
])

const opencode = serverAgent(
  "opencode",
  "opencode",
  opencodeTargets,
  "Start opencode again for the change to take effect.",
  " and its plugin (plugins/precis.js: session.idle imports the session, session.compacted imports and compacts it: " +
    "precis hook opencode)"
)

/** `precis uninstall claude-code`. */
export const uninstallClaudeCode = Command.make(
  "claude-code",
  { user, project, dryRun },
  (args) => Effect.flatMap(claudeTargets(args), (targets) => uninstallFrom(targets, args.dryRun, args.project))
).pipe(
  Command.withDescription(
    "Take out of Claude Code's settings exactly what precis install claude-code added (its hooks and its MCP " +
      "server, even after you edited their arguments), leaving everything else as it is; a backup of each file " +
      "changed is written first. The store stays."
  )
)

/** One line for the root page and the README. */
export const summary = "Set up an agent to use precis: its MCP server and hooks (Claude Code, Codex, Gemini CLI) or plugin (opencode)"

/** The `install` command. */
export const command = Command.make("install").pipe(
  Command.withDescription("Set up an agent to use precis: precis install claude-code | codex | gemini | opencode."),
  Command.withSubcommands([installClaudeCode, codex.install, gemini.install, opencode.install]),
  reported
)

/** The `uninstall` command. */
export const uninstall = Command.make("uninstall").pipe(
  Command.withDescription("Undo precis install: precis uninstall claude-code | codex | gemini | opencode."),
  Command.withSubcommands([uninstallClaudeCode, codex.uninstall, gemini.uninstall, opencode.uninstall]),
  reported
)
