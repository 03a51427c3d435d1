/**
 * precis's MCP server in an agent's JSON settings (Claude Code's
 * `~/.claude.json` and `.mcp.json`, Gemini CLI's `settings.json`, opencode's
 * `opencode.json`): one entry named `precis` in the agent's table of
 * servers, edited in the document (`jsonDocument.ts`). An entry of that name
 * is precis's when the command it runs has the word `mcp` (the subcommand),
 * whatever else the user added (a new install keeps the words added after
 * `mcp`, and the keys the user added or changed but the command); one that does not is someone else's, and
 * precis leaves it (and the file) alone.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as AgentCommand from "./agentCommand.js"
import { serverEntry, SettingsShapeError } from "./claudeSettings.js"
import * as JsonDocument from "./jsonDocument.js"

/** The name precis's MCP server has in every agent (Claude Code's tools are `mcp__precis__search`, ...). */
export const serverName = "precis"

/** An agent's way of listing MCP servers. */
export interface Shape {
  /** The key of the table of servers at the top of the settings (`mcpServers`, `mcp`). */
  readonly table: string
  /** The entry that runs `precis mcp` as `invocation` says. */
  readonly entry: (invocation: AgentCommand.Invocation) => JsonDocument.Json
  /** The key of the entry's list holding the `mcp` word (`args`, or opencode's `command`). */
  readonly argsKey: string
}

/** Claude Code's `mcpServers` (`~/.claude.json`, `.mcp.json`): `{ type: "stdio", command, args, env }`. */
export const claudeCode: Shape = { table: "mcpServers", entry: serverEntry, argsKey: "args" }

/**
 * Gemini CLI's `mcpServers` in `settings.json`: `{ command, args }` (also `env`, `cwd`, `timeout`, `trust`,
 * `includeTools`, …; google-gemini/gemini-cli `docs/tools/mcp-server.md`).
 */
export const gemini: Shape = {
  table: "mcpServers",
  entry: (invocation) => ({ command: invocation.words[0], args: AgentCommand.argsOf(invocation, ["mcp"]) }),
  argsKey: "args"
}

/**
 * opencode's `mcp` in `opencode.json`: `{ type: "local", command: [program, ...args], enabled }` (also
 * `environment`, `timeout`; opencode.ai/docs/mcp-servers).
 */
export const opencode: Shape = {
  table: "mcp",
  entry: (invocation) => ({
    type: "local",
    command: [invocation.words[0], ...AgentCommand.argsOf(invocation, ["mcp"])],
    enabled: true
  }),
  argsKey: "command"
}

const argsIn = (shape: Shape, entry: unknown): ReadonlyArray<unknown> | undefined => {
  const args = JsonDocument.isObject(entry) ? entry[shape.argsKey] : undefined
  return Array.isArray(args) ? args : undefined
}

/** Whether an entry is precis's: its command has the word `mcp`. */
export const isOurs = (shape: Shape, entry: unknown): boolean => argsIn(shape, entry)?.includes("mcp") === true

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * The document with precis's server: added when missing; when there, each
 * key precis writes brought up to date (the words the user added after `mcp`
 * and the keys the user added kept); refused when the name is someone else's.
 */
export const add = (
  doc: JsonDocument.Document,
  shape: Shape,
  invocation: AgentCommand.Invocation
): Either.Either<JsonDocument.Document, SettingsShapeError> => {
  const table = doc.value[shape.table]
  if (table !== undefined && !JsonDocument.isObject(table)) {
    return Either.left(new SettingsShapeError({ reason: `"${shape.table}" is not an object` }))
  }
  const entry = shape.entry(invocation)
  const current = JsonDocument.isObject(table) ? table[serverName] : undefined
  if (current === undefined) return Either.right(JsonDocument.set(doc, [shape.table, serverName], entry))
  if (!JsonDocument.isObject(current) || !isOurs(shape, current)) {
    return Either.left(
      new SettingsShapeError({ reason: `it already has an MCP server named "${serverName}" that precis did not write` })
    )
  }
  let next = doc
  for (const [key, value] of Object.entries(entry)) {
    // What runs precis is brought up to date; a key precis writes that the user set otherwise (env) stays theirs.
    const wanted = key === shape.argsKey
      ? AgentCommand.carryArgs(argsIn(shape, current) ?? [], value as ReadonlyArray<string>, "mcp")
      : key === "command" || current[key] === undefined
      ? value
      : current[key]
    if (!same(current[key], wanted)) next = JsonDocument.set(next, [shape.table, serverName, key], wanted)
  }
  return Either.right(next)
}

/** The document without precis's server (and without the table when nothing is left in it). */
export const remove = (doc: JsonDocument.Document, shape: Shape): JsonDocument.Document => {
  const table = doc.value[shape.table]
  if (!JsonDocument.isObject(table) || !isOurs(shape, table[serverName])) return doc
  return Object.keys(table).length === 1
    ? JsonDocument.set(doc, [shape.table], undefined)
    : JsonDocument.set(doc, [shape.table, serverName], undefined)
}
