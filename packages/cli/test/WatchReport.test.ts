/**
 * What `precis watch` says, as a real process: every line and JSON event
 * timed; on start what it follows, the backlog and when the next idle cycle
 * is due; each cycle; a line when it goes idle. The backlog is cleared in one
 * idle cycle (batches, not a batch a minute), sessions compacted several at
 * once; with no PATH it follows every agent's folder of sessions under `$HOME`.
 * Waits on what the process prints, never on durations.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { sessionJsonl, tempDir } from "./utils/run.js"
import { jsonEvents as events, precis, type Running, start } from "./utils/spawn.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const TIMEOUT = 120_000
const TAIL = 4
// Short idle settings; batches of 10 turns, so a session of 40 needs several within its one cycle. Sleep Mode
// alone, no worker processes (WatchWorkers.test.ts has them).
const flags = [
  "--poll-interval", "50 millis", "--idle-threshold", "300 millis", "--check-interval", "100 millis",
  "--fresh-tail", `${TAIL}`, "--leaf-chunk-tokens", "300", "--batch-size", "10", "--workers", "0"
]

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ /
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/** A directory of `sessions` transcripts of `turns` turns each, named s0.jsonl, s1.jsonl, ... */
const tree = (name: string, sessions: number, turns: number) => {
  const root = path.join(dir, name)
  fs.mkdirSync(root, { recursive: true })
  for (let s = 0; s < sessions; s++) fs.writeFileSync(path.join(root, `s${s}.jsonl`), sessionJsonl(turns, `s${s}-`))
  return root
}

const stop = async (running: Running) => {
  running.child.kill("SIGINT")
  assert.strictEqual(await running.exited, 130, running.stderr())
}

/** The uncovered turns of each session, and the store's invariants, read after the process stopped. */
const storeState = (db: string, sessions: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const uncovered = yield* Effect.forEach(sessions, (s) => Effect.map(store.uncoveredTurns(s), (turns) => turns.length))
    const violations = yield* StoreInvariants.violations({ freshTailTurns: TAIL })
    return { uncovered, violations }
  }).pipe(Effect.provide(storeLayer(db)), Effect.runPromise)

describe("precis watch says what it does, a real process", () => {
  it("every line timed: what it follows, the backlog and the next cycle, one cycle that clears it, then idle", async () => {
    const root = tree("text", 3, 40)
    const running = start(["watch", root, "--db", path.join(dir, "text.db"), ...flags], { cwd: dir })
    try {
      await running.waitFor("stdout", /idle: 3 sessions up to date, waiting for new lines\n/)
    } finally {
      await stop(running)
    }
    const lines = running.stdout().split("\n").filter((line) => line.length > 0)
    for (const line of lines) expect(line).toMatch(TIME)
    const texts = lines.map((line) => line.replace(TIME, ""))
    expect(texts[0]).toBe(`following ${root}; reading what it holds`)
    // 40 turns each, a fresh tail of 4: 36 each not yet compacted.
    const backlog = texts.find((text) => text.startsWith("3 sessions followed"))
    expect(backlog).toMatch(/^3 sessions followed; backlog: 3 sessions with 108 turns not yet compacted; next idle cycle at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ if no new lines come$/)
    const next = Date.parse(backlog!.match(/cycle at (\S+)/)![1]!)
    const said = Date.parse(lines[texts.indexOf(backlog!)]!.slice(0, 20))
    expect(next).toBeGreaterThanOrEqual(said)
    expect(texts.filter((text) => text.startsWith("idle cycle: "))).toEqual(["idle cycle: compacting 3 sessions (s0, s1, s2)"])
    expect(texts.filter((text) => text.startsWith("compacted ")).map((text) => text.split(" into ")[0]).sort()).toEqual([
      "compacted 36 turns of s0",
      "compacted 36 turns of s1",
      "compacted 36 turns of s2"
    ])
    expect(texts.find((text) => text.startsWith("idle cycle done"))).toMatch(/: 108 turns, \d+ summaries$/)
    expect(texts.at(-1)).toBe("idle: 3 sessions up to date, waiting for new lines")
  }, TIMEOUT)

  it("--json: every event timed (at); the first run compacts the sessions several at once, in one cycle", async () => {
    const root = tree("json", 6, 30)
    const db = path.join(dir, "json.db")
    const running = start(["watch", root, "--db", db, ...flags, "--parallel-sessions", "3", "--json"], { cwd: dir })
    try {
      await running.waitFor("stdout", /"event":"idle"/)
    } finally {
      await stop(running)
    }
    const seen = events(running)
    for (const event of seen) expect(event.at).toMatch(ISO)
    const times = seen.map((event) => Date.parse(event.at))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(seen[0]).toEqual({ at: seen[0]!.at, event: "started", paths: [root], claudeCode: false })
    const backlog = seen.find((event) => event.event === "backlog")!
    expect(backlog).toMatchObject({ sessions: 6, due: 6, turns: 6 * 26 })
    expect(Date.parse(backlog.nextCycleAt as string)).toBeGreaterThanOrEqual(Date.parse(backlog.at))
    const sessions = Array.from({ length: 6 }, (_, s) => `s${s}`)
    expect(seen.filter((event) => event.event === "cycle-started").map((event) => event.sessions)).toEqual([sessions])
    const compacted = seen.filter((event) => event.event === "session-compacted")
    expect(compacted.map((event) => event.session).sort()).toEqual(sessions)
    for (const event of compacted) expect(event.turnsCompacted).toBe(26)
    expect(seen.at(-1)).toEqual({ at: seen.at(-1)!.at, event: "idle", sessions: 6 })
    // Each session down to its fresh tail, every evictable turn under exactly one leaf.
    const state = await storeState(db, sessions)
    expect(state.uncovered).toEqual(sessions.map(() => TAIL))
    expect(state.violations).toEqual([])
  }, TIMEOUT)

  it("no PATH: follows every agent's folder of sessions that exists under $HOME, and says which on stderr", async () => {
    const home = path.join(dir, "home")
    const project = path.join(home, ".claude", "projects", "-work-app")
    fs.mkdirSync(project, { recursive: true })
    fs.writeFileSync(path.join(project, "abc.jsonl"), sessionJsonl(3, "c"))
    // Codex's sessions (under $CODEX_HOME when set) and opencode's storage (under $XDG_DATA_HOME); no Gemini CLI folder.
    const codex = path.join(home, "codex-home", "sessions", "2026", "01", "02")
    fs.mkdirSync(codex, { recursive: true })
    fs.writeFileSync(path.join(codex, "def.jsonl"), sessionJsonl(2, "d"))
    const opencode = path.join(home, "data", "opencode", "storage")
    fs.mkdirSync(opencode, { recursive: true })
    const env = { HOME: home, CODEX_HOME: path.join(home, "codex-home"), XDG_DATA_HOME: path.join(home, "data") }
    const running = start(["watch", "--db", path.join(dir, "home.db"), ...flags, "--json"], { cwd: dir, env })
    try {
      await running.waitFor("stdout", /"event":"backlog"/)
    } finally {
      await stop(running)
    }
    const seen = events(running)
    const folders = [path.join(home, ".claude", "projects"), path.join(home, "codex-home", "sessions"), opencode]
    expect(seen[0]).toMatchObject({ event: "started", paths: folders, claudeCode: true, agents: ["Claude Code", "Codex", "opencode"] })
    expect(running.stderr()).toContain(
      `precis: no PATH given; following Claude Code's ${folders[0]}, Codex's ${folders[1]}, opencode's ${folders[2]}\n`
    )
    expect(seen.find((event) => event.event === "imported" && event.session === "abc")).toMatchObject({ added: 3 })
  }, TIMEOUT)

  it("no PATH and no agent's folder: one line saying what to pass", async () => {
    const home = path.join(dir, "empty-home")
    fs.mkdirSync(home)
    const result = await precis(["watch", "--db", path.join(dir, "none.db")], { cwd: dir, env: { HOME: home } })
    assert.strictEqual(result.code, 1)
    expect(result.stdout).toBe("")
    const folders = [[".claude", "projects"], [".codex", "sessions"], [".gemini", "tmp"], [".local", "share", "opencode", "storage"]]
    expect(result.stderr).toBe(
      `precis: no PATH given, and no agent's folder of sessions exists (${folders.map((f) => path.join(home, ...f)).join(", ")}): ` +
        "give a transcript file or a directory of them (precis watch PATH)\n"
    )
  }, TIMEOUT)

  it("a bad --parallel-sessions or PRECIS_SLEEP_PARALLEL_SESSIONS is the one line printed", async () => {
    const root = tree("bad", 1, 2)
    const flag = await precis(["watch", root, "--db", path.join(dir, "bad.db"), "--parallel-sessions", "0"], { cwd: dir })
    assert.strictEqual(flag.code, 1)
    expect(flag.stdout).toBe("")
    expect(flag.stderr).toBe("precis: --parallel-sessions must be an integer >= 1 (got 0)\n")
    const variable = await precis(["watch", root, "--db", path.join(dir, "bad.db")], {
      cwd: dir,
      env: { PRECIS_SLEEP_PARALLEL_SESSIONS: "abc" }
    })
    assert.strictEqual(variable.code, 1)
    expect(variable.stdout).toBe("")
    expect(variable.stderr).toBe("precis: configuration error: PRECIS_SLEEP_PARALLEL_SESSIONS: must be an integer >= 1 (got \"abc\")\n")
  }, TIMEOUT)
})
