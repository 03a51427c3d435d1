/**
 * `precis hook claude-code` replaying hostile payloads: a transcript that is
 * a directory, a FIFO, a device or a /proc file; one never written; one
 * rewritten in place, one with a bad line and one larger than the deadline
 * lets it read; stores that would be thrown away, however named; a 10 kB
 * session id, and one with a lone surrogate. None blocks, none fails for
 * nothing, none stops a session for good.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState } from "@precis/core"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { maxContextChars } from "../src/internal/claudeCode.js"
import { assertOneLineFailure, runCli, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
let count = 0
const freshHome = () => {
  const home = path.join(dir, `home${count++}`)
  fs.mkdirSync(home, { recursive: true })
  return { home, db: path.join(home, ".local", "share", "precis", "claude-code.db") }
}

const payload = (event: string, session: string, transcript: string, extra: Record<string, string> = {}) =>
  JSON.stringify({ session_id: session, transcript_path: transcript, cwd: dir, hook_event_name: event, ...extra })

const hook = (home: string, stdin: string, args: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
  runCli(["hook", "claude-code", ...args], { stdin, env: { HOME: home, ...env } })

/** Claude Code lines: a user request and the assistant's answer per round. */
const claudeLines = (rounds: number, from = 0): Array<string> =>
  Array.from({ length: rounds }, (_, k) => {
    const i = from + k
    const timestamp = new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString()
    return [
      JSON.stringify({ type: "user", uuid: `u${i}`, timestamp, message: { role: "user", content: `fix bug ${i} in src/a${i}.ts` } }),
      JSON.stringify({ type: "assistant", uuid: `a${i}`, timestamp, message: { role: "assistant", content: [{ type: "text", text: `fixed ${i}` }] } })
    ]
  }).flat()

const text = (lines: ReadonlyArray<string>) => lines.map((line) => `${line}\n`).join("")

const turnIds = (db: string, session: string) =>
  Effect.flatMap(TurnStore.TurnStore, (store) => store.turns(session)).pipe(
    Effect.map((turns) => turns.map((t) => t.id)),
    Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))
  )

describe("a transcript that is not one", () => {
  it.live("a directory, a FIFO or a device is refused at once, never read; a /proc file gives nothing", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome()
      const fifo = path.join(home, "pipe.jsonl")
      execFileSync("mkfifo", [fifo])
      for (const named of [home, "/", fifo, "/dev/zero"]) {
        for (const event of ["PreCompact", "Stop"]) {
          assertOneLineFailure(yield* hook(home, payload(event, "s", named)), /not a regular file .*not a transcript, never read/)
        }
      }
      const proc = yield* hook(home, payload("Stop", "s", "/proc/self/status"))
      assert.deepStrictEqual([proc.code, proc.stdout, proc.stderr], [0, "", ""])
      assert.deepStrictEqual(yield* turnIds(db, "s"), [])
    }))

  it.live("SessionEnd (or PreCompact) for a transcript never written exits 0: nothing to import", () =>
    Effect.gen(function*() {
      const { home } = freshHome()
      const never = path.join(home, "never-written.jsonl")
      for (const event of ["SessionEnd", "PreCompact", "Stop"]) {
        const result = yield* hook(home, payload(event, "s", never))
        assert.strictEqual(result.code, 0, result.stderr)
        assert.strictEqual(result.stderr, "")
      }
      const end = yield* hook(home, payload("SessionEnd", "s", never))
      expect(end.stdout).toMatch(/^precis: session s: 0 new turns imported; 0 turns summarized/)
    }))
})

describe("a transcript that is hostile", () => {
  it.live("rewritten in place (a middle line gone, lines added): read again, each turn once", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome()
      const lines = claudeLines(30)
      const transcript = write(home, "t.jsonl", text(lines))
      assert.strictEqual((yield* hook(home, payload("Stop", "s", transcript))).code, 0)
      fs.writeFileSync(transcript, text([...lines.slice(0, 20), ...lines.slice(21), ...claudeLines(2, 30)]))
      const again = yield* hook(home, payload("Stop", "s", transcript))
      assert.deepStrictEqual([again.code, again.stderr], [0, ""])
      const ids = yield* turnIds(db, "s")
      assert.deepStrictEqual(ids, claudeLines(32).map((line) => (JSON.parse(line) as { uuid: string }).uuid))
    }))

  it.live("a bad line is said on stderr and kept in the side file, a NUL in a tool output shown as ␀; the lines after them are imported, now and later", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome()
      const nul = JSON.stringify({
        type: "user",
        uuid: "nul",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "binary\u0000data" }] }
      })
      const lines = claudeLines(4)
      const bad = "{\"type\": \"user\", \"mess"
      const transcript = write(home, "t.jsonl", text([...lines.slice(0, 3), bad, nul, ...lines.slice(3)]))
      const first = yield* hook(home, payload("PreCompact", "s", transcript))
      assert.strictEqual(first.code, 0, first.stderr)
      // Said once each, as import says them; counted in the hook's line.
      assert.deepStrictEqual(first.stderr.trim().split("\n").map((line) => line.replace(/: skipped: .*/, ": skipped")), [
        `precis: ${transcript}:4: skipped`,
        `precis: ${transcript}:5: NUL (U+0000) in the content shown as ␀`
      ])
      expect(first.stdout).toMatch(/new turns imported \(1 line skipped\);/)
      fs.appendFileSync(transcript, text(claudeLines(1, 4)))
      const second = yield* hook(home, payload("Stop", "s", transcript))
      assert.deepStrictEqual([second.code, second.stderr], [0, ""])
      const ids = yield* turnIds(db, "s")
      const expected = claudeLines(5).map((line) => (JSON.parse(line) as { uuid: string }).uuid)
      assert.deepStrictEqual(ids, [...expected.slice(0, 3), "nul", ...expected.slice(3)])
      // The bad line's bytes are kept beside the store (0600), once.
      const side = `${db}.skipped.jsonl`
      const kept = fs.readFileSync(side, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { file: string; line: number; text: string })
      assert.deepStrictEqual(kept.map((k) => [k.file, k.line, k.text]), [[transcript, 4, bad]])
      assert.strictEqual(fs.statSync(side).mode & 0o777, 0o600)
    }))

  it.live("the deadline bounds the import: what was read stays, and the next hook goes on from there", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome()
      const transcript = write(home, "t.jsonl", text(claudeLines(200)))
      const stopped = yield* hook(home, payload("PreCompact", "s", transcript), ["--deadline", "1 millis"])
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      expect(stopped.stdout).toContain("(stopped at the deadline: the next PreCompact or SessionEnd goes on)")
      const done = yield* hook(home, payload("Stop", "s", transcript))
      assert.strictEqual(done.code, 0, done.stderr)
      assert.strictEqual((yield* turnIds(db, "s")).length, 400)
    }))
})

describe("a store another process holds", () => {
  it.live("locked for writing: the hook stops at its deadline (and the time to say so), exit 1", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome()
      const transcript = write(home, "t.jsonl", text(claudeLines(2)))
      assert.strictEqual((yield* hook(home, payload("Stop", "s", transcript))).code, 0)
      fs.appendFileSync(transcript, text(claudeLines(1, 2)))
      const result = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe("BEGIN IMMEDIATE")
        const ran = yield* hook(home, payload("Stop", "s", transcript), ["--deadline", "1 second"])
        yield* sql.unsafe("ROLLBACK")
        return ran
      }).pipe(Effect.provide(SqliteStore.layer({ filename: db })), Effect.orDie)
      // The wait was said (a warning), then the stop: exit 1, which never blocks Claude Code.
      assert.strictEqual(result.code, 1)
      expect(result.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(/another process is writing; waiting for it/),
        "precis: stopped at the deadline (1s): the next hook goes on"
      ])
      assert.strictEqual((yield* hook(home, payload("Stop", "s", transcript))).code, 0)
      assert.strictEqual((yield* turnIds(db, "s")).length, 6)
    }), { timeout: 60_000 })
})

describe("a store that would be thrown away", () => {
  it.live("is refused however it is named: PRECIS_CLAUDE_CODE_DB or --db, :memory:, file::memory:, ?mode=memory, blank", () =>
    Effect.gen(function*() {
      const { home } = freshHome()
      const transcript = write(home, "t.jsonl", text(claudeLines(2)))
      for (const name of [":memory:", " :memory: ", ":MEMORY:", "file::memory:", "file:x.db?mode=memory", "file:x?cache=shared&mode=memory"]) {
        assertOneLineFailure(
          yield* hook(home, payload("Stop", "s", transcript), [], { PRECIS_CLAUDE_CODE_DB: name }),
          /PRECIS_CLAUDE_CODE_DB names a temporary database that would be thrown away/
        )
        assertOneLineFailure(
          yield* hook(home, payload("Stop", "s", transcript), ["--db", name]),
          /--db names a temporary database that would be thrown away/
        )
      }
    }))
})

describe("session ids", () => {
  it.live("a 10 kB session id: the context stays under Claude Code's cap, the header kept, the session named once", () =>
    Effect.gen(function*() {
      const { home } = freshHome()
      const session = "s".repeat(10_000)
      const transcript = write(home, "t.jsonl", text(claudeLines(20)))
      assert.strictEqual((yield* hook(home, payload("Stop", session, transcript))).code, 0)
      const started = yield* hook(home, payload("SessionStart", session, transcript, { source: "compact" }))
      assert.strictEqual(started.code, 0, started.stderr)
      const context = (JSON.parse(started.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
        .additionalContext
      assert.isAtMost(context.length, maxContextChars)
      expect(context).toMatch(/^Session state \(from turns /)
      assert.strictEqual(context.split(session.slice(0, 100)).length - 1, 1)
      const pre = yield* hook(home, payload("PreCompact", session, transcript))
      assert.isBelow(pre.stdout.length, 400)
    }))

  it.live("the recall note cites a turn of this session", () =>
    Effect.gen(function*() {
      const { home } = freshHome()
      for (const [session, rounds] of [["first", 3], ["second", 5]] as const) {
        const lines = claudeLines(rounds)
        const transcript = write(home, `${session}.jsonl`, text(lines))
        assert.strictEqual((yield* hook(home, payload("Stop", session, transcript))).code, 0)
        const started = yield* hook(home, payload("SessionStart", session, transcript, { source: "resume" }))
        const last = (JSON.parse(lines.at(-1)!) as { uuid: string }).uuid
        expect(started.stdout).toContain(`[${SessionState.shortId(last)}]`)
      }
    }))

  it.live("a lone surrogate is refused as control characters are, and nothing is stored", () =>
    Effect.gen(function*() {
      const { db, home } = freshHome()
      const transcript = write(home, "t.jsonl", text(claudeLines(2)))
      for (const session of ["s\uD800", "\uDC00s", "a\uDBFFb"]) {
        assertOneLineFailure(yield* hook(home, payload("Stop", session, transcript)), /"session_id" must be .* lone surrogates/)
      }
      assert.isFalse(fs.existsSync(db))
    }))
})
