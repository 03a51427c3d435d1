/**
 * Gemini CLI's side of `precis hook gemini` and `precis install gemini`.
 *
 * The contract (google-gemini/gemini-cli `docs/hooks/reference.md`): hooks
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
 * header. The session is named after the chat's file, as `precis watch`
 * names it, so that the hook and `watch` fill the same session.
 *
 * @internal
 */
import { Importer } from "@precis/importers"
import type { HookInput } from "./claudeCode.js"
import type { HookSet } from "./claudeSettings.js"

/** The hooks `precis install gemini` adds (timeouts in milliseconds, as Gemini CLI counts them). */
export const hooks: HookSet = {
  specs: [
    { event: "PreCompress", timeout: 60_000 },
    { event: "SessionStart", matcher: "resume", timeout: 30_000 },
    { event: "SessionEnd", timeout: 60_000 }
  ],
  words: ["hook", "gemini"]
}

/**
 * The Claude Code hook input standing for a Gemini CLI one: `PreCompress` as
 * `PreCompact`, a `SessionStart` other than a resume as nothing to do, the
 * session named after the chat's file.
 */
export const asClaudeCodeInput = (input: HookInput): HookInput => {
  const transcript = input.transcript_path
  const session = transcript === undefined || transcript.length === 0 ? input.session_id : Importer.sessionIdFromPath(transcript)
  const event = input.hook_event_name === "PreCompress" ? "PreCompact" : input.hook_event_name
  return {
    ...input,
    hook_event_name: event,
    session_id: session,
    source: event === "SessionStart" && input.source === "resume" ? "resume" : undefined
  }
}
