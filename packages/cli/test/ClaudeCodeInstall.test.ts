/**
 * `precis install claude-code` and `precis uninstall claude-code` on a
 * temporary HOME: in-process for the merge rules (never clobber, back up,
 * idempotent, remove exactly what was added, refuse what cannot be merged),
 * then through the real bin: the hook command and the MCP server it writes
 * are run as Claude Code would run them.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as AgentCommand from "../src/internal/agentCommand.js"
import * as Settings from "../src/internal/claudeSettings.js"
import { assertOneLineFailure, repoRoot, runCli, sessionJsonl, tempDir } from "./utils/run.js"

/** A Claude Code transcript of `count` lines: `sessionJsonl`'s turns as user and assistant lines. */
const claudeCodeJsonl = (count: number): string =>
  sessionJsonl(count).trimEnd().split("\n").map((line) => {
    const turn = JSON.parse(line) as { id: string; role: string; timestamp: string; content: string }
    return JSON.stringify({
      type: turn.role,
      uuid: `00000000-0000-4000-8000-${turn.id.slice(1).padStart(12, "0")}`,
      timestamp: turn.timestamp,
      cwd: "/src/app",
      message: { role: turn.role, content: turn.content }
    })
  }).join("\n") + "\n"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

let homes = 0
/** A fresh HOME with the given files (paths relative to it). */
const home = (files: Record<string, unknown> = {}) => {
  const root = path.join(dir, `home-${homes++}`)
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`)
  }
  fs.mkdirSync(root, { recursive: true })
  return root
}

const settingsOf = (root: string) => path.join(root, ".claude", "settings.json")
const configOf = (root: string) => path.join(root, ".claude.json")
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, any>
const backups = (root: string) =>
  [root, path.join(root, ".claude")].flatMap((d) =>
    fs.existsSync(d) ? fs.readdirSync(d).filter((f) => f.includes(".precis-backup-")).map((f) => path.join(d, f)) : []
  )

const precis = (root: string, args: ReadonlyArray<string>) => runCli(args, { env: { HOME: root } })

/** What a user already has: hooks of their own (one on an event precis uses), other settings, other servers. */
const existing = {
  ".claude/settings.json": {
    model: "opus",
    permissions: { allow: ["Bash(npm test)"] },
    hooks: {
      PreCompact: [{ hooks: [{ type: "command", command: "cp \"$CLAUDE_PROJECT_DIR/notes.md\" /tmp" }] }],
      PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "npx prettier --write" }] }]
    }
  },
  ".claude.json": { numStartups: 12, projects: { "/src/app": { allowedTools: [] } }, mcpServers: { notes: { command: "notes-mcp" } } }
}

describe("precis install claude-code", () => {
  it.live("merges the hooks and the server into what is there, backs it up, and a second run changes nothing", () =>
    Effect.gen(function*() {
      const root = home(existing)
      const before = { settings: fs.readFileSync(settingsOf(root), "utf8"), config: fs.readFileSync(configOf(root), "utf8") }
      const result = yield* precis(root, ["install", "claude-code"])
      assert.strictEqual(result.code, 0, result.stderr)
      expect(result.stdout).toContain(`store: ${path.join(root, ".local", "share", "precis", "claude-code.db")}`)

      const settings = readJson(settingsOf(root))
      assert.strictEqual(settings.model, "opus")
      assert.deepStrictEqual(settings.permissions, existing[".claude/settings.json"].permissions)
      assert.deepStrictEqual(settings.hooks.PostToolUse, existing[".claude/settings.json"].hooks.PostToolUse)
      // The user's PreCompact hook stays first; precis's group comes after it.
      assert.deepStrictEqual(settings.hooks.PreCompact[0], existing[".claude/settings.json"].hooks.PreCompact[0])
      const ours = (event: string) => settings.hooks[event].at(-1)
      for (const event of ["PreCompact", "SessionStart", "SessionEnd"]) {
        const handler = ours(event).hooks[0]
        assert.strictEqual(handler.type, "command")
        expect(handler.command).toMatch(/ hook claude-code$/)
        assert.isTrue(Settings.isOurHandler(handler))
      }
      assert.strictEqual(ours("SessionStart").matcher, "compact|resume")
      assert.deepStrictEqual(settings.hooks.PreCompact[1].hooks[0].timeout, 60)

      const config = readJson(configOf(root))
      assert.strictEqual(config.numStartups, 12)
      assert.deepStrictEqual(config.projects, existing[".claude.json"].projects)
      assert.deepStrictEqual(config.mcpServers.notes, { command: "notes-mcp" })
      const server = config.mcpServers.precis
      assert.deepStrictEqual([server.type, server.command, server.args.slice(1)], ["stdio", process.execPath, ["mcp"]])

      // Each file's old bytes are in its backup.
      const saved = backups(root).sort()
      assert.strictEqual(saved.length, 2)
      assert.deepStrictEqual(saved.map((file) => fs.readFileSync(file, "utf8")).sort(), [before.config, before.settings].sort())

      // Idempotent: nothing changes, no new backup.
      const after = { settings: fs.readFileSync(settingsOf(root), "utf8"), config: fs.readFileSync(configOf(root), "utf8") }
      const again = yield* precis(root, ["install", "claude-code"])
      expect(again.stdout).toContain(`${settingsOf(root)}: nothing to change`)
      expect(again.stdout).toContain(`${configOf(root)}: nothing to change`)
      assert.deepStrictEqual(
        { settings: fs.readFileSync(settingsOf(root), "utf8"), config: fs.readFileSync(configOf(root), "utf8") },
        after
      )
      assert.strictEqual(backups(root).length, 2)
    }))

  it.live("uninstall takes out exactly what install added", () =>
    Effect.gen(function*() {
      const root = home(existing)
      yield* precis(root, ["install", "claude-code", "--db", path.join(root, "mine.db")])
      const result = yield* precis(root, ["uninstall", "claude-code"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(readJson(settingsOf(root)), existing[".claude/settings.json"])
      assert.deepStrictEqual(readJson(configOf(root)), existing[".claude.json"])
      const again = yield* precis(root, ["uninstall", "claude-code"])
      expect(again.stdout).toContain("nothing to change")

      // On a HOME that had nothing, install then uninstall leaves nothing (but the backups).
      const empty = home()
      yield* precis(empty, ["install", "claude-code"])
      assert.isTrue(fs.existsSync(settingsOf(empty)))
      yield* precis(empty, ["uninstall", "claude-code"])
      assert.isFalse(fs.existsSync(settingsOf(empty)))
      assert.isFalse(fs.existsSync(configOf(empty)))
    }))

  it.live("--db goes into the hook command and the server's arguments, as an absolute path", () =>
    Effect.gen(function*() {
      const root = home()
      yield* precis(root, ["install", "claude-code", "--db", "relative.db"])
      const absolute = path.resolve("relative.db")
      const handler = readJson(settingsOf(root)).hooks.SessionEnd[0].hooks[0]
      expect(handler.command).toMatch(new RegExp(` hook claude-code --db ${AgentCommand.shellWord(absolute).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`))
      assert.deepStrictEqual(readJson(configOf(root)).mcpServers.precis.args.slice(1), ["mcp", "--db", absolute])
      // Installing again without --db replaces precis's entries, leaving one of each.
      yield* precis(root, ["install", "claude-code"])
      const hooks = readJson(settingsOf(root)).hooks
      assert.deepStrictEqual(Object.values(hooks).map((groups: any) => groups.length), [1, 1, 1])
      expect(hooks.SessionEnd[0].hooks[0].command).toMatch(/ hook claude-code$/)
    }))

  it.live("--dry-run says what would change and writes nothing", () =>
    Effect.gen(function*() {
      const root = home(existing)
      const before = fs.readFileSync(settingsOf(root), "utf8")
      const result = yield* precis(root, ["install", "claude-code", "--dry-run"])
      expect(result.stdout).toContain(`${settingsOf(root)}: would add the hooks PreCompact, SessionStart (compact|resume), SessionEnd`)
      expect(result.stdout).toContain(`${configOf(root)}: would add the MCP server "precis"`)
      assert.strictEqual(fs.readFileSync(settingsOf(root), "utf8"), before)
      assert.deepStrictEqual(backups(root), [])
    }))

  it.live("a file it cannot merge into is refused before anything is written", () =>
    Effect.gen(function*() {
      const broken = home({ ".claude.json": "{ \"numStartups\": 3, ", ".claude/settings.json": { model: "opus" } })
      assertOneLineFailure(yield* precis(broken, ["install", "claude-code"]), /\.claude\.json: not valid JSON/)
      assert.deepStrictEqual(readJson(settingsOf(broken)), { model: "opus" })

      const taken = home({ ".claude.json": { mcpServers: { precis: { command: "someone-else" } } } })
      assertOneLineFailure(
        yield* precis(taken, ["install", "claude-code"]),
        /already has an MCP server named "precis" that precis did not write/
      )
      assert.isFalse(fs.existsSync(settingsOf(taken)))

      const odd = home({ ".claude/settings.json": { hooks: { PreCompact: "no" } } })
      assertOneLineFailure(yield* precis(odd, ["install", "claude-code"]), /"hooks\.PreCompact" is not a list/)
      assertOneLineFailure(yield* precis(home(), ["install", "claude-code", "--user", "--project"]), /exclude each other/)
    }))
})

describe("the installed set-up, run as Claude Code runs it", () => {
  const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")

  /** Runs a hook command through the shell, the event on stdin. */
  const runHook = (command: string, event: object, env: NodeJS.ProcessEnv) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile("/bin/sh", ["-c", command], { env, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
      child.stdin!.end(JSON.stringify(event))
    })

  it("--project writes the project's files; the hook and the server they name work", async () => {
    const root = home()
    const project = path.join(root, "app")
    fs.mkdirSync(project)
    const env = { PATH: process.env.PATH ?? "", HOME: root }
    execFileSync(process.execPath, [bin, "install", "claude-code", "--project"], { cwd: project, env })
    assert.isFalse(fs.existsSync(settingsOf(root)))
    const settings = readJson(path.join(project, ".claude", "settings.json"))
    const server = readJson(path.join(project, ".mcp.json")).mcpServers.precis

    const transcript = path.join(project, "session.jsonl")
    fs.writeFileSync(transcript, claudeCodeJsonl(40))
    const event = { session_id: "abc", transcript_path: transcript, cwd: project, hook_event_name: "PreCompact", trigger: "manual" }
    const compacted = await runHook(settings.hooks.PreCompact[0].hooks[0].command, event, env)
    assert.strictEqual(compacted.code, 0, compacted.stderr)
    expect(compacted.stdout).toMatch(/^precis: session abc: 40 new turns imported; \d+ turns summarized/)
    assert.isTrue(fs.existsSync(path.join(root, ".local", "share", "precis", "claude-code.db")))

    const transport = new StdioClientTransport({ command: server.command, args: server.args, env: { HOME: root } })
    const client = new Client({ name: "precis-test", version: "1.0.0" })
    await client.connect(transport)
    try {
      const result = (await client.callTool({ name: "describe", arguments: { session: "abc" } })) as {
        isError?: boolean
        structuredContent?: { turns: number; summaries: number }
      }
      assert.isNotTrue(result.isError)
      assert.strictEqual(result.structuredContent!.turns, 40)
      assert.isAbove(result.structuredContent!.summaries, 0)
    } finally {
      await client.close()
    }

    execFileSync(process.execPath, [bin, "uninstall", "claude-code", "--project"], { cwd: project, env })
    assert.isFalse(fs.existsSync(path.join(project, ".mcp.json")))
  }, 120_000)
})
