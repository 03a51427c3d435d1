/**
 * Codex CLI's lifecycle hooks (developers.openai.com/codex/hooks):
 * `precis install codex` adds precis's hooks (PreCompact, SessionStart, Stop)
 * to `~/.codex/hooks.json` beside its MCP server in `config.toml`, on a
 * temporary HOME whose hooks.json holds the user's own hook; `uninstall`
 * takes out exactly that; `precis hook codex` imports the rollout the hook
 * input names.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const theirs = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "./notify.sh", timeout: 5 }] }] } }, null, 2) + "\n"

type Group = { readonly matcher?: string; readonly hooks: ReadonlyArray<{ readonly command: string; readonly timeout?: number }> }

describe("Codex CLI's hooks", () => {
  it.live("install adds precis's hooks to hooks.json beside the user's; again changes nothing; uninstall gives the bytes back", () =>
    Effect.gen(function*() {
      const home = path.join(dir, "install")
      const hooksFile = path.join(home, ".codex", "hooks.json")
      fs.mkdirSync(path.dirname(hooksFile), { recursive: true })
      fs.writeFileSync(hooksFile, theirs)
      const env = { env: { HOME: home } }
      const installed = yield* runCli(["install", "codex"], env)
      assert.strictEqual(installed.code, 0, installed.stderr)
      expect(installed.stdout).toContain(`${hooksFile}: add the hooks PreCompact, SessionStart (startup|clear|compact|resume), Stop`)
      expect(installed.stdout).toContain("[features] codex_hooks = true")
      const hooks = (JSON.parse(fs.readFileSync(hooksFile, "utf8")) as { hooks: Record<string, ReadonlyArray<Group>> }).hooks
      assert.strictEqual(hooks.Stop![0]!.hooks[0]!.command, "./notify.sh")
      for (const event of ["PreCompact", "SessionStart", "Stop"]) expect(hooks[event]!.at(-1)!.hooks[0]!.command).toMatch(/ hook codex$/)
      expect(fs.readFileSync(path.join(home, ".codex", "config.toml"), "utf8")).toContain("[mcp_servers.precis]")

      expect((yield* runCli(["install", "codex"], env)).stdout).toContain(`${hooksFile}: nothing to change`)
      const removed = yield* runCli(["uninstall", "codex"], env)
      assert.strictEqual(removed.code, 0, removed.stderr)
      assert.strictEqual(fs.readFileSync(hooksFile, "utf8"), theirs)
      assert.isFalse(fs.existsSync(path.join(home, ".codex", "config.toml")))
    }))

  it.live("hook codex: Stop imports the rollout into the session named after its file, SessionStart on a resume gives the state", () =>
    Effect.gen(function*() {
      const home = path.join(dir, "hook")
      const rollout = path.join(home, ".codex", "sessions", "2025", "09", "01", "rollout-2025-09-01T10-00-00-s1.jsonl")
      fs.mkdirSync(path.dirname(rollout), { recursive: true })
      const at = (type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: "2025-09-01T10:00:00Z", type, payload })
      fs.writeFileSync(rollout, [
        at("session_meta", { id: "s1", cwd: "/repo" }),
        at("response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "Clean the build folder" }] }),
        at("response_item", { type: "function_call", name: "shell", arguments: "{\"command\":[\"bash\",\"-lc\",\"rm -rf dist\"]}", call_id: "c1" }),
        at("response_item", { type: "function_call_output", call_id: "c1", output: "" })
      ].join("\n") + "\n")
      const db = path.join(home, "precis.db")
      const session = "rollout-2025-09-01T10-00-00-s1"
      const hook = (event: string, extra: Record<string, string> = {}) =>
        runCli(["hook", "codex", "--db", db], {
          stdin: JSON.stringify({ session_id: "s1", transcript_path: rollout, cwd: "/repo", hook_event_name: event, model: "gpt-5", ...extra }),
          env: { HOME: home }
        })
      const stop = yield* hook("Stop")
      assert.strictEqual(stop.code, 0, stop.stderr)
      const turns = yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.turns(session)).pipe(
        Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))
      )
      assert.deepStrictEqual(turns.map((t) => t.role), ["user", "assistant", "tool"])
      const start = yield* hook("SessionStart", { source: "resume" })
      assert.strictEqual(start.code, 0, start.stderr)
      const context = (JSON.parse(start.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext
      expect(context).toContain("- first request: Clean the build folder")
      expect(context).toContain("- last command: rm -rf dist")
      expect(context).toContain(`session id "${session}"`)
    }))
})
