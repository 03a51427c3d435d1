/**
 * precis's MCP server in Codex CLI's `config.toml` (`$CODEX_HOME`, else
 * `~/.codex`): the table `[mcp_servers.precis]` with `command` and `args`
 * (Codex's configuration reference, `docs/config.md` of openai/codex:
 * `[mcp_servers.NAME]` holds `command`, `args`, `env`, `startup_timeout_sec`,
 * `tool_timeout_sec`, `enabled`). No kept TOML library both edits and keeps
 * a file's comments, so precis edits the text of its own table only (its
 * header to the next table that is not one of its subtables), appended at
 * the end when missing, and parses the whole result with `smol-toml` to
 * check that it holds what was meant; everything outside the table stays
 * byte for byte. A `precis` server written inline or as dotted keys is
 * refused rather than guessed at.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Toml from "smol-toml"
import * as AgentCommand from "./agentCommand.js"
import { serverName } from "./mcpServers.js"

/** The table's dotted name. */
const TABLE = `mcp_servers.${serverName}`

/** A parsed TOML document, or the one-line reason it is not one. */
const parse = (text: string): Either.Either<Toml.TomlTable, string> => {
  try {
    return Either.right(Toml.parse(text))
  } catch (error) {
    const line = error instanceof Toml.TomlError ? ` (line ${error.line}: ${error.message.split("\n")[0]})` : ""
    return Either.left(`not valid TOML${line}`)
  }
}

const isTable = (value: unknown): value is Toml.TomlTable =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)

/** precis's entry in the parsed file, if any. */
const entryIn = (doc: Toml.TomlTable): unknown => {
  const servers = doc.mcp_servers
  return isTable(servers) ? servers[serverName] : undefined
}

/** A table header's dotted name with spaces and needless quotes taken out; none for a line that is no header. */
const headerOf = (line: string): string | undefined => {
  const match = /^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$/.exec(line)
  return match?.[1]?.replace(/\s+/g, "").replace(/"([\w-]+)"|'([\w-]+)'/g, "$1$2")
}

/** The lines of precis's table: `[start, end)`; none when the file has no such header. */
const regionOf = (lines: ReadonlyArray<string>): readonly [number, number] | undefined => {
  const start = lines.findIndex((line) => headerOf(line) === TABLE)
  if (start < 0) return undefined
  let end = start + 1
  while (end < lines.length) {
    const header = headerOf(lines[end]!)
    if (header !== undefined && header !== TABLE && !header.startsWith(`${TABLE}.`)) break
    end++
  }
  return [start, end]
}

/** The table's text: its header, `command` and `args`, then the user's other keys and subtables. */
const block = (command: string, args: ReadonlyArray<unknown>, others: Toml.TomlTable): Array<string> => [
  ...Toml.stringify({ mcp_servers: { [serverName]: { command, args, ...others } } }).trimEnd().split("\n"),
  ""
]

const eolOf = (text: string) => (text.includes("\r\n") ? "\r\n" : "\n")

/** Checks that `text` is TOML whose precis entry is `wanted` (none: no entry). */
const verified = (text: string, check: (entry: unknown) => boolean): Either.Either<string, string> =>
  Either.flatMap(parse(text), (doc) =>
    check(entryIn(doc)) ? Either.right(text) : Either.left(`precis could not edit its [${TABLE}] table as meant`))

/**
 * The text with precis's table running `precis mcp` as `invocation` says,
 * with `env` (the variables naming precis's folders, which Codex does not
 * pass on to an MCP server unless told): appended when missing; when there
 * (and precis's: its `args` hold `mcp`), `command`, `args` and those
 * variables brought up to date, the user's added words and keys kept.
 */
export const add = (
  text: string,
  invocation: AgentCommand.Invocation,
  env: Readonly<Record<string, string>>
): Either.Either<string, string> =>
  Either.flatMap(parse(text), (doc) => {
    const command = invocation.words[0] ?? "precis"
    const fresh = AgentCommand.argsOf(invocation, ["mcp"])
    const current = entryIn(doc)
    const eol = eolOf(text)
    const lines = text.split(/\r?\n/)
    const region = regionOf(lines)
    const ours = Object.keys(env).length === 0 ? {} : { env }
    if (current === undefined) {
      const body = block(command, fresh, ours).join(eol)
      const joined = text.length === 0 ? body : `${text}${text.endsWith("\n") ? "" : eol}${eol}${body}`
      return verified(joined, (entry) => isTable(entry) && entry.command === command)
    }
    if (!isTable(current) || !Array.isArray(current.args) || !current.args.includes("mcp")) {
      return Either.left(`it already has an MCP server named "${serverName}" that precis did not write`)
    }
    if (region === undefined) {
      return Either.left(`its [${TABLE}] is written inline or as dotted keys; precis edits it only as a table of its own`)
    }
    const args = AgentCommand.carryArgs(current.args, fresh, "mcp")
    const { command: _, args: __, ...others } = current
    const theirs = isTable(others.env) ? others.env : {}
    const merged = { ...others, ...(Object.keys(env).length === 0 ? {} : { env: { ...theirs, ...env } }) }
    const same = current.command === command && JSON.stringify(current.args) === JSON.stringify(args) &&
      JSON.stringify(merged) === JSON.stringify(others)
    if (same) return Either.right(text)
    const next = [...lines.slice(0, region[0]), ...block(command, args, merged), ...lines.slice(region[1])]
    const joined = next.join(eol).replace(/(\r?\n)+$/, eol)
    return verified(joined, (entry) => isTable(entry) && JSON.stringify(entry.args) === JSON.stringify(args))
  })

/** The text without precis's table (with the blank line before it that `add` wrote), when it is precis's. */
export const remove = (text: string): Either.Either<string, string> =>
  Either.flatMap(parse(text), (doc) => {
    const current = entryIn(doc)
    if (!isTable(current) || !Array.isArray(current.args) || !current.args.includes("mcp")) return Either.right(text)
    const lines = text.split(/\r?\n/)
    const region = regionOf(lines)
    if (region === undefined) {
      return Either.left(`its [${TABLE}] is written inline or as dotted keys; precis edits it only as a table of its own`)
    }
    const atEnd = lines.slice(region[1]).every((line) => line.trim() === "")
    const start = atEnd && region[0] > 0 && lines[region[0] - 1]!.trim() === "" ? region[0] - 1 : region[0]
    const kept = [...lines.slice(0, start), ...lines.slice(region[1])]
    const eol = eolOf(text)
    const joined = atEnd ? (start === 0 ? "" : `${kept.slice(0, start).join(eol)}${eol}`) : kept.join(eol)
    return verified(joined, (entry) => entry === undefined)
  })
