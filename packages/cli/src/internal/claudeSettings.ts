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

/** One hook precis installs: its event, matcher and timeout (in the agent's unit: seconds for Claude Code). */
export interface HookSpec {
  readonly event: string
  readonly matcher?: string
  readonly timeout: number
}

/**
 * The hooks precis installs in an agent whose settings hold them as Claude
 * Code's do (`hooks.<Event>`: groups `{ matcher?, hooks: [{ type: "command",
 * command, timeout }] }`; Gemini CLI's too): the specs, and the subcommand
 * its handlers run, which marks them as precis's.
 */
export interface HookSet {
  readonly specs: ReadonlyArray<HookSpec>
  readonly words: readonly [string, string]
}

/**
 * The hooks precis installs: `PreCompact` (any trigger) and `SessionEnd`
 * import and compact within their deadline (`timeout` leaves a margin over
 * the hook's default 45 s); `SessionStart` after a compaction or a resume
 * gives back the session state, at a start or a `/clear` the project's digest.
 */
export const hookSpecs: ReadonlyArray<HookSpec> = [
  { event: "PreCompact", timeout: 60 },
  { event: "SessionStart", matcher: "startup|clear|compact|resume", timeout: 30 },
  { event: "SessionEnd", timeout: 60 }
]

/** The subcommand a hook runs: the marker of precis's hooks. */
export const hookWords = ["hook", "claude-code"] as const

/** Claude Code's hooks of precis. */
export const claudeCodeHooks: HookSet = { specs: hookSpecs, words: hookWords }

const isObject = JsonDocument.isObject

/** Whether a hook handler is precis's: a command running `… hook claude-code …` (the set's words). */
export const isOurHandler = (handler: unknown, set: HookSet = claudeCodeHooks): boolean =>
  isObject(handler) && handler.type === "command" && typeof handler.command === "string" &&
  handler.command.split(/\s+/).some((word, i, words) => word === set.words[0] && words[i + 1] === set.words[1])

/** A settings file precis cannot merge into: `reason` says what is in the way. */
export class SettingsShapeError extends Data.TaggedError("SettingsShapeError")<{ readonly reason: string }> {}

/** Where precis's handlers sit in an event's groups: `[group, handler]` index pairs, in order. */
const oursIn = (groups: ReadonlyArray<unknown>, set: HookSet): ReadonlyArray<readonly [number, number]> =>
  groups.flatMap((group, g) =>
    isObject(group) && Array.isArray(group.hooks)
      ? group.hooks.flatMap((handler, h) => (isOurHandler(handler, set) ? [[g, h] as const] : []))
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
export const addHooks = (
  doc: JsonDocument.Document,
  command: string,
  set: HookSet = claudeCodeHooks
): Either.Either<JsonDocument.Document, SettingsShapeError> => {
  const hooks = doc.value.hooks
  if (hooks !== undefined && !isObject(hooks)) return Either.left(new SettingsShapeError({ reason: "\"hooks\" is not an object" }))
  const marker = ` ${set.words.join(" ")}`
  let next = doc
  for (const spec of set.specs) {
    const groups = isObject(hooks) ? hooks[spec.event] ?? [] : []
    if (!Array.isArray(groups)) return Either.left(new SettingsShapeError({ reason: `"hooks.${spec.event}" is not a list` }))
    const [first, ...doubles] = oursIn(groups, set)
    if (first === undefined) {
      const group = { ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }), hooks: [{ type: "command", command, timeout: spec.timeout }] }
      next = JsonDocument.set(next, ["hooks", spec.event, -1], group)
      continue
    }
    for (const double of [...doubles].reverse()) next = removeHandler(next, spec.event, double)
    const installed = ((groups[first[0]] as JsonDocument.Json).hooks as ReadonlyArray<JsonDocument.Json>)[first[1]]!.command as string
    const wanted = AgentCommand.carryLine(installed, command, marker)
    if (wanted !== installed) next = JsonDocument.set(next, ["hooks", spec.event, first[0], "hooks", first[1], "command"], wanted)
  }
  return Either.right(next)
}

/** The document without any hook handler of precis's (a group, event or `hooks` left empty goes too). */
export const removeHooks = (doc: JsonDocument.Document, set: HookSet = claudeCodeHooks): JsonDocument.Document => {
  const hooks = doc.value.hooks
  if (!isObject(hooks)) return doc
  let next = doc
  for (const event of Object.keys(hooks)) {
    for (const at of [...oursIn(groupsOf(next, event), set)].reverse()) next = removeHandler(next, event, at)
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
