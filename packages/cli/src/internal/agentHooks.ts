/**
 * The hooks of the agents whose hook input is Claude Code's (`session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`, `source`, ...): what `precis
 * install` registers for each, and the Claude Code input that stands for
 * theirs, so that `precis hook AGENT` does what `precis hook claude-code`
 * does. Their sessions are named after the transcript's file, as `precis
 * watch` names them, so that a hook and `watch` fill the same session.
 *
 * Codex CLI (developers.openai.com/codex/hooks): hooks sit in
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
 *
 * Gemini CLI (google-gemini/gemini-cli `docs/hooks/reference.md`): hooks
 * sit in `settings.json` under `hooks.<Event>`, a list of `{ matcher?,
 * hooks: [{ type: "command", command, timeout (milliseconds) }] }` (the
 * shape of Claude Code's); a hook gets one JSON object on stdin with
 * `session_id`, `transcript_path` (the chat, `chats/session-*.json`), `cwd`,
 * `hook_event_name` and `timestamp`, plus `source` (`startup` | `resume` |
 * `clear`) for `SessionStart`, `reason` for `SessionEnd` and `trigger`
 * (`auto` | `manual`) for `PreCompress`. Its stdout must be JSON only;
 * `SessionStart` adds `hookSpecificOutput.additionalContext` as Claude Code's
 * does; `PreCompress` and `SessionEnd` are advisory (not waited for).
 *
 * So precis runs there as it runs for Claude Code: `PreCompress` as
 * `PreCompact` (import and compact before Gemini CLI compresses the chat),
 * `SessionEnd` the same, `SessionStart` on a resume the session-state
 * header.
 *
 * @internal
 */
import { Importer } from "@precis/importers"
import type { HookInput } from "./claudeCode.js"
import type { HookSet } from "./claudeSettings.js"

/** The hooks `precis install codex` adds to `hooks.json` (timeouts in seconds). */
export const codexHooks: HookSet = {
  specs: [
    { event: "PreCompact", timeout: 60 },
    { event: "SessionStart", matcher: "startup|clear|compact|resume", timeout: 30 },
    { event: "Stop", timeout: 30 }
  ],
  words: ["hook", "codex"]
}

/** The hooks `precis install gemini` adds (timeouts in milliseconds, as Gemini CLI counts them). */
export const geminiHooks: HookSet = {
  specs: [
    { event: "PreCompress", timeout: 60_000 },
    { event: "SessionStart", matcher: "resume", timeout: 30_000 },
    { event: "SessionEnd", timeout: 60_000 }
  ],
  words: ["hook", "gemini"]
}

/** The input with its session named after the transcript's file (as given when there is no transcript). */
export const namedAfterTranscript = (input: HookInput): HookInput => {
  const transcript = input.transcript_path
  return transcript === undefined || transcript.length === 0 ? input : { ...input, session_id: Importer.sessionIdFromPath(transcript) }
}

/**
 * The Claude Code hook input standing for a Gemini CLI one: `PreCompress` as
 * `PreCompact`, a `SessionStart` other than a resume as nothing to do, the
 * session named after the chat's file.
 */
export const fromGemini = (input: HookInput): HookInput => {
  const event = input.hook_event_name === "PreCompress" ? "PreCompact" : input.hook_event_name
  return {
    ...namedAfterTranscript(input),
    hook_event_name: event,
    source: event === "SessionStart" && input.source === "resume" ? "resume" : undefined
  }
}
