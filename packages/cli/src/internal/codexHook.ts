/**
 * Codex CLI's side of `precis hook codex` and `precis install codex`.
 *
 * The contract (developers.openai.com/codex/hooks): hooks sit in
 * `~/.codex/hooks.json` (or inline `[hooks]` tables of `config.toml`) in
 * Claude Code's shape, `hooks.<Event>`: groups `{ matcher?, hooks: [{ type:
 * "command", command, timeout (seconds) }] }`; they run once the feature
 * flag `[features] codex_hooks = true` is set in `config.toml` and the user
 * trusts them. A hook gets one JSON object on stdin with `session_id`,
 * `transcript_path` (the rollout, `sessions/YYYY/MM/DD/rollout-*.jsonl`),
 * `cwd`, `hook_event_name` and `model`, plus `source` (`startup` | `resume` |
 * `clear` | `compact`) for `SessionStart`; events are `SessionStart`,
 * `PreCompact`, `PostCompact`, `UserPromptSubmit`, `PreToolUse`,
 * `PostToolUse`, `Stop`, ... (no `SessionEnd`).
 *
 * So precis runs there as it runs for Claude Code: `PreCompact` imports and
 * compacts, `Stop` (a turn done) imports, `SessionStart` gives back the
 * session state (after a compaction or a resume) or the project's digest.
 * The session is named after the rollout's file, as `precis watch` names it.
 *
 * @internal
 */
import { Importer } from "@precis/importers"
import type { HookInput } from "./claudeCode.js"
import type { HookSet } from "./claudeSettings.js"

/** The hooks `precis install codex` adds to `hooks.json` (timeouts in seconds). */
export const hooks: HookSet = {
  specs: [
    { event: "PreCompact", timeout: 60 },
    { event: "SessionStart", matcher: "startup|clear|compact|resume", timeout: 30 },
    { event: "Stop", timeout: 30 }
  ],
  words: ["hook", "codex"]
}

/** The Claude Code hook input standing for a Codex one: the same events, the session named after the rollout's file. */
export const asClaudeCodeInput = (input: HookInput): HookInput => {
  const transcript = input.transcript_path
  return transcript === undefined || transcript.length === 0
    ? input
    : { ...input, session_id: Importer.sessionIdFromPath(transcript) }
}
