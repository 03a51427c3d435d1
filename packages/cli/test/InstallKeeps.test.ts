/**
 * `precis install` / `uninstall` keep what is the user's (issue 30 §4), by
 * class: a store's password is never printed, never on a command line and
 * never in a file others can read; links stay links; an entry of precis's the
 * user edited is still precis's; the text of a settings file is edited, not
 * re-serialised; `--project` says what it writes and keeps its backups out of
 * the project.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as ClaudeCode from "../src/internal/claudeCode.js"
import * as JsonDocument from "../src/internal/jsonDocument.js"
import { runCli, tempDir } from "./utils/run.js"
import * as ConfigProvider from "effect/ConfigProvider"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

let homes = 0
/** A fresh HOME with the given files (text as it is, objects as two-space JSON). */
const home = (files: Record<string, unknown> = {}) => {
  const root = path.join(dir, `home-${homes++}`)
  fs.mkdirSync(root, { recursive: true })
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`)
  }
  return root
}

const read = (file: string) => fs.readFileSync(file, "utf8")
const precis = (root: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  runCli(args, { env: { HOME: root, ...env } })

/** Every file under `root` (links not followed), relative. */
const filesUnder = (root: string): ReadonlyArray<string> =>
  fs.readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => fs.lstatSync(path.join(root, f)).isFile())

const agentFiles = {
  "claude-code": [".claude/settings.json", ".claude.json"],
  codex: [".codex/config.toml"],
  gemini: [".gemini/settings.json"],
  opencode: [".config/opencode/opencode.json"]
} as const

describe("a store's password", () => {
  const stores = [
    { url: "postgres://alice:S3cr%2Ft-pw@db.example:5432/precis?sslmode=require", secret: "S3cr%2Ft-pw", shown: "alice:***@db.example" },
    { url: "postgresql://bob@db.example/precis?password=Qz9-hidden&sslmode=disable", secret: "Qz9-hidden", shown: "password=***" }
  ]
  for (const store of stores) {
    for (const [agent, files] of Object.entries(agentFiles)) {
      it.live(`${agent}: is masked where printed, never written into a settings file or a command line (${store.shown})`, () =>
        Effect.gen(function*() {
          const root = home()
          const result = yield* precis(root, ["install", agent, "--db", store.url])
          assert.strictEqual(result.code, 0, result.stderr)
          expect(result.stdout + result.stderr).not.toContain(store.secret)
          expect(result.stdout).toContain(store.shown)
          for (const file of files) {
            const text = read(path.join(root, file))
            expect(text).not.toContain(store.secret)
            // Nothing names the store on a command line: no --db in any argument list or hook command.
            expect(text).not.toContain("--db")
          }
          const named = path.join(root, ".config", "precis", "store")
          assert.strictEqual(fs.statSync(named).mode & 0o777, 0o600)
          assert.strictEqual(fs.statSync(path.dirname(named)).mode & 0o777, 0o700)
          assert.strictEqual(read(named), `${store.url}\n`)
          // The only file holding the password is that one.
          const holding = filesUnder(root).filter((f) => read(path.join(root, f)).includes(store.secret))
          assert.deepStrictEqual(holding, [path.join(".config", "precis", "store")])
          // Uninstall takes out the settings' entries; the file stays (other agents may use it), and is said.
          const removed = yield* precis(root, ["uninstall", agent])
          expect(removed.stdout).toContain(`${named} still names the store`)
          expect(removed.stdout).not.toContain(store.secret)
        }))
    }
  }

  it.live("an older install's --db with the password is taken out of the hooks and the server when installed again", () =>
    Effect.gen(function*() {
      const url = stores[1]!.url
      const old = (extra: string) => `/usr/bin/node /old/precis.js hook claude-code --db '${url}'${extra}`
      const root = home({
        ".claude/settings.json": { hooks: { PreCompact: [{ hooks: [{ type: "command", command: old(" --deadline 9s"), timeout: 60 }] }] } },
        ".claude.json": { mcpServers: { precis: { type: "stdio", command: "/usr/bin/node", args: ["/old/precis.js", "mcp", "--db", url] } } }
      })
      const result = yield* precis(root, ["install", "claude-code", "--db", url])
      assert.strictEqual(result.code, 0, result.stderr)
      for (const file of [".claude/settings.json", ".claude.json"]) expect(read(path.join(root, file))).not.toContain(stores[1]!.secret)
      expect(read(path.join(root, ".claude/settings.json"))).toMatch(/ hook claude-code --deadline 9s"/)
    }))

  it.live("--dry-run prints it masked and writes it nowhere", () =>
    Effect.gen(function*() {
      const root = home()
      const result = yield* precis(root, ["install", "gemini", "--dry-run", "--db", stores[0]!.url])
      expect(result.stdout).not.toContain(stores[0]!.secret)
      expect(result.stdout).toContain("would add")
      assert.deepStrictEqual(filesUnder(root), [])
    }))

  it.effect("the hook and the MCP server find it in that file, and refuse the file when others can read it", () =>
    Effect.gen(function*() {
      const root = home({ ".config/precis/store": `${stores[0]!.url}\n` })
      const file = path.join(root, ".config", "precis", "store")
      fs.chmodSync(file, 0o600)
      const env = ConfigProvider.fromMap(new Map([["HOME", root]]))
      assert.strictEqual(yield* Effect.withConfigProvider(ClaudeCode.defaultStore, env), stores[0]!.url)
      // $PRECIS_CLAUDE_CODE_DB still comes first.
      const explicit = ConfigProvider.fromMap(new Map([["HOME", root], ["PRECIS_CLAUDE_CODE_DB", "/x.db"]]))
      assert.strictEqual(yield* Effect.withConfigProvider(ClaudeCode.defaultStore, explicit), "/x.db")
      fs.chmodSync(file, 0o644)
      const error = yield* Effect.flip(Effect.withConfigProvider(ClaudeCode.defaultStore, env))
      expect(error.reason).toMatch(/can be read by other users \(mode 644\).*chmod 600/)
      expect(error.reason).not.toContain(stores[0]!.secret)
    }))
})

describe("a settings file's permissions", () => {
  it.live("stay as they were through install and uninstall (600 stays 600, 640 stays 640)", () =>
    Effect.gen(function*() {
      const root = home({ ".claude.json": { numStartups: 1 }, ".claude/settings.json": { model: "opus" }, ".codex/config.toml": "" })
      const modes = { ".claude.json": 0o600, ".claude/settings.json": 0o640, ".codex/config.toml": 0o600 }
      for (const [file, mode] of Object.entries(modes)) fs.chmodSync(path.join(root, file), mode)
      for (const command of ["install", "uninstall"]) {
        for (const agent of ["claude-code", "codex"]) assert.strictEqual((yield* precis(root, [command, agent])).code, 0)
        for (const [file, mode] of Object.entries(modes).filter(([f]) => fs.existsSync(path.join(root, f)))) {
          assert.strictEqual(fs.statSync(path.join(root, file)).mode & 0o777, mode, `${command}: ${file}`)
        }
      }
    }))
})

describe("a settings file that is a symbolic link", () => {
  it.live("is written through: the link stays a link, its target gets the change, uninstall gives its bytes back", () =>
    Effect.gen(function*() {
      const original = "{\n  // my dotfiles\n  \"model\": \"opus\"\n}\n"
      const root = home({ "dotfiles/claude/settings.json": original, "dotfiles/claude.json": "{\"numStartups\": 3}\n" })
      fs.mkdirSync(path.join(root, ".claude"))
      // A relative link, and a link to a link.
      fs.symlinkSync("../dotfiles/claude/settings.json", path.join(root, ".claude", "settings.json"))
      fs.symlinkSync(path.join(root, "dotfiles", "claude.json"), path.join(root, "dotfiles", "link-of-claude.json"))
      fs.symlinkSync(path.join(root, "dotfiles", "link-of-claude.json"), path.join(root, ".claude.json"))
      const result = yield* precis(root, ["install", "claude-code"])
      assert.strictEqual(result.code, 0, result.stderr)
      for (const link of [".claude/settings.json", ".claude.json", "dotfiles/link-of-claude.json"]) {
        assert.isTrue(fs.lstatSync(path.join(root, link)).isSymbolicLink(), link)
      }
      expect(read(path.join(root, "dotfiles", "claude", "settings.json"))).toContain("hook claude-code")
      expect(read(path.join(root, "dotfiles", "claude.json"))).toContain("\"precis\"")
      // No backup lands in the dotfiles repository: it sits beside the name the user knows.
      assert.deepStrictEqual(filesUnder(path.join(root, "dotfiles")).filter((f) => f.includes("backup")), [])

      yield* precis(root, ["uninstall", "claude-code"])
      assert.isTrue(fs.lstatSync(path.join(root, ".claude", "settings.json")).isSymbolicLink())
      assert.strictEqual(read(path.join(root, "dotfiles", "claude", "settings.json")), original)
      assert.strictEqual(read(path.join(root, "dotfiles", "claude.json")), "{\"numStartups\": 3}\n")
    }))

  it.live("a link of every agent's settings stays a link", () =>
    Effect.gen(function*() {
      for (const [agent, files] of Object.entries(agentFiles).filter(([name]) => name !== "claude-code")) {
        const root = home({ [`dotfiles/${agent}`]: agent === "codex" ? "model = \"o3\"\n" : "{}\n" })
        const file = path.join(root, files[0]!)
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.symlinkSync(path.join(root, "dotfiles", agent), file)
        assert.strictEqual((yield* precis(root, ["install", agent])).code, 0)
        assert.isTrue(fs.lstatSync(file).isSymbolicLink(), agent)
        expect(read(path.join(root, "dotfiles", agent))).toContain("mcp")
      }
    }))
})

describe("an entry of precis's the user edited", () => {
  const hooksOf = (root: string) =>
    JsonDocument.parse(read(path.join(root, ".claude", "settings.json"))).pipe((e) => (e._tag === "Right" ? e.right.value.hooks : undefined)) as
      Record<string, ReadonlyArray<{ hooks: ReadonlyArray<{ command: string; timeout: number }> }>>

  it.live("is still precis's: install keeps the user's arguments and timeout and does not double it; uninstall takes it out", () =>
    Effect.gen(function*() {
      const root = home()
      yield* precis(root, ["install", "claude-code"])
      const file = path.join(root, ".claude", "settings.json")
      // The README's invitation: add --deadline; and a longer timeout; on SessionStart, precis run from PATH.
      const edited = read(file)
        .replace(/(hook claude-code)(",\s*"timeout": )60/, "$1 --deadline '30 seconds'$2120")
        .replace(/"command": "[^"]* hook claude-code",(\s*"timeout": 30)/, "\"command\": \"precis hook claude-code --verbose\",$1")
      assert.notStrictEqual(edited, read(file))
      fs.writeFileSync(file, edited)
      const again = yield* precis(root, ["install", "claude-code", "--db", path.join(root, "other.db")])
      assert.strictEqual(again.code, 0, again.stderr)
      const hooks = hooksOf(root)
      for (const event of ["PreCompact", "SessionStart", "SessionEnd"]) {
        assert.strictEqual(hooks[event]!.flatMap((g) => g.hooks).length, 1, event)
      }
      const preCompact = hooks.PreCompact![0]!.hooks[0]!
      expect(preCompact.command).toMatch(new RegExp(` hook claude-code --db \\S*other\\.db --deadline '30 seconds'$`))
      assert.strictEqual(preCompact.timeout, 120)
      expect(hooks.SessionStart![0]!.hooks[0]!.command).toMatch(/ hook claude-code --db \S*other\.db --verbose$/)

      yield* precis(root, ["uninstall", "claude-code"])
      assert.isFalse(fs.existsSync(file))
    }))

  it.live("two entries of precis's (an older set-up's double) become one; a server with added arguments is still precis's", () =>
    Effect.gen(function*() {
      const line = (extra: string) => ({ type: "command", command: `/usr/bin/node /old/precis.js hook claude-code${extra}` })
      const root = home({
        ".claude/settings.json": {
          hooks: { PreCompact: [{ hooks: [line(""), { type: "command", command: "echo mine" }] }, { hooks: [line(" --deadline 5s")] }] }
        },
        ".claude.json": { mcpServers: { precis: { command: "/old/node", args: ["/old/precis.js", "mcp", "--verbose"], env: { A: "1" } } } }
      })
      yield* precis(root, ["install", "claude-code"])
      const groups = hooksOf(root).PreCompact!
      assert.deepStrictEqual(groups.map((g) => g.hooks.map((h) => h.command.replace(/^.* hook/, "hook"))), [["hook claude-code", "echo mine"]])
      const server = JSON.parse(read(path.join(root, ".claude.json"))).mcpServers.precis
      assert.deepStrictEqual(server.args.slice(1), ["mcp", "--verbose"])
      assert.deepStrictEqual(server.env, { A: "1" })
      yield* precis(root, ["uninstall", "claude-code"])
      assert.isFalse(fs.existsSync(path.join(root, ".claude.json")))
      assert.deepStrictEqual(hooksOf(root).PreCompact!.map((g) => g.hooks.map((h) => h.command)), [["echo mine"]])
    }))
})

describe("a settings file's text", () => {
  const exotic = [
    "{",
    "  // Claude Code's own file, as a user might have it",
    "  \"numStartups\": 12345678901234567890,",
    "  \"huge\": 1e400, \"float\": 1.0, \"tiny\": -0.0e-0,",
    "  \"dup\": \"first\",",
    "  \"dup\": \"second\",",
    "  /* block */ \"zeta\": { \"b\": 1, \"a\": [1,2,3] },",
    "  \"mcpServers\": {",
    "    \"notes\": { \"command\": \"notes-mcp\" } // trailing",
    "  },",
    "  \"alpha\": \"\\u00e9\\/\",",
    "}",
    ""
  ].join("\n")

  it.live("keeps big and exotic numbers, duplicate keys, comments, escapes, key order and layout; uninstall gives the bytes back", () =>
    Effect.gen(function*() {
      const root = home({ ".claude.json": exotic, ".claude/settings.json": exotic.replace("mcpServers", "other") })
      const result = yield* precis(root, ["install", "claude-code"])
      assert.strictEqual(result.code, 0, result.stderr)
      for (const file of [".claude.json", ".claude/settings.json"]) {
        const after = read(path.join(root, file))
        const lines = exotic.split("\n").filter((l) => !l.includes("}") && !l.includes("notes") && !l.includes("mcpServers"))
        for (const kept of lines) expect(after).toContain(kept)
      }
      expect(read(path.join(root, ".claude.json"))).toMatch(/"notes": \{ "command": "notes-mcp" \},\n {4}"precis": \{\n {6}"type": "stdio"/)
      yield* precis(root, ["uninstall", "claude-code"])
      assert.strictEqual(read(path.join(root, ".claude.json")), exotic)
      assert.strictEqual(read(path.join(root, ".claude/settings.json")), exotic.replace("mcpServers", "other"))
    }))

  it.live("takes the file's indentation (tabs) and line endings (CRLF)", () =>
    Effect.gen(function*() {
      const original = "{\r\n\t\"model\": \"opus\"\r\n}\r\n"
      const root = home({ ".gemini/settings.json": original })
      yield* precis(root, ["install", "gemini"])
      const after = read(path.join(root, ".gemini", "settings.json"))
      expect(after).toMatch(/^\{\r\n\t"model": "opus",\r\n\t"mcpServers": \{\r\n\t\t"precis": \{\r\n\t\t\t"command"/)
      expect(after.replace(/\r\n/g, "")).not.toContain("\n")
      yield* precis(root, ["uninstall", "gemini"])
      assert.strictEqual(read(path.join(root, ".gemini", "settings.json")), original)
    }))
})

describe("install claude-code --project", () => {
  const project = (root: string) => {
    const dir = path.join(root, "repo")
    fs.mkdirSync(path.join(dir, ".claude"), { recursive: true })
    fs.writeFileSync(path.join(dir, ".mcp.json"), "{\n  \"mcpServers\": {}\n}\n")
    fs.writeFileSync(path.join(dir, ".claude", "settings.json"), "{\n  \"model\": \"opus\"\n}\n")
    return dir
  }
  const inDir = <A, E, R>(dir: string, self: Effect.Effect<A, E, R>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const cwd = process.cwd()
        process.chdir(dir)
        return cwd
      }),
      () => self,
      (cwd) => Effect.sync(() => process.chdir(cwd))
    )

  it.live("says the files name this machine's paths, offers --command, and keeps its backups out of the project", () =>
    Effect.gen(function*() {
      const root = home()
      const repo = project(root)
      const state = path.join(root, "state")
      const result = yield* inDir(repo, precis(root, ["install", "claude-code", "--project"], { XDG_STATE_HOME: state }))
      assert.strictEqual(result.code, 0, result.stderr)
      expect(result.stdout).toMatch(/note: .*\.claude\/settings\.json and .*\.mcp\.json are files a team may commit/)
      expect(result.stdout).toContain("--command precis")
      expect(read(path.join(repo, ".mcp.json"))).toContain(process.execPath)
      assert.deepStrictEqual(filesUnder(repo).filter((f) => f.includes("precis-backup")), [])
      const saved = filesUnder(path.join(state, "precis", "backups"))
      assert.strictEqual(saved.length, 2)
      expect(saved.join(" ")).toContain("repo__.mcp.json.precis-backup-")
    }))

  it.live("--command precis (or precis found on PATH) writes a form without this machine's paths, and no note", () =>
    Effect.gen(function*() {
      const root = home()
      const bin = path.join(root, "bin")
      fs.mkdirSync(bin)
      fs.writeFileSync(path.join(bin, "precis"), "#!/bin/sh\n", { mode: 0o755 })
      for (const [extra, env] of [[["--command", "npx -y @precis/cli"], {}], [[], { PATH: bin }]] as const) {
        const repo = project(home())
        const result = yield* inDir(repo, precis(root, ["install", "claude-code", "--project", ...extra], env))
        assert.strictEqual(result.code, 0, result.stderr)
        expect(result.stdout).not.toContain("note:")
        for (const file of [".mcp.json", ".claude/settings.json"]) {
          const text = read(path.join(repo, file))
          expect(text).not.toContain(process.execPath)
          expect(text).not.toContain(root)
        }
        const server = JSON.parse(read(path.join(repo, ".mcp.json"))).mcpServers.precis
        assert.deepStrictEqual(
          [server.command, ...server.args],
          extra.length > 0 ? ["npx", "-y", "@precis/cli", "mcp"] : ["precis", "mcp"]
        )
        expect(read(path.join(repo, ".claude", "settings.json"))).toContain(
          extra.length > 0 ? "\"npx -y @precis/cli hook claude-code\"" : "\"precis hook claude-code\""
        )
      }
    }))
})
