/**
 * What `precis install claude-code` adds to Claude Code's settings and what
 * `precis uninstall claude-code` takes out, as edits of the settings
 * documents (`jsonDocument.ts`), so the files' other content is left exactly
 * as it was.
 *
 * Where Claude Code reads them (its settings and MCP documentation,
 * docs.anthropic.com/en/docs/claude-code/settings and .../mcp; `claude mcp add
 * --scope user|project` writes the same places):
 * - hooks: `~/.claude/settings.json` (user) or `.claude/settings.json` (project),
 *   under `hooks.<Event>`, a list of `{ matcher?, hooks: [{ type: "command", command, timeout }] }`;
 * - MCP servers: `~/.claude.json` (user scope: its top-level `mcpServers`) or
 *   `.mcp.json` at the project root (project scope); an `mcpServers` key in
 *   `settings.json` is not read.
 *
 * precis's hook is known by the words `hook claude-code` in its command,
 * which stay whatever arguments the user adds after them or however precis
 * is run, not by a key of its own: Claude Code checks its settings files
 * against a schema, and an unknown key could make it reject the file.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as AgentCommand from "./agentCommand.js"
import * as JsonDocument from "./jsonDocument.js"

/** One hook precis installs: its event, matcher and timeout in seconds. */
export interface HookSpec {
  readonly event: string
  readonly matcher?: string
  readonly timeout: number
}

/**
 * The hooks precis installs: `PreCompact` (any trigger) and `SessionEnd`
 * import and compact within their deadline (`timeout` leaves a margin over
 * the hook's default 45 s); `SessionStart` after a compaction or a resume
 * gives back the session state.
 */
export const hookSpecs: ReadonlyArray<HookSpec> = [
  { event: "PreCompact", timeout: 60 },
  { event: "SessionStart", matcher: "compact|resume", timeout: 30 },
  { event: "SessionEnd", timeout: 60 }
]

/** The subcommand a hook runs: the marker of precis's hooks. */
export const hookWords = ["hook", "claude-code"] as const

const MARKER = " hook claude-code"

const isObject = JsonDocument.isObject

/** Whether a hook handler is precis's: a command running `… hook claude-code …`. */
export const isOurHandler = (handler: unknown): boolean =>
  isObject(handler) && handler.type === "command" && typeof handler.command === "string" &&
  /(^|\s)hook claude-code(\s|$)/.test(handler.command)

/** A settings file precis cannot merge into: `reason` says what is in the way. */
export class SettingsShapeError extends Data.TaggedError("SettingsShapeError")<{ readonly reason: string }> {}

/** Where precis's handlers sit in an event's groups: `[group, handler]` index pairs, in order. */
const oursIn = (groups: ReadonlyArray<unknown>): ReadonlyArray<readonly [number, number]> =>
  groups.flatMap((group, g) =>
    isObject(group) && Array.isArray(group.hooks)
      ? group.hooks.flatMap((handler, h) => (isOurHandler(handler) ? [[g, h] as const] : []))
      : []
  )

const groupsOf = (doc: JsonDocument.Document, event: string): ReadonlyArray<unknown> => {
  const hooks = doc.value.hooks
  const groups = isObject(hooks) ? hooks[event] : undefined
  return Array.isArray(groups) ? groups : []
}

/** The document without one handler: its group goes when left empty, then its event, then `hooks`. */
const removeHandler = (doc: JsonDocument.Document, event: string, [g, h]: readonly [number, number]) => {
  const groups = groupsOf(doc, event)
  const handlers = (groups[g] as { readonly hooks: ReadonlyArray<unknown> }).hooks
  if (handlers.length > 1) return JsonDocument.set(doc, ["hooks", event, g, "hooks", h], undefined)
  if (groups.length > 1) return JsonDocument.set(doc, ["hooks", event, g], undefined)
  if (Object.keys(doc.value.hooks as JsonDocument.Json).length > 1) return JsonDocument.set(doc, ["hooks", event], undefined)
  return JsonDocument.set(doc, ["hooks"], undefined)
}

/**
 * The document with precis's hooks running `command` (a shell line ending
 * in `hook claude-code [--db …]`): an event without one gets a group of
 * its own after the user's; an event with one keeps it where it is, its
 * command brought up to date with what the user added after `hook
 * claude-code` kept (and its timeout, matcher and other keys as they are);
 * a second one (an older set-up's double) is taken out.
 */
export const addHooks = (doc: JsonDocument.Document, command: string): Either.Either<JsonDocument.Document, SettingsShapeError> => {
  const hooks = doc.value.hooks
  if (hooks !== undefined && !isObject(hooks)) return Either.left(new SettingsShapeError({ reason: "\"hooks\" is not an object" }))
  let next = doc
  for (const spec of hookSpecs) {
    const groups = isObject(hooks) ? hooks[spec.event] ?? [] : []
    if (!Array.isArray(groups)) return Either.left(new SettingsShapeError({ reason: `"hooks.${spec.event}" is not a list` }))
    const [first, ...doubles] = oursIn(groups)
    if (first === undefined) {
      const group = { ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }), hooks: [{ type: "command", command, timeout: spec.timeout }] }
      next = JsonDocument.set(next, ["hooks", spec.event, -1], group)
      continue
    }
    for (const double of [...doubles].reverse()) next = removeHandler(next, spec.event, double)
    const installed = ((groups[first[0]] as JsonDocument.Json).hooks as ReadonlyArray<JsonDocument.Json>)[first[1]]!.command as string
    const wanted = AgentCommand.carryLine(installed, command, MARKER)
    if (wanted !== installed) next = JsonDocument.set(next, ["hooks", spec.event, first[0], "hooks", first[1], "command"], wanted)
  }
  return Either.right(next)
}

/** The document without any hook handler of precis's (a group, event or `hooks` left empty goes too). */
export const removeHooks = (doc: JsonDocument.Document): JsonDocument.Document => {
  const hooks = doc.value.hooks
  if (!isObject(hooks)) return doc
  let next = doc
  for (const event of Object.keys(hooks)) {
    for (const at of [...oursIn(groupsOf(next, event))].reverse()) next = removeHandler(next, event, at)
  }
  return next
}

/** precis's MCP server entry (a stdio server: Claude Code starts `command args`). */
export const serverEntry = (invocation: AgentCommand.Invocation): JsonDocument.Json => ({
  type: "stdio",
  command: invocation.words[0],
  args: AgentCommand.argsOf(invocation, ["mcp"]),
  env: {}
})
