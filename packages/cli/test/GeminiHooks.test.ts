/**
 * Gemini CLI's lifecycle hooks: `precis install gemini` adds precis's hooks
 * (PreCompress, SessionStart on a resume, SessionEnd) beside its MCP server in
 * `settings.json` on a temporary HOME whose settings hold comments and the
 * user's own hooks, and `uninstall` takes out exactly that; `precis hook
 * gemini` reads the hook input Gemini CLI sends (google-gemini/gemini-cli
 * `docs/hooks/reference.md`) and imports the chat it names.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as JsonDocument from "../src/internal/jsonDocument.js"
import { runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const settings = [
  "{",
  "  // Gemini CLI settings",
  "  \"general\": { \"vimMode\": true },",
  "  \"hooks\": {",
  "    /* mine */ \"BeforeTool\": [{ \"matcher\": \"run_shell_command\", \"hooks\": [{ \"type\": \"command\", \"command\": \"./audit.sh\" }] }],",
  "    \"PreCompress\": [{ \"hooks\": [{ \"type\": \"command\", \"command\": \"./save.sh\", \"timeout\": 5000 }] }],",
  "  },",
  "}",
  ""
].join("\n")

type Group = { readonly matcher?: string; readonly hooks: ReadonlyArray<{ readonly type: string; readonly command: string; readonly timeout?: number }> }

const parsed = (text: string) => {
  const doc = JsonDocument.parse(text)
  if (doc._tag === "Left") return assert.fail(text)
  return doc.right.value as { readonly hooks: Record<string, ReadonlyArray<Group>>; readonly mcpServers: Record<string, unknown> }
}

describe("Gemini CLI's hooks", () => {
  it.live("install adds precis's hooks and server, keeps the user's; again changes nothing; uninstall gives the bytes back", () =>
    Effect.gen(function*() {
      const home = path.join(dir, "install")
      const file = path.join(home, ".gemini", "settings.json")
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, settings)
      const env = { env: { HOME: home } }
      const dry = yield* runCli(["install", "gemini", "--dry-run"], env)
      expect(dry.stdout).toContain("would add the MCP server \"precis\" and the hooks PreCompress, SessionStart (resume), SessionEnd")
      assert.strictEqual(fs.readFileSync(file, "utf8"), settings)

      const installed = yield* runCli(["install", "gemini"], env)
      assert.strictEqual(installed.code, 0, installed.stderr)
      const after = fs.readFileSync(file, "utf8")
      expect(after).toContain("// Gemini CLI settings")
      expect(after).toContain("/* mine */")
      const { hooks, mcpServers } = parsed(after)
      assert.deepStrictEqual(Object.keys(mcpServers), ["precis"])
      // The user's hooks stay first and as they were; precis's group follows.
      assert.deepStrictEqual(hooks.BeforeTool, [{ matcher: "run_shell_command", hooks: [{ type: "command", command: "./audit.sh" }] }])
      assert.strictEqual(hooks.PreCompress![0]!.hooks[0]!.command, "./save.sh")
      const ours = (event: string) => hooks[event]!.at(-1)!
      for (const event of ["PreCompress", "SessionStart", "SessionEnd"]) {
        expect(ours(event).hooks[0]!.command).toMatch(/ hook gemini$/)
      }
      // Gemini CLI counts a hook's timeout in milliseconds.
      assert.deepStrictEqual([ours("PreCompress").hooks[0]!.timeout, ours("SessionStart").matcher], [60_000, "resume"])

      expect((yield* runCli(["install", "gemini"], env)).stdout).toContain(`${file}: nothing to change`)
      assert.strictEqual(fs.readFileSync(file, "utf8"), after)
      const removed = yield* runCli(["uninstall", "gemini"], env)
      assert.strictEqual(removed.code, 0, removed.stderr)
      assert.strictEqual(fs.readFileSync(file, "utf8"), settings)
    }))

  it.live("hook gemini: PreCompress imports the whole chat into the session named after its file, SessionStart on a resume gives the state", () =>
    Effect.gen(function*() {
      const home = path.join(dir, "hook")
      const chats = path.join(home, ".gemini", "tmp", "9f8e", "chats")
      fs.mkdirSync(chats, { recursive: true })
      const chat = path.join(chats, "session-2025-10-01T09-00-a1b2c3d4.json")
      fs.writeFileSync(chat, JSON.stringify({
        sessionId: "a1b2c3d4-0000-4000-8000-000000000000",
        projectHash: "9f8e",
        startTime: "2025-10-01T09:00:00.000Z",
        messages: [
          { id: "u1", timestamp: "2025-10-01T09:00:00.000Z", type: "user", content: "Make the build pass" },
          {
            id: "g1",
            timestamp: "2025-10-01T09:00:01.000Z",
            type: "gemini",
            content: "Building.",
            toolCalls: [{ id: "c1", name: "run_shell_command", args: { command: "ls dist" }, status: "success", resultDisplay: "app.js" }]
          }
        ]
      }, null, 2))
      const db = path.join(home, "precis.db")
      const input = (event: string, extra: Record<string, string>) =>
        JSON.stringify({ session_id: "a1b2c3d4-0000-4000-8000-000000000000", transcript_path: chat, cwd: home, hook_event_name: event, timestamp: "2025-10-01T09:05:00.000Z", ...extra })
      const hook = (stdin: string) => runCli(["hook", "gemini", "--db", db, "--provider", "extractive"], { stdin, env: { HOME: home } })

      const pre = yield* hook(input("PreCompress", { trigger: "auto" }))
      assert.strictEqual(pre.code, 0, pre.stderr)
      // Gemini CLI reads stdout as JSON: the report goes to stderr. The last message is taken at once.
      assert.strictEqual(pre.stdout, "")
      expect(pre.stderr).toMatch(/^precis: session session-2025-10-01T09-00-a1b2c3d4: 3 new turns imported/)
      const ids = yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.turns("session-2025-10-01T09-00-a1b2c3d4")).pipe(
        Effect.provide(SqliteStore.layer({ filename: db, readonly: true })),
        Effect.map((turns) => turns.map((t) => t.id))
      )
      assert.deepStrictEqual(ids, ["u1", "g1", "g1#1"])

      const start = yield* hook(input("SessionStart", { source: "resume" }))
      assert.strictEqual(start.code, 0, start.stderr)
      const output = JSON.parse(start.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }
      assert.strictEqual(output.hookSpecificOutput.hookEventName, "SessionStart")
      expect(output.hookSpecificOutput.additionalContext).toContain("- first request: Make the build pass [u1]")
      expect(output.hookSpecificOutput.additionalContext).toContain("- last command: ls dist [g1]")
      // A fresh start is not a resume: nothing to give back.
      const fresh = yield* hook(input("SessionStart", { source: "startup" }))
      assert.deepStrictEqual([fresh.code, fresh.stdout], [0, ""])
    }))
})
