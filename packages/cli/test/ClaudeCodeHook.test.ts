/**
 * `precis hook claude-code`, in-process on a temporary HOME, replaying hook
 * payloads built from the shared Claude Code fixtures: each real session was
 * auto-compacted once, at a `compact_boundary` line. The transcript as it
 * stood then (every line before the boundary) is the `PreCompact` payload's;
 * the boundary and Claude's summary appended make the `SessionStart`
 * (`source: "compact"`) payload's; the rest of the session makes the
 * `SessionEnd` payload's. Skipped when ../shared is missing.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { DagStore, TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { maxContextChars } from "../src/internal/claudeCode.js"
import { assertOneLineFailure, repoRoot, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const fixtures = path.resolve(repoRoot, "..", "shared", "fixtures", "transcripts")
const sessions = ["claude-code-spotter-258c7280", "claude-code-spotter-ae4a77f8"]

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A fresh HOME and the store the hook uses there by default. */
const freshHome = (name: string) => {
  const home = path.join(dir, name)
  fs.mkdirSync(home, { recursive: true })
  return { home, db: path.join(home, ".local", "share", "precis", "claude-code.db") }
}

/** A fixture's lines, and the index of its compact boundary. */
const linesOf = (name: string) => {
  const lines = fs.readFileSync(path.join(fixtures, `${name}.jsonl`), "utf8").split("\n").filter((l) => l.length > 0)
  const boundary = lines.findIndex((line) => (JSON.parse(line) as { subtype?: string }).subtype === "compact_boundary")
  return { lines, boundary }
}

/** A hook event as Claude Code sends it. */
const payload = (event: string, session: string, transcript: string, extra: Record<string, string> = {}) =>
  JSON.stringify({ session_id: session, transcript_path: transcript, cwd: dir, hook_event_name: event, ...extra })

const hook = (home: string, stdin: string, args: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
  runCli(["hook", "claude-code", ...args], { stdin, env: { HOME: home, ...env } })

/** The session's turn count, summary count and followed offset, read-only. */
const stored = (db: string, session: string) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const info = (yield* store.sessions).find((s) => s.id === session)
    const summaries = yield* (yield* DagStore.DagStore).summaries(session)
    const uncovered = yield* store.uncoveredTurns(session)
    return { turns: info?.turnCount ?? 0, summaries: summaries.length, uncovered: uncovered.length }
  }).pipe(Effect.provide(SqliteStore.layer({ filename: db, readonly: true })))

const additionalContext = (stdout: string): string => {
  const output = JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }
  assert.strictEqual(output.hookSpecificOutput.hookEventName, "SessionStart")
  return output.hookSpecificOutput.additionalContext
}

describe.skipIf(!fs.existsSync(fixtures))("precis hook claude-code over the Claude Code fixtures", () => {
  for (const name of sessions) {
    it.live(`${name}: PreCompact imports and compacts, SessionStart (compact) gives the state back, SessionEnd goes on`, () =>
      Effect.gen(function*() {
        const { home, db } = freshHome(name)
        const session = name.replace("claude-code-spotter-", "")
        const { boundary, lines } = linesOf(name)
        assert.isAbove(boundary, 0)
        const transcript = path.join(home, "transcript.jsonl")
        const upTo = (end: number) => fs.writeFileSync(transcript, lines.slice(0, end).map((l) => `${l}\n`).join(""))

        // Claude Code is about to compact: the transcript holds everything before the boundary.
        upTo(boundary)
        const pre = yield* hook(home, payload("PreCompact", session, transcript, { trigger: "auto" }))
        assert.strictEqual(pre.code, 0, pre.stderr)
        expect(pre.stdout).toMatch(new RegExp(`^precis: session ${session}: \\d+ new turns imported; \\d+ turns summarized`))
        const afterPre = yield* stored(db, session)
        assert.isAbove(afterPre.turns, 100)
        assert.isAbove(afterPre.summaries, 0)
        assert.isBelow(afterPre.uncovered, afterPre.turns)

        // Compacted: the boundary and Claude's summary are appended, and the session starts again.
        upTo(boundary + 2)
        const start = payload("SessionStart", session, transcript, { source: "compact" })
        const started = yield* hook(home, start)
        assert.strictEqual(started.code, 0, started.stderr)
        const context = additionalContext(started.stdout)
        assert.isAtMost(context.length, maxContextChars)
        expect(context).toMatch(/^Session state \(from turns /)
        // What the state keeps of the turns before the compaction, each entry citing its turn.
        expect(context).toMatch(/first request: .+ \[[0-9a-f]{8}\]/)
        expect(context).toMatch(/directory: \/home\/USER\/projects\//)
        expect(context).toContain(`session id "${session}"`)
        expect(context).toContain("mcp__precis__search")
        expect(context).toContain("Summary ids: ")
        // Deterministic: the same transcript gives the same context.
        assert.strictEqual((yield* hook(home, start)).stdout, started.stdout)
        const afterStart = yield* stored(db, session)

        // The session goes on to its end: only the lines after the last import are read.
        upTo(lines.length)
        const end = yield* hook(home, payload("SessionEnd", session, transcript, { reason: "other" }))
        assert.strictEqual(end.code, 0, end.stderr)
        const added = Number(/: (\d+) new turns imported/.exec(end.stdout)![1])
        const afterEnd = yield* stored(db, session)
        assert.isAbove(added, 0)
        assert.strictEqual(afterEnd.turns, afterStart.turns + added)
        assert.isAbove(afterEnd.summaries, afterPre.summaries)

        // Nothing new: nothing imported, nothing summarized.
        const again = yield* hook(home, payload("PreCompact", session, transcript, { trigger: "manual" }))
        expect(again.stdout).toMatch(/: 0 new turns imported; 0 turns summarized/)
        assert.deepStrictEqual(yield* stored(db, session), afterEnd)
      }))
  }

  it.live("a deadline stops the compaction, keeps what it wrote, and the next run goes on", () =>
    Effect.gen(function*() {
      const { home, db } = freshHome("deadline")
      const { boundary, lines } = linesOf(sessions[0]!)
      const transcript = write(home, "t.jsonl", lines.slice(0, boundary).map((l) => `${l}\n`).join(""))
      const event = payload("PreCompact", "s", transcript, { trigger: "auto" })
      // Imported first: the deadline bounds the import too.
      assert.strictEqual((yield* hook(home, payload("Stop", "s", transcript))).code, 0)
      const stopped = yield* hook(home, event, ["--deadline", "1 millis"])
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      expect(stopped.stdout).toContain("(stopped at the deadline: the next PreCompact or SessionEnd goes on)")
      const left = Number(/; (\d+) not summarized yet/.exec(stopped.stdout)![1])
      const done = yield* hook(home, event)
      expect(done.stdout).toMatch(/: 0 new turns imported; [1-9]\d* turns summarized/)
      expect(done.stdout).not.toContain("deadline")
      assert.isBelow((yield* stored(db, "s")).uncovered, left)
    }))
})

describe("precis hook claude-code", () => {
  it.live("events it has no work for print nothing and create no store", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome("quiet")
      const transcript = write(home, "t.jsonl", sessionJsonl(4))
      for (const event of [payload("Notification", "s", transcript), payload("SessionStart", "s", transcript, { source: "startup" })]) {
        const result = yield* hook(home, event)
        assert.deepStrictEqual([result.code, result.stdout, result.stderr], [0, "", ""])
      }
      assert.isFalse(fs.existsSync(db))
    }))

  it.live("SessionStart for a session precis does not hold prints nothing; Stop only imports", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome("stop")
      const transcript = write(home, "t.jsonl", "")
      const resumed = yield* hook(home, payload("SessionStart", "s", transcript, { source: "resume" }))
      assert.deepStrictEqual([resumed.code, resumed.stdout], [0, ""])
      const stop = yield* hook(home, payload("Stop", "s", transcript))
      assert.deepStrictEqual([stop.code, stop.stdout], [0, ""])
      assert.deepStrictEqual(yield* stored(db, "s"), { turns: 0, summaries: 0, uncovered: 0 })
    }))

  it.live("the store is --db, else PRECIS_CLAUDE_CODE_DB, else under XDG_DATA_HOME, else ~/.local/share", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome("where")
      const transcript = write(home, "t.jsonl", "")
      const event = payload("Stop", "s", transcript)
      const explicit = path.join(home, "explicit.db")
      const variable = path.join(home, "variable.db")
      const data = path.join(home, "data")
      yield* hook(home, event, ["--db", explicit], { PRECIS_CLAUDE_CODE_DB: variable })
      yield* hook(home, event, [], { PRECIS_CLAUDE_CODE_DB: variable, XDG_DATA_HOME: data })
      yield* hook(home, event, [], { XDG_DATA_HOME: data })
      yield* hook(home, event)
      for (const file of [explicit, variable, path.join(data, "precis", "claude-code.db"), db]) {
        assert.isTrue(fs.existsSync(file), file)
      }
    }))

  it.live("bad input is one line on stderr and exit code 1, never 2 (which would block a compaction)", () =>
    Effect.gen(function*() {
      const { home } = freshHome("bad")
      assertOneLineFailure(yield* hook(home, "not json"), /^precis: the hook input on stdin is not a Claude Code hook event/)
      assertOneLineFailure(yield* hook(home, JSON.stringify({ hook_event_name: "PreCompact" })), /session_id/)
      assertOneLineFailure(yield* hook(home, payload("PreCompact", "s\u0007", "")), /"session_id" must be/)
    }))
})
