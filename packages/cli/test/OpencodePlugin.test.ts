/**
 * opencode's lifecycle: `precis install opencode` writes precis's plugin
 * (`plugins/precis.js`) beside its MCP server, on a temporary HOME; the
 * plugin, loaded as opencode loads it, runs the hook command on
 * `session.idle` and `session.compacted`; `precis hook opencode` imports the
 * session from opencode's storage; `uninstall` takes out exactly the plugin.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll } from "vitest"
import { runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

interface Plugin {
  readonly event: (input: { readonly event: { readonly type: string; readonly properties?: unknown } }) => Promise<void>
}

describe("opencode's plugin", () => {
  it.live("install writes it, opencode's events run the hook command with the session, uninstall takes it out whole", () =>
    Effect.gen(function*() {
      const home = path.join(dir, "install")
      const env = { env: { HOME: home } }
      const plugin = path.join(home, ".config", "opencode", "plugins", "precis.js")
      // A command that keeps what it is given (its arguments and stdin) stands for precis.
      const recorder = path.join(dir, "record.mjs")
      const record = path.join(dir, "recorded.json")
      fs.writeFileSync(recorder, `import fs from "node:fs"\nlet input = ""\nprocess.stdin.on("data", (d) => input += d).on("end", () => fs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({ args: process.argv.slice(2), input })))\n`)
      const installed = yield* runCli(["install", "opencode", "--command", `${process.execPath} ${recorder}`], env)
      assert.strictEqual(installed.code, 0, installed.stderr)
      expect(installed.stdout).toContain(`${plugin}: add precis's plugin`)
      expect((yield* runCli(["install", "opencode", "--command", `${process.execPath} ${recorder}`], env)).stdout).toContain(`${plugin}: nothing to change`)

      const { Precis } = (yield* Effect.promise(() => import(pathToFileURL(plugin).href))) as { Precis: () => Promise<Plugin> }
      const handlers = yield* Effect.promise(() => Precis())
      // Other events, and an event without a session, run nothing.
      yield* Effect.promise(() => handlers.event({ event: { type: "message.updated", properties: { sessionID: "ses_1" } } }))
      yield* Effect.promise(() => handlers.event({ event: { type: "session.idle", properties: {} } }))
      yield* Effect.promise(() => handlers.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } }))
      for (let i = 0; i < 400 && !fs.existsSync(record); i++) yield* Effect.sleep("25 millis")
      const recorded = JSON.parse(fs.readFileSync(record, "utf8")) as { args: ReadonlyArray<string>; input: string }
      assert.deepStrictEqual(recorded.args, ["hook", "opencode"])
      assert.deepStrictEqual(JSON.parse(recorded.input), { hook_event_name: "session.idle", session_id: "ses_1" })

      const removed = yield* runCli(["uninstall", "opencode"], env)
      assert.strictEqual(removed.code, 0, removed.stderr)
      assert.isFalse(fs.existsSync(plugin))
    }))

  it.live("someone else's plugins/precis.js is refused by install and left by uninstall", () =>
    Effect.gen(function*() {
      const home = path.join(dir, "theirs")
      const plugin = path.join(home, ".config", "opencode", "plugins", "precis.js")
      fs.mkdirSync(path.dirname(plugin), { recursive: true })
      fs.writeFileSync(plugin, "export const Mine = async () => ({})\n")
      const refused = yield* runCli(["install", "opencode"], { env: { HOME: home } })
      assert.strictEqual(refused.code, 1)
      expect(refused.stderr).toContain("it is not precis's plugin")
      yield* runCli(["uninstall", "opencode"], { env: { HOME: home } })
      assert.strictEqual(fs.readFileSync(plugin, "utf8"), "export const Mine = async () => ({})\n")
    }))

  it.live("hook opencode: session.idle imports the session from the storage, session.compacted compacts it", () =>
    Effect.gen(function*() {
      const home = path.join(dir, "hook")
      const storage = path.join(home, ".local", "share", "opencode", "storage")
      const put = (file: string, value: unknown) => {
        fs.mkdirSync(path.dirname(path.join(storage, file)), { recursive: true })
        fs.writeFileSync(path.join(storage, file), JSON.stringify(value))
      }
      put("session/prj1/ses_9.json", { id: "ses_9", projectID: "prj1", directory: "/work/app", title: "t", time: { created: 1736000000000 } })
      put("message/ses_9/msg_a1.json", { id: "msg_a1", sessionID: "ses_9", role: "user", time: { created: 1736000000000 } })
      put("part/msg_a1/prt_1.json", { id: "prt_1", sessionID: "ses_9", messageID: "msg_a1", type: "text", text: "Show the config" })
      put("message/ses_9/msg_a2.json", { id: "msg_a2", sessionID: "ses_9", role: "assistant", time: { created: 1736000001000 } })
      put("part/msg_a2/prt_2.json", { id: "prt_2", sessionID: "ses_9", messageID: "msg_a2", type: "text", text: "It is empty." })
      const db = path.join(home, "precis.db")
      const hook = (event: string, session: string) =>
        runCli(["hook", "opencode", "--db", db], { stdin: JSON.stringify({ hook_event_name: event, session_id: session }), env: { HOME: home } })
      const ids = () =>
        Effect.flatMap(TurnStore.TurnStore, (store) => store.turns("ses_9")).pipe(
          Effect.provide(SqliteStore.layer({ filename: db, readonly: true })),
          Effect.map((turns) => turns.map((t) => t.id))
        )

      const idle = yield* hook("session.idle", "ses_9")
      assert.strictEqual(idle.code, 0, idle.stderr)
      assert.deepStrictEqual(yield* ids(), ["msg_a1", "msg_a2"])
      const compacted = yield* hook("session.compacted", "ses_9")
      assert.strictEqual(compacted.code, 0, compacted.stderr)
      expect(compacted.stdout).toMatch(/^precis: session ses_9: 0 new turns imported; \d+ turns summarized/)
      // A session id that is a path names no file of the storage: nothing read.
      const outside = yield* hook("session.idle", "../../x")
      assert.deepStrictEqual([outside.code, outside.stdout], [0, ""])
    }))
})
