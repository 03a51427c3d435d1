/**
 * `precis watch`, in-process with short intervals: a writer appends to a
 * transcript while the watcher runs; the store is read between steps.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { DagStore, SearchIndex, TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { runCli, sessionJsonl, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const fast = [
  "--poll-interval",
  "30 millis",
  "--check-interval",
  "50 millis",
  "--idle-threshold",
  "300 millis",
  "--fresh-tail",
  "4",
  "--min-unprocessed-turns",
  "5",
  "--json"
]

/** The session's turn ids and summary count, read from the store (read-only). */
const read = (db: string, session: string) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const ids = (yield* store.sessions).map((s) => s.id)
    if (!ids.includes(session)) return { turns: [] as Array<string>, summaries: 0 }
    const turns = (yield* store.turns(session)).map((t) => t.id)
    return { turns, summaries: (yield* (yield* DagStore.DagStore).summaries(session)).length }
  }).pipe(Effect.provide(SqliteStore.layer({ filename: db, readonly: true })))

/** The ids of the turns a read-only search of `db` finds (a read-only store cannot index: the watcher must have). */
const searchTurns = (db: string, query: string) =>
  Effect.flatMap(SearchIndex.SearchIndex, (index) => index.search(undefined, query)).pipe(
    Effect.map((hits) => hits.filter((h) => h.kind === "turn").map((h) => h.id)),
    Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))
  )

/** Polls `db` until `check` holds (at most about 30 s on the shared cores). */
const waitFor = (db: string, session: string, check: (s: { turns: Array<string>; summaries: number }) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 600; i++) {
      if (fs.existsSync(db)) {
        const state = yield* Effect.orElseSucceed(read(db, session), () => undefined)
        if (state !== undefined && check(state)) return state
      }
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.dieMessage(`waitFor: never held; last: ${JSON.stringify(yield* read(db, session))}`)
  })

const lines = (count: number, prefix: string) => sessionJsonl(count, prefix).split("\n").filter((l) => l.length > 0)
const ids = (count: number, prefix: string, from = 0) =>
  Array.from({ length: count - from }, (_, i) => `${prefix}${from + i}`)

describe("precis watch", () => {
  it.live("imports appended lines once and in order, waits for a partial line, compacts when idle", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "live.db")
      const file = path.join(dir, "live.jsonl")
      const all = lines(30, "w")
      // Ten complete lines and half of the eleventh.
      fs.writeFileSync(file, all.slice(0, 10).join("\n") + "\n" + all[10]!.slice(0, 40))
      const stdout: Array<string> = []
      const watcher = yield* Effect.fork(runCli(["watch", file, "--db", db, ...fast], { stdout }))
      yield* waitFor(db, "live", (s) => s.turns.length === 10)
      // Completing the line (and more, in small writes) imports it once.
      fs.appendFileSync(file, all[10]!.slice(40) + "\n")
      for (const line of all.slice(11, 20)) fs.appendFileSync(file, line + "\n")
      const grown = yield* waitFor(db, "live", (s) => s.turns.length === 20)
      expect(grown.turns).toEqual(ids(20, "w"))
      // Indexed for search with them, in the same transaction.
      expect(yield* searchTurns(db, "module19.ts")).toEqual(["w19"])
      // Idle: Sleep Mode compacts all but the fresh tail of 4.
      yield* waitFor(db, "live", (s) => s.summaries > 0)
      for (let i = 0; i < 600 && !stdout.some((line) => line.includes("\"session-compacted\"")); i++) yield* Effect.sleep("50 millis")
      yield* Fiber.interrupt(watcher)
      const events = stdout.map((line) => JSON.parse(line) as { event: string; added?: number })
      expect(events.filter((e) => e.event === "imported").reduce((n, e) => n + e.added!, 0)).toBe(20)
      expect(events.map((e) => e.event)).toContain("session-compacted")

      // Stopped: lines written meanwhile are read on the next start, the old ones are not read again.
      fs.appendFileSync(file, all.slice(20, 25).join("\n") + "\n")
      const again: Array<string> = []
      const restarted = yield* Effect.fork(runCli(["watch", dir, "--db", db, ...fast], { stdout: again }))
      const resumed = yield* waitFor(db, "live", (s) => s.turns.length === 25)
      expect(resumed.turns).toEqual(ids(25, "w"))
      const imported = () =>
        again.map((line) => JSON.parse(line) as { event: string; added?: number; file?: string })
          .filter((e) => e.event === "imported" && e.file === file)
      // Said after the transaction that wrote them: waited for too.
      for (let i = 0; i < 600 && imported().length === 0; i++) yield* Effect.sleep("50 millis")
      expect(imported().reduce((n, e) => n + e.added!, 0)).toBe(5)

      // Truncated and rewritten with other turns: read again from the start.
      fs.writeFileSync(file, lines(3, "z").join("\n") + "\n")
      const rewritten = yield* waitFor(db, "live", (s) => s.turns.length === 28)
      expect(rewritten.turns.slice(25)).toEqual(ids(3, "z"))
      for (let i = 0; i < 600 && !again.some((line) => line.includes("\"restarted\"")); i++) yield* Effect.sleep("50 millis")
      yield* Fiber.interrupt(restarted)
      expect(again.map((line) => JSON.parse(line) as { event: string; reason?: string })).toContainEqual({
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        event: "restarted",
        file,
        reason: "truncated"
      })
    }), { timeout: 90_000 })

  it.live("on a terminal, a status line redrawn on stderr; nothing on stdout", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "tty.db")
      const file = path.join(dir, "tty", "one.jsonl")
      fs.mkdirSync(path.dirname(file))
      fs.writeFileSync(file, sessionJsonl(3, "y"))
      const written: Array<string> = []
      const stdout: Array<string> = []
      const watcher = yield* Effect.fork(runCli(["watch", file, "--db", db, "--session", "tty", "--poll-interval", "30 millis"], {
        stdout,
        stderr: { isTTY: true, write: (text) => void written.push(text) }
      }))
      yield* waitFor(db, "tty", (s) => s.turns.length === 3)
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(watcher)
      // Each redraw starts with the time; without it, the status as it was.
      const stamped = /^\r\x1b\[K\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ watching: /
      for (const status of written.slice(0, -1)) expect(status).toMatch(stamped)
      const statuses = written.map((status) => status.replace(stamped, "watching: "))
      expect(statuses[0]).toBe(`watching: 0 turns imported, 0 compacted · following ${file}; reading what it holds`)
      expect(statuses[1]).toBe(`watching: 3 turns imported, 0 compacted · ${file}: 3 new turns into tty (read up to byte ${fs.statSync(file).size})`)
      expect(written.at(-1)).toBe("\n")
      expect(stdout).toEqual([])
    }))

  it.live("refuses --session with several paths, and a missing path", () =>
    Effect.gen(function*() {
      const a = path.join(dir, "a.jsonl")
      fs.writeFileSync(a, sessionJsonl(2, "a"))
      const both = yield* runCli(["watch", a, dir, "--session", "s", "--db", path.join(dir, "x.db")])
      assert.strictEqual(both.code, 1)
      expect(both.stderr).toContain("--session names the session of a single file")
      const missing = yield* runCli(["watch", path.join(dir, "nope.jsonl"), "--db", path.join(dir, "x.db")])
      assert.strictEqual(missing.code, 1)
      expect(missing.stderr).toContain("nope.jsonl: no such file or directory")
    }))

  it.live("a FIFO given as the path to watch is refused before anything is read", () =>
    Effect.gen(function*() {
      const fifo = path.join(dir, "given.jsonl")
      execFileSync("mkfifo", [fifo])
      const refused = yield* runCli(["watch", fifo, "--db", path.join(dir, "fifo.db")])
      assert.strictEqual(refused.code, 1)
      expect(refused.stderr).toContain(`${fifo}: not a regular file or a directory: never read`)
    }))
})
