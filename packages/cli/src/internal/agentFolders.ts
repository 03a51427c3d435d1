/**
 * Where each coding agent keeps its settings and its sessions' transcripts:
 * the one table `precis install` (which settings file) and `precis watch`
 * with no path (which folders) read; and where precis keeps the backups of
 * a project's settings files (its state folder, out of the project).
 *
 * - Claude Code: `~/.claude/projects` (a folder per project of JSONL sessions);
 *   its settings are `claudeSettings.ts`'s.
 * - Codex CLI: `$CODEX_HOME`, else `~/.codex`: `config.toml`, sessions under
 *   `sessions/YYYY/MM/DD/rollout-*.jsonl` (openai/codex `docs/config.md`).
 * - Gemini CLI: `~/.gemini`: `settings.json`, chats under
 *   `tmp/<project hash>/chats/session-*.json` (google-gemini/gemini-cli
 *   `docs/cli/configuration.md`).
 * - opencode: its config folder `$XDG_CONFIG_HOME/opencode`, else
 *   `~/.config/opencode` (`opencode.json` or `opencode.jsonc`), its data
 *   `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`, sessions under
 *   `storage/` (opencode.ai/docs/config, its `global` module's xdg paths).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as ClaudeCode from "./claudeCode.js"
import type { CliError } from "./errors.js"
import * as HomeFolders from "./homeFolders.js"

/** `$variable`, else `$HOME/...fallback`; fails without either. */
const under = (variable: string, ...fallback: ReadonlyArray<string>) =>
  Effect.flatMap(HomeFolders.under(variable, ...fallback), Option.match({
    onNone: () => ClaudeCode.home,
    onSome: Effect.succeed
  }))

/** Where precis keeps its backups of a project's files: `$XDG_STATE_HOME/precis/backups`, else under `~/.local/state`. */
export const backupsDir: Effect.Effect<string, CliError> = Effect.map(
  under("XDG_STATE_HOME", ".local", "state"),
  (state) => path.join(state, "precis", "backups")
)

/** Codex CLI's folder: `$CODEX_HOME`, else `~/.codex`. */
export const codexHome: Effect.Effect<string, CliError> = under("CODEX_HOME", ".codex")

/** Gemini CLI's folder: `~/.gemini`. */
export const geminiHome: Effect.Effect<string, CliError> = Effect.map(ClaudeCode.home, (home) => path.join(home, ".gemini"))

/** opencode's config folder: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export const opencodeDir: Effect.Effect<string, CliError> = Effect.map(under("XDG_CONFIG_HOME", ".config"), (dir) => path.join(dir, "opencode"))

/** opencode's storage folder: `$XDG_DATA_HOME/opencode/storage`, else under `~/.local/share`. */
export const opencodeStorage: Effect.Effect<string, CliError> = Effect.map(
  under("XDG_DATA_HOME", ".local", "share"),
  (dir) => path.join(dir, "opencode", "storage")
)

/** opencode's settings file: `opencode.jsonc` when only it exists, else `opencode.json`, in its config folder. */
export const opencodeConfig: Effect.Effect<string, CliError> = Effect.gen(function*() {
  const dir = yield* opencodeDir
  const json = path.join(dir, "opencode.json")
  const jsonc = path.join(dir, "opencode.jsonc")
  const exists = (file: string) => Effect.promise(() => fsp.access(file).then(() => true, () => false))
  return !(yield* exists(json)) && (yield* exists(jsonc)) ? jsonc : json
})

/** A folder where an agent writes its sessions. */
export interface TranscriptFolder {
  readonly agent: string
  readonly path: string
}

/** Each agent's folder of sessions, whether it exists or not, in this order. */
export const transcriptFolders: Effect.Effect<ReadonlyArray<TranscriptFolder>, CliError> = Effect.gen(function*() {
  return [
    { agent: "Claude Code", path: yield* ClaudeCode.projectsDir },
    { agent: "Codex", path: path.join(yield* codexHome, "sessions") },
    { agent: "Gemini CLI", path: path.join(yield* geminiHome, "tmp") },
    { agent: "opencode", path: yield* opencodeStorage }
  ]
})

/** The agents' folders of sessions that exist (as directories). */
export const existingTranscriptFolders: Effect.Effect<ReadonlyArray<TranscriptFolder>, CliError> = Effect.flatMap(
  transcriptFolders,
  (folders) =>
    Effect.filter(folders, (folder) => Effect.promise(() => fsp.stat(folder.path).then((s) => s.isDirectory(), () => false)))
)
