/**
 * What `precis install claude-code` adds to Claude Code's settings and what
 * `precis uninstall claude-code` takes out, as pure functions over the parsed
 * JSON, so the files' other content is left exactly as it was.
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
 * precis's entries are known by what they run (a command ending in `hook
 * claude-code [--db …]`, an MCP server named `precis` whose arguments hold `mcp`),
 * not by a marker: Claude Code checks its settings files against a schema,
 * and an unknown key could make it reject the file.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { serverName } from "./claudeCode.js"

/** A JSON object as parsed. */
export type Json = { readonly [key: string]: unknown }

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
 * gives back the session state, at a start or a `/clear` the project's digest.
 */
export const hookSpecs: ReadonlyArray<HookSpec> = [
  { event: "PreCompact", timeout: 60 },
  { event: "SessionStart", matcher: "startup|clear|compact|resume", timeout: 30 },
  { event: "SessionEnd", timeout: 60 }
]

/** How a hook command runs precis: it ends in `hook claude-code`, then `--db FILE` when one was given. */
const HOOK_COMMAND = /(^|\s)hook claude-code( --db .+)?$/

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Whether a hook handler is precis's. */
export const isOurHandler = (handler: unknown): boolean =>
  isObject(handler) && handler.type === "command" && typeof handler.command === "string" &&
  HOOK_COMMAND.test(handler.command)

/** Whether the entry of precis's name in `mcpServers` is precis's: a stdio server run with `mcp`. */
export const isOurServer = (server: unknown): boolean =>
  isObject(server) && Array.isArray(server.args) && server.args.includes("mcp")

/** A matcher group of precis's hook. */
const groupOf = (spec: HookSpec, command: string): Json => ({
  ...(spec.matcher === undefined ? {} : { matcher: spec.matcher }),
  hooks: [{ type: "command", command, timeout: spec.timeout }]
})

/** Whether a matcher group holds a handler of precis's. */
const hasOurs = (group: unknown): boolean =>
  isObject(group) && Array.isArray(group.hooks) && group.hooks.some(isOurHandler)

/** The groups of an event with precis's handlers taken out (a group left empty goes). */
const withoutOurs = (groups: ReadonlyArray<unknown>): ReadonlyArray<unknown> =>
  groups.flatMap((group) => {
    if (!hasOurs(group)) return [group]
    const hooks = (group as { readonly hooks: ReadonlyArray<unknown> }).hooks.filter((handler) => !isOurHandler(handler))
    return hooks.length === 0 ? [] : [{ ...(group as Json), hooks }]
  })

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** A settings file precis cannot merge into: `reason` says what is in the way. */
export class SettingsShapeError extends Data.TaggedError("SettingsShapeError")<{ readonly reason: string }> {}

/**
 * `settings` with precis's hooks (running `command`): each event holds
 * exactly one group of precis's, its handler the one given. An event that
 * already holds it, alone of precis's, is left as it is; a handler of an
 * older set-up is replaced. Everything else stays where it was.
 */
export const addHooks = (settings: Json, command: string): Either.Either<Json, SettingsShapeError> => {
  const hooks = settings.hooks ?? {}
  if (!isObject(hooks)) return Either.left(new SettingsShapeError({ reason: "\"hooks\" is not an object" }))
  const next: Record<string, unknown> = { ...hooks }
  for (const spec of hookSpecs) {
    const groups = hooks[spec.event] ?? []
    if (!Array.isArray(groups)) return Either.left(new SettingsShapeError({ reason: `"hooks.${spec.event}" is not a list` }))
    const group = groupOf(spec, command)
    const ours = groups.filter(hasOurs)
    if (ours.length === 1 && sameJson(ours[0], group)) continue
    next[spec.event] = [...withoutOurs(groups), group]
  }
  return Either.right({ ...settings, hooks: next })
}

/**
 * `settings` without any hook handler of precis's: a group left empty goes,
 * then an event left empty, then `hooks` when nothing is left in it.
 */
export const removeHooks = (settings: Json): Json => {
  const hooks = settings.hooks
  if (!isObject(hooks)) return settings
  let changed = false
  const next: Record<string, unknown> = {}
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups) || !groups.some(hasOurs)) {
      next[event] = groups
      continue
    }
    changed = true
    const kept = withoutOurs(groups)
    if (kept.length > 0) next[event] = kept
  }
  if (!changed) return settings
  const { hooks: _, ...rest } = settings
  return Object.keys(next).length === 0 ? rest : { ...settings, hooks: next }
}

/** precis's MCP server entry (a stdio server: Claude Code starts `command args`). */
export const serverEntry = (command: string, args: ReadonlyArray<string>): Json => ({
  type: "stdio",
  command,
  args,
  env: {}
})

/**
 * `config` with precis's MCP server (`mcpServers.precis`), replacing one of an
 * older set-up; fails when a server of that name is someone else's.
 */
export const addServer = (config: Json, entry: Json): Either.Either<Json, SettingsShapeError> => {
  const servers = config.mcpServers ?? {}
  if (!isObject(servers)) return Either.left(new SettingsShapeError({ reason: "\"mcpServers\" is not an object" }))
  const current = servers[serverName]
  if (current !== undefined && !isOurServer(current)) {
    return Either.left(
      new SettingsShapeError({ reason: `it already has an MCP server named "${serverName}" that precis did not write` })
    )
  }
  if (sameJson(current, entry)) return Either.right(config)
  return Either.right({ ...config, mcpServers: { ...servers, [serverName]: entry } })
}

/** `config` without precis's MCP server (and without `mcpServers` when nothing is left in it). */
export const removeServer = (config: Json): Json => {
  const servers = config.mcpServers
  if (!isObject(servers) || !isOurServer(servers[serverName])) return config
  const { [serverName]: _, ...others } = servers
  const { mcpServers: __, ...rest } = config
  return Object.keys(others).length === 0 ? rest : { ...config, mcpServers: others }
}

/** Whether two settings objects are the same JSON. */
export const unchanged = sameJson

/**
 * A word as a POSIX shell reads it: as it is when it holds only safe
 * characters, else in single quotes (a quote inside as `'\''`).
 */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
