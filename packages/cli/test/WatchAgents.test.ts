/**
 * `precis watch` with no path, in-process on a temporary HOME: it follows the
 * agents' folders that exist, whole-file sessions among them (a Gemini CLI
 * chat written again at each turn), each turn stored once.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** The ids of `session`'s turns, once `count` of them are stored (polled, about 30 s at most). */
const idsOnce = (db: string, session: string, count: number) =>
  Effect.gen(function*() {
    const read = Effect.flatMap(TurnStore.TurnStore, (store) => store.turns(session)).pipe(
      Effect.provide(SqliteStore.layer({ filename: db, readonly: true })),
      Effect.map((turns) => turns.map((t) => t.id)),
      Effect.orElseSucceed((): ReadonlyArray<string> => [])
    )
    for (let i = 0; i < 600; i++) {
      const ids = fs.existsSync(db) ? yield* read : []
      if (ids.length >= count) return ids
      yield* Effect.sleep("50 millis")
    }
    return yield* read
  })

const chat = (messages: ReadonlyArray<unknown>) =>
  JSON.stringify({ sessionId: "a1b2", projectHash: "9f8e", startTime: "2025-10-01T09:00:00.000Z", messages }, null, 2)

describe("precis watch with no path", () => {
  it.live("follows Gemini CLI's chats, read again whole as they are rewritten, each turn once", () =>
    Effect.gen(function*() {
      const home = path.join(dir, "home")
      const chats = path.join(home, ".gemini", "tmp", "9f8e", "chats")
      fs.mkdirSync(chats, { recursive: true })
      const file = path.join(chats, "session-2025-10-01T09-00-a1b2.json")
      const u1 = { id: "u1", timestamp: "2025-10-01T09:00:00.000Z", type: "user", content: "Make the build pass" }
      const g1 = { id: "g1", timestamp: "2025-10-01T09:00:01.000Z", type: "gemini", content: "Done." }
      fs.writeFileSync(file, chat([u1, g1]))
      const db = path.join(dir, "watch.db")
      const stdout: Array<string> = []
      const watcher = yield* Effect.fork(
        runCli(["watch", "--db", db, "--poll-interval", "30 millis", "--json"], { stdout, env: { HOME: home } })
      )
      const session = "session-2025-10-01T09-00-a1b2"
      assert.deepStrictEqual(yield* idsOnce(db, session, 2), ["u1", "g1"])
      const u2 = { id: "u2", timestamp: "2025-10-01T09:01:00.000Z", type: "user", content: "Now the tests" }
      fs.writeFileSync(file, chat([u1, g1, u2]))
      assert.deepStrictEqual(yield* idsOnce(db, session, 3), ["u1", "g1", "u2"])
      const imported = () =>
        stdout.map((line) => JSON.parse(line) as { event: string; file?: string; added?: number }).filter((e) => e.event === "imported")
      // Each said after the transaction that wrote it: waited for too.
      for (let i = 0; i < 600 && imported().reduce((n, e) => n + e.added!, 0) < 3; i++) yield* Effect.sleep("50 millis")
      yield* Fiber.interrupt(watcher)
      expect(imported().every((e) => e.file === file)).toBe(true)
      expect(imported().reduce((n, e) => n + e.added!, 0)).toBe(3)
    }), { timeout: 60_000 })
})
