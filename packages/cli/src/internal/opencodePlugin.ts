/**
 * opencode's side of `precis hook opencode` and `precis install opencode`.
 *
 * opencode has no hooks in its settings; it loads plugins, JavaScript
 * modules in `~/.config/opencode/plugins/` (`.opencode/plugins/` for a
 * project), each export a function returning handlers, `event` getting every
 * bus event (opencode.ai/docs/plugins): `session.idle` when the agent has
 * answered, `session.compacted` after opencode compacted a session, each with
 * `properties.sessionID`. precis's plugin, `plugins/precis.js` (a file of its
 * own: installed whole, taken out whole, known by its first line), runs
 * `precis hook opencode` on those two events with `{ hook_event_name,
 * session_id }` on stdin, in the background: opencode does not wait for it.
 *
 * The hook reads the session from opencode's storage
 * (`storage/session/<project>/<session id>.json`, its messages and parts
 * beside: `opencodeStorage.ts` of `@precis/importers`) into the session of
 * that id, as `precis watch` names it: `session.idle` imports (Claude Code's
 * `Stop`), `session.compacted` imports and compacts (its `PreCompact`).
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as path from "node:path"
import * as AgentCommand from "./agentCommand.js"
import * as AgentFolders from "./agentFolders.js"
import type { HookInput } from "./claudeCode.js"
import type { CliError } from "./errors.js"
import type * as Plan from "./installPlan.js"

/** The words of the hook's command: the marker of precis's plugin too. */
export const hookWords = ["hook", "opencode"] as const

/** The first line of precis's plugin file: what tells it from someone else's. */
const MARKER = "// precis: written by `precis install opencode`, taken out by `precis uninstall opencode`."

/** Where precis's plugin goes: `plugins/precis.js` in opencode's config folder. */
export const pluginFile: Effect.Effect<string, CliError> = Effect.map(AgentFolders.opencodeDir, (dir) => path.join(dir, "plugins", "precis.js"))

/** The plugin running `invocation`'s `precis hook opencode` on `session.idle` and `session.compacted`. */
export const source = (invocation: AgentCommand.Invocation): string =>
  [
    MARKER,
    "// On session.idle (an answer done) and session.compacted, precis imports the session from opencode's storage.",
    "import { spawn } from \"node:child_process\"",
    "",
    `const COMMAND = ${JSON.stringify([invocation.words[0] ?? "precis", ...AgentCommand.argsOf(invocation, hookWords)])}`,
    "",
    "export const Precis = async () => ({",
    "  event: async ({ event }) => {",
    "    if (event.type !== \"session.idle\" && event.type !== \"session.compacted\") return",
    "    const sessionID = event.properties?.sessionID",
    "    if (typeof sessionID !== \"string\") return",
    "    const child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: [\"pipe\", \"ignore\", \"ignore\"], detached: true })",
    "    child.on(\"error\", () => {})",
    "    child.stdin.on(\"error\", () => {})",
    "    child.stdin.end(JSON.stringify({ hook_event_name: event.type, session_id: sessionID }))",
    "    child.unref()",
    "  }",
    "})",
    ""
  ].join("\n")

const isOurs = (text: string): boolean => text.startsWith(MARKER)

/** The plugin file written (or brought up to date); someone else's `precis.js` is refused. */
export const install = (invocation: AgentCommand.Invocation): Plan.Edit => (text) =>
  text.length === 0 || isOurs(text)
    ? Either.right(Option.some(source(invocation)))
    : Either.left("it is not precis's plugin (its first line is not precis's)")

/** The plugin file taken out when it is precis's; anything else left as it is. */
export const uninstall: Plan.Edit = (text) => Either.right(isOurs(text) ? Option.none() : Option.some(text))

/**
 * The Claude Code hook input standing for the plugin's: `session.idle` as
 * `Stop` (import), `session.compacted` as `PreCompact` (import and compact),
 * the transcript the session's file in opencode's storage (none when it is
 * not there: nothing to import).
 */
export const asClaudeCodeInput = (input: HookInput): Effect.Effect<HookInput, CliError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const event = input.hook_event_name === "session.idle"
      ? "Stop"
      : input.hook_event_name === "session.compacted"
      ? "PreCompact"
      : input.hook_event_name
    // A session id is a file name in the storage, never a path.
    if (!/^[\w-]+$/.test(input.session_id)) return { ...input, hook_event_name: event, transcript_path: undefined }
    const fs = yield* FileSystem.FileSystem
    const sessions = path.join(yield* AgentFolders.opencodeStorage, "session")
    const projects = yield* fs.readDirectory(sessions).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
    const file = yield* Effect.findFirst(
      projects.map((project) => path.join(sessions, project, `${input.session_id}.json`)),
      (candidate) => fs.exists(candidate).pipe(Effect.orElseSucceed(() => false))
    )
    return { ...input, hook_event_name: event, transcript_path: Option.getOrUndefined(file) }
  })
