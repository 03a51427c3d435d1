/**
 * `precis install codex | gemini | opencode` and their `uninstall`, on a
 * temporary HOME whose settings hold comments and the user's own servers:
 * install adds precis's MCP server and leaves everything else as it was; a
 * second install changes nothing; uninstall gives the file back byte for
 * byte; `--dry-run` writes nothing; a server of precis's name that is
 * someone else's is refused. The MCP server written is then started as the
 * agent would start it.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Toml from "smol-toml"
import { afterAll } from "vitest"
import * as JsonDocument from "../src/internal/jsonDocument.js"
import { assertOneLineFailure, repoRoot, runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

let homes = 0
const home = (file: string, text: string) => {
  const root = path.join(dir, `home-${homes++}`)
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
  fs.writeFileSync(path.join(root, file), text)
  return root
}

const read = (file: string) => fs.readFileSync(file, "utf8")
const precis = (root: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  runCli(args, { env: { HOME: root, ...env } })
const json = (text: string) => {
  const doc = JsonDocument.parse(text)
  assert.isTrue(doc._tag === "Right", text)
  return (doc as { right: JsonDocument.Document }).right.value as Record<string, any>
}

/** Each agent: its file, a user's settings (comments, own servers), and what precis's entry is in the parsed file. */
const agents = [
  {
    name: "codex",
    file: ".codex/config.toml",
    text: [
      "# my Codex settings",
      "model = \"o3\"  # the default model",
      "approval_policy = \"on-request\"",
      "",
      "[mcp_servers.docs]",
      "command = \"npx\"",
      "args = [\"-y\", \"docs-mcp\"]   # pinned later",
      "",
      "[mcp_servers.docs.env]",
      "TOKEN_FILE = \"~/.docs\"",
      "",
      "[profiles.fast]",
      "model = \"o4-mini\"",
      ""
    ].join("\n"),
    parse: (text: string) => Toml.parse(text) as Record<string, any>,
    servers: (doc: Record<string, any>) => doc.mcp_servers,
    argsOf: (entry: any) => [entry.command, ...entry.args]
  },
  {
    name: "gemini",
    file: ".gemini/settings.json",
    text: [
      "{",
      "  // Gemini CLI settings",
      "  \"general\": { \"vimMode\": true },",
      "  \"mcpServers\": {",
      "    /* my own */ \"docs\": { \"command\": \"npx\", \"args\": [\"-y\", \"docs-mcp\"], \"timeout\": 30000 },",
      "  },",
      "}",
      ""
    ].join("\n"),
    parse: json,
    servers: (doc: Record<string, any>) => doc.mcpServers,
    argsOf: (entry: any) => [entry.command, ...entry.args]
  },
  {
    name: "opencode",
    file: ".config/opencode/opencode.json",
    text: [
      "{",
      "  \"$schema\": \"https://opencode.ai/config.json\",",
      "  // my servers",
      "  \"mcp\": {",
      "    \"docs\": {",
      "      \"type\": \"local\",",
      "      \"command\": [\"npx\", \"-y\", \"docs-mcp\"],",
      "      \"enabled\": true",
      "    }",
      "  },",
      "  \"theme\": \"opencode\"",
      "}",
      ""
    ].join("\n"),
    parse: json,
    servers: (doc: Record<string, any>) => doc.mcp,
    argsOf: (entry: any) => entry.command
  }
] as const

describe("precis install AGENT", () => {
  for (const agent of agents) {
    it.live(`${agent.name}: adds precis's server and nothing else; again changes nothing; uninstall gives the bytes back`, () =>
      Effect.gen(function*() {
        const root = home(agent.file, agent.text)
        const file = path.join(root, agent.file)
        const before = agent.parse(agent.text)
        const installed = yield* precis(root, ["install", agent.name])
        assert.strictEqual(installed.code, 0, installed.stderr)
        expect(installed.stdout).toContain(`${file}: add the MCP server`)
        const after = read(file)
        // Every line of the user's is still there, in order, and every setting parses to the same value.
        let at = 0
        for (const line of agent.text.split("\n").filter((l) => l.trim() !== "" && !/^\s*\}?,?$/.test(l))) {
          const found = after.indexOf(line, at)
          assert.isAtLeast(found, 0, `kept: ${line}`)
          at = found + line.length
        }
        const parsed = agent.parse(after)
        const { precis: ours, ...others } = agent.servers(parsed)
        assert.deepStrictEqual(others, agent.servers(before))
        assert.deepStrictEqual(agent.argsOf(ours).slice(-1), ["mcp"])
        assert.strictEqual(agent.argsOf(ours)[0], process.execPath)
        if (agent.name === "opencode") assert.deepStrictEqual([ours.type, ours.enabled], ["local", true])
        const backups = fs.readdirSync(path.dirname(file)).filter((f) => f.includes(".precis-backup-"))
        assert.deepStrictEqual(backups.map((f) => read(path.join(path.dirname(file), f))), [agent.text])

        const again = yield* precis(root, ["install", agent.name])
        expect(again.stdout).toContain(`${file}: nothing to change`)
        assert.strictEqual(read(file), after)

        const dry = yield* precis(root, ["uninstall", agent.name, "--dry-run"])
        expect(dry.stdout).toContain(`${file}: would remove precis's MCP server`)
        assert.strictEqual(read(file), after)

        const removed = yield* precis(root, ["uninstall", agent.name])
        assert.strictEqual(removed.code, 0, removed.stderr)
        assert.strictEqual(read(file), agent.text)
        expect((yield* precis(root, ["uninstall", agent.name])).stdout).toContain("nothing to change")
      }))

    it.live(`${agent.name}: on a HOME without the file, install then uninstall leaves none; --dry-run writes nothing`, () =>
      Effect.gen(function*() {
        const root = home("empty", "")
        const file = path.join(root, agent.file)
        // Nothing to take out of a file that is not there: it stays not there.
        expect((yield* precis(root, ["uninstall", agent.name])).stdout).toContain(`${file}: nothing to change`)
        assert.isFalse(fs.existsSync(file))
        const dry = yield* precis(root, ["install", agent.name, "--dry-run"])
        expect(dry.stdout).toContain(`${file}: would add the MCP server`)
        assert.isFalse(fs.existsSync(file))
        yield* precis(root, ["install", agent.name])
        assert.isTrue(agent.argsOf(agent.servers(agent.parse(read(file))).precis).includes("mcp"))
        yield* precis(root, ["uninstall", agent.name])
        assert.isFalse(fs.existsSync(file))
      }))
  }

  it.live("a server named precis that is someone else's, or a file that does not parse, is refused and left as it is", () =>
    Effect.gen(function*() {
      const cases = [
        { agent: "codex", file: ".codex/config.toml", text: "[mcp_servers.precis]\ncommand = \"other\"\n", error: /did not write/ },
        { agent: "codex", file: ".codex/config.toml", text: "model = \n", error: /not valid TOML \(line 1/ },
        {
          agent: "codex",
          file: ".codex/config.toml",
          text: "mcp_servers.precis = { command = \"node\", args = [\"p.js\", \"mcp\"] }\n",
          error: /written inline or as dotted keys/
        },
        { agent: "gemini", file: ".gemini/settings.json", text: "{ \"mcpServers\": { \"precis\": { \"command\": \"x\" } } }", error: /did not write/ },
        { agent: "gemini", file: ".gemini/settings.json", text: "{ \"mcpServers\": [] }", error: /"mcpServers" is not an object/ },
        { agent: "opencode", file: ".config/opencode/opencode.json", text: "{ \"mcp\": ", error: /not valid JSON \(line 1/ }
      ]
      for (const c of cases) {
        const root = home(c.file, c.text)
        assertOneLineFailure(yield* precis(root, ["install", c.agent]), c.error)
        assert.strictEqual(read(path.join(root, c.file)), c.text)
      }
    }))

  it.live("Codex: $CODEX_HOME is followed, and a changed set-up rewrites precis's table only, keeping the user's keys in it", () =>
    Effect.gen(function*() {
      const root = home("codex-home/config.toml", "model = \"o3\"\n")
      const codexHome = path.join(root, "codex-home")
      yield* precis(root, ["install", "codex"], { CODEX_HOME: codexHome })
      const file = path.join(codexHome, "config.toml")
      const edited = `${read(file)}startup_timeout_sec = 30\n\n[mcp_servers.precis.env]\nA = "1"\n\n[after]\nx = 1\n`
      fs.writeFileSync(file, edited)
      yield* precis(root, ["install", "codex", "--command", "precis"], { CODEX_HOME: codexHome })
      const parsed = Toml.parse(read(file)) as Record<string, any>
      assert.deepStrictEqual(parsed.mcp_servers.precis, { command: "precis", args: ["mcp"], startup_timeout_sec: 30, env: { A: "1" } })
      assert.deepStrictEqual(parsed.after, { x: 1 })
      expect(read(file)).toMatch(/^model = "o3"\n\n\[mcp_servers\.precis\]\n/)
      yield* precis(root, ["uninstall", "codex"], { CODEX_HOME: codexHome })
      assert.deepStrictEqual(Toml.parse(read(file)), { model: "o3", after: { x: 1 } })
    }))

  it.live("Codex: the variables naming precis's folders and store, set now, go into the table's env (Codex passes few on); a secret never", () =>
    Effect.gen(function*() {
      const root = home(".codex/config.toml", "")
      const env = { XDG_DATA_HOME: path.join(root, "data"), XDG_CONFIG_HOME: path.join(root, "config") }
      yield* precis(root, ["install", "codex"], { ...env, PRECIS_CLAUDE_CODE_DB: "postgres://u:Zq7-secret@db/p" })
      const file = path.join(root, ".codex", "config.toml")
      expect(read(file)).not.toContain("Zq7-secret")
      assert.deepStrictEqual((Toml.parse(read(file)) as Record<string, any>).mcp_servers.precis.env, env)
      const again = yield* precis(root, ["install", "codex"], { ...env, PRECIS_CLAUDE_CODE_DB: "postgres://u:Zq7-secret@db/p" })
      expect(again.stdout).toContain("nothing to change")
      yield* precis(root, ["install", "codex"], { PRECIS_CLAUDE_CODE_DB: "/srv/precis.db" })
      assert.deepStrictEqual((Toml.parse(read(file)) as Record<string, any>).mcp_servers.precis.env, {
        ...env,
        PRECIS_CLAUDE_CODE_DB: "/srv/precis.db"
      })
      yield* precis(root, ["uninstall", "codex"])
      assert.isFalse(fs.existsSync(file))
    }))

  it.live("opencode: an opencode.jsonc is edited when it is the only one", () =>
    Effect.gen(function*() {
      const text = "{\n  // jsonc\n  \"theme\": \"x\",\n}\n"
      const root = home(".config/opencode/opencode.jsonc", text)
      yield* precis(root, ["install", "opencode"])
      assert.isFalse(fs.existsSync(path.join(root, ".config", "opencode", "opencode.json")))
      expect(read(path.join(root, ".config", "opencode", "opencode.jsonc"))).toContain("\"precis\"")
      yield* precis(root, ["uninstall", "opencode"])
      assert.strictEqual(read(path.join(root, ".config", "opencode", "opencode.jsonc")), text)
    }))
})

describe("the MCP server written for an agent, started as the agent starts it", () => {
  const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")

  it("answers a tool call (Codex's table, Gemini's and opencode's entries)", async () => {
    for (const agent of agents) {
      const root = home(agent.file, agent.text)
      execFileSync(process.execPath, [bin, "install", agent.name], { env: { PATH: process.env.PATH ?? "", HOME: root } })
      const entry = agent.servers(agent.parse(read(path.join(root, agent.file)))).precis
      const [command, ...args] = agent.argsOf(entry) as ReadonlyArray<string>
      const transport = new StdioClientTransport({ command: command!, args, env: { HOME: root }, stderr: "ignore" })
      const client = new Client({ name: "precis-test", version: "1.0.0" })
      await client.connect(transport)
      try {
        const tools = await client.listTools()
        expect(tools.tools.map((t) => t.name)).toContain("search")
      } finally {
        await client.close()
      }
    }
  }, 120_000)
})
