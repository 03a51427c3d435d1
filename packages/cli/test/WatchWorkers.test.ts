/**
 * The first run of `precis watch` on every core, as real processes: the
 * backlog found on start is compacted at once by this process and `--workers`
 * child processes (`precis compact --all` over the same store, named to them
 * through `PRECIS_DB`). Every session is compacted completely and by one
 * worker, the store's invariants hold, each worker's end is one line, Ctrl-C
 * leaves no child behind, and a bad `--workers` is one line. On SQLite, and on
 * PostgreSQL when `PRECIS_TEST_PG_URL` is set. Waits on what the process
 * prints, never on durations.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, expect, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import { PgStore } from "@precis/store-pg"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { freshPgDatabase, skipPg } from "../../store-pg/test/helpers.js"
import { assertOneLineFailure, run, sessionJsonl, tempDir } from "./utils/run.js"
import { jsonEvents as events, type Running, start } from "./utils/spawn.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const TIMEOUT = 120_000
const SESSIONS = 6
const TURNS = 40
const TAIL = 4
// No idle cycle in these runs (an hour's threshold): whatever is compacted, the workers compacted.
const flags = [
  "--poll-interval", "50 millis", "--idle-threshold", "1 hour", "--check-interval", "100 millis",
  "--fresh-tail", `${TAIL}`, "--leaf-chunk-tokens", "300", "--json"
]

/** A directory of `SESSIONS` transcripts of `TURNS` turns each, named s0.jsonl, s1.jsonl, ... */
const tree = (name: string) => {
  const root = path.join(dir, name)
  fs.mkdirSync(root, { recursive: true })
  for (let s = 0; s < SESSIONS; s++) fs.writeFileSync(path.join(root, `s${s}.jsonl`), sessionJsonl(TURNS, `s${s}-`))
  return root
}

const sessions = Array.from({ length: SESSIONS }, (_, s) => `s${s}`)

const stop = async (running: Running) => {
  running.child.kill("SIGINT")
  assert.strictEqual(await running.exited, 130, running.stderr())
}

/** Whether a process of this id exists. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The uncovered turns of each session, the leaf links to turns (all, and distinct) and the store's invariants. */
const storeState = (layer: Layer.Layer<TurnStore.TurnStore | SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const uncovered = yield* Effect.forEach(sessions, (s) => Effect.map(store.uncoveredTurns(s), (turns) => turns.length))
    const sql = yield* SqlClient.SqlClient
    const [links] = yield* sql<{ readonly links: number | string; readonly turns: number | string }>`
      SELECT count(*) AS links, count(DISTINCT s.session_id || '/' || ss.turn_id) AS turns
      FROM summary_sources ss JOIN summaries s ON s.id = ss.summary_id WHERE ss.turn_id IS NOT NULL`
    const violations = yield* StoreInvariants.violations({ freshTailTurns: TAIL })
    return { uncovered, links: Number(links!.links), turns: Number(links!.turns), violations }
  }).pipe(Effect.provide(layer), Effect.orDie)

/** `watch --workers 1` over a fresh tree into `db`, until idle: what it printed, and the store after it stopped. */
const firstRun = (name: string, db: string, layer: Layer.Layer<TurnStore.TurnStore | SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    const root = tree(name)
    const running = start(["watch", root, "--db", db, "--workers", "1", ...flags], { cwd: dir })
    yield* Effect.promise(async () => {
      try {
        await running.waitFor("stdout", /"event":"idle"/)
      } finally {
        await stop(running)
      }
    })
    const seen = events(running)
    // Started after the first read, with the backlog: one child, then one line per worker when it is done.
    const order = seen.map((event) => event.event).filter((event) => event !== "imported")
    expect(order).toEqual(["started", "backlog", "workers-started", "worker-done", "worker-done", "idle"])
    const pids = seen.find((event) => event.event === "workers-started")!.pids as ReadonlyArray<number>
    expect(pids).toHaveLength(1)
    const done = seen.filter((event) => event.event === "worker-done")
    expect(done.map((event) => [event.self, event.pid]).sort()).toEqual([[false, pids[0]], [true, running.child.pid]])
    // Each session compacted by one worker, in one go: the sessions and the turns add up to the tree's.
    expect(done.reduce((n, event) => n + (event.sessions as number), 0)).toBe(SESSIONS)
    expect(done.reduce((n, event) => n + (event.turnsCompacted as number), 0)).toBe(SESSIONS * (TURNS - TAIL))
    expect(seen.at(-1)).toEqual({ at: seen.at(-1)!.at, event: "idle", sessions: SESSIONS })
    expect(alive(pids[0]!)).toBe(false)
    // Down to the fresh tail, every evictable turn under exactly one leaf, the invariants holding.
    const state = yield* storeState(layer)
    expect(state.uncovered).toEqual(sessions.map(() => TAIL))
    expect(state.links).toBe(SESSIONS * (TURNS - TAIL))
    expect(state.turns).toBe(SESSIONS * (TURNS - TAIL))
    expect(state.violations).toEqual([])
  })

describe("precis watch --workers: the first run on every core, real processes", () => {
  it.live("a directory of sessions is compacted completely, each session by one worker, each worker's end one line", () =>
    Effect.suspend(() => {
      const db = path.join(dir, "first.db")
      return firstRun("first", db, storeLayer(db))
    }), TIMEOUT)

  it.live("text: the workers' lines, timed", () =>
    Effect.promise(async () => {
      const root = tree("text")
      const running = start(
        ["watch", root, "--db", path.join(dir, "text.db"), "--workers", "1", ...flags.filter((f) => f !== "--json")],
        { cwd: dir }
      )
      try {
        await running.waitFor("stdout", /idle: 6 sessions up to date/)
      } finally {
        await stop(running)
      }
      const lines = running.stdout().split("\n").filter((line) => / (compacting the backlog|worker \d+ done|this process)/.test(line))
      expect(lines).toHaveLength(3)
      for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ /)
      expect(lines[0]).toMatch(/ compacting the backlog now, not in idle time, in 2 processes: this one and worker \d+ \(precis compact --all\)/)
      for (const line of lines.slice(1)) {
        expect(line).toMatch(/ (worker \d+|this process \(\d+\)) done in .+: compacted \d+ sessions?, \d+ turns into \d+ leaf and \d+ condensed summaries$/)
      }
    }), TIMEOUT)

  // A model that never answers: the workers are still compacting when the test acts.
  let hangingRuns = 0
  const hanging = <A>(use: (running: Running, pid: number) => Promise<A>) =>
    Effect.acquireUseRelease(
      Effect.async<ReturnType<typeof createServer>>((resume) => {
        const server = createServer(() => {})
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.promise(async () => {
          const env = {
            PRECIS_OPENAI_MODEL: "m",
            PRECIS_OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
          }
          const args = ["--provider", "openai", "--timeout", "10 minutes", "--workers", "1", ...flags]
          const name = `hanging${hangingRuns++}`
          const running = start(["watch", tree(name), "--db", path.join(dir, `${name}.db`), ...args], { cwd: dir, env })
          const match = await running.waitFor("stdout", /"event":"workers-started","pids":\[(\d+)\]/)
          return use(running, Number(match[1]))
        }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )

  it.live("Ctrl-C while the workers compact: watch ends (130) and no child is left", () =>
    hanging(async (running, pid) => {
      expect(alive(pid)).toBe(true)
      await stop(running)
      expect(alive(pid)).toBe(false)
      expect(events(running).map((event) => event.event)).not.toContain("worker-done")
    }), TIMEOUT)

  it.live("a worker that dies is one line, and watch goes on", () =>
    hanging(async (running, pid) => {
      process.kill(pid, "SIGKILL")
      await running.waitFor("stdout", /"event":"worker-failed"/)
      const failed = events(running).filter((event) => event.event === "worker-failed")
      expect(failed.map(({ at: _, ...event }) => event)).toEqual([
        { event: "worker-failed", pid, self: false, error: "precis compact --all was killed (SIGKILL)" }
      ])
      await stop(running)
    }), TIMEOUT)

  it.live("a bad --workers is one line", () =>
    Effect.promise(async () => {
      const result = await run(["watch", tree("bad"), "--db", path.join(dir, "bad.db"), "--workers=two"])
      assertOneLineFailure(result, /--workers must be an integer >= 0 \(got "two"\)/)
    }), TIMEOUT)
})

describe.skipIf(skipPg)("precis watch --workers over PostgreSQL", () => {
  it.live("a directory of sessions is compacted completely, each session by one worker", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      yield* firstRun("pg", url, PgStore.layer({ url: Redacted.make(url) }).pipe(Layer.orDie))
    }).pipe(Effect.scoped), TIMEOUT)
})
