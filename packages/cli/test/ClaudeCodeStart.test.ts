/**
 * What a new Claude Code session in a project starts with: `precis hook
 * claude-code` on `SessionStart` (`startup`, `clear`), in-process on a
 * temporary HOME, replaying payloads over the shared Claude Code fixtures
 * imported as one project (their two worktree folders written as one), and
 * a third session kept aside in another folder. `SessionEnd` stores each
 * session's state. Skipped when ../shared is missing.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { TokenEstimator } from "@precis/core"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { maxContextChars } from "../src/internal/claudeCode.js"
import { repoRoot, runCli, tempDir } from "./utils/run.js"

const fixtures = path.resolve(repoRoot, "..", "shared", "fixtures", "transcripts")
const OLDER = "258c7280-ae70-4798-800f-63464d01a85d"
const LAST = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
const ASIDE = "aside-0000-ae4a77f8"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const home = path.join(dir, "home")
const db = path.join(home, ".local", "share", "precis", "claude-code.db")
const project = path.join(dir, "spotter")
const elsewhere = path.join(dir, "elsewhere")

/** A fixture's lines with its worktree folder written as `folder`, and the index of its compact boundary. */
const linesIn = (name: string, folder: string) => {
  const text = fs.readFileSync(path.join(fixtures, `claude-code-spotter-${name}.jsonl`), "utf8")
  const lines = text.replaceAll(/\/home\/USER\/projects\/spotter-worktrees\/spotter-\w+/g, folder)
    .split("\n").filter((l) => l.length > 0)
  const boundary = lines.findIndex((line) => (JSON.parse(line) as { subtype?: string }).subtype === "compact_boundary")
  return { lines, boundary }
}

const transcript = (name: string, lines: ReadonlyArray<string>) => {
  const file = path.join(dir, `${name}.jsonl`)
  fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(""))
  return file
}

const hook = (event: Record<string, string>, deadline = "5 seconds") =>
  runCli(["hook", "claude-code", "--deadline", deadline], { stdin: JSON.stringify(event), env: { HOME: home } })

const sessionEnd = (session: string, file: string, cwd: string, deadline?: string) =>
  hook({ hook_event_name: "SessionEnd", session_id: session, transcript_path: file, cwd, reason: "clear" }, deadline)

const sessionStart = (source: string, session: string, cwd: string) =>
  hook({ hook_event_name: "SessionStart", session_id: session, transcript_path: path.join(dir, `${session}.jsonl`), cwd, source })

const additionalContext = (stdout: string): string => {
  const output = JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }
  assert.strictEqual(output.hookSpecificOutput.hookEventName, "SessionStart")
  return output.hookSpecificOutput.additionalContext
}

const storedState = (session: string) =>
  Effect.flatMap(TurnStore.TurnStore, (store) => Effect.all([store.sessionState(session), store.turns(session)])).pipe(
    Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))
  )

describe.skipIf(!fs.existsSync(fixtures))("precis hook claude-code: a new session starts with its project's digest", () => {
  it.live("startup and clear give the last session's task, last commit, open items and next step, and every earlier session", () =>
    Effect.gen(function*() {
      fs.mkdirSync(home, { recursive: true })
      // Before anything is stored, a start says nothing and creates no store.
      const first = yield* sessionStart("startup", "new-0", project)
      assert.deepStrictEqual([first.code, first.stdout, fs.existsSync(db)], [0, "", false])

      const older = linesIn("258c7280", project)
      const last = linesIn("ae4a77f8", project)
      const aside = linesIn("ae4a77f8", elsewhere)
      for (const [session, lines, cwd] of [[OLDER, older.lines, project], [ASIDE, aside.lines, elsewhere]] as const) {
        const ended = yield* sessionEnd(session, transcript(session, lines), cwd)
        assert.strictEqual(ended.code, 0, ended.stderr)
      }
      // The user types /clear in the middle of the last session (where Claude Code once compacted it).
      // (The deadline bounds the import too, so a SessionEnd with no time left imports nothing: not tried here.)
      const cut = last.lines.slice(0, last.boundary)
      const ended = yield* sessionEnd(LAST, transcript(LAST, cut), project)
      assert.strictEqual(ended.code, 0, ended.stderr)
      // SessionEnd stored the state of every turn, before it compacted.
      const [state, turns] = yield* storedState(LAST)
      assert.strictEqual(Option.getOrUndefined(state)?.lastSeq, turns.at(-1)!.seq)

      const cleared = yield* sessionStart("clear", "new-1", project)
      assert.strictEqual(cleared.code, 0, cleared.stderr)
      const digest = additionalContext(cleared.stdout)
      expect(digest).toContain(`Earlier sessions in this project (${project})`)
      expect(digest).toContain(`Last session ${LAST} · 2026-02-12 14:11 →`)
      // Its task, its last commit, what it left and the next step, each citing its turn.
      expect(digest).toMatch(/Asked: Work on bead spotter-4te\. .* \[858a6db7\]/)
      expect(digest).toContain("- git commit \"feat: propagate traceparent headers in Claude plugin hook scripts\" [")
      expect(digest).toMatch(
        /- Next: resolve git commit "feat: instrument hook controllers with trace correlation and error spans" failed: Pre-commit validation failed: \[DIALYZER\] \[[0-9a-f]{8}\]/
      )
      expect(digest).toContain("- lib/spotter/telemetry/otel.ex (created)")
      // Every earlier session, and how to look any of it up with real ids.
      expect(digest).toMatch(new RegExp(`- 2026-02-11 · ${OLDER} · asked: Implement spotter-gqc → git commit "feat: `))
      expect(digest).toContain(`mcp__precis__describe {"session": "${LAST}"}, mcp__precis__read {"session": "${LAST}", "id": "`)
      // Nothing of the session held in another folder.
      expect(digest).not.toContain(ASIDE)
      expect(digest).not.toContain(elsewhere)
      assert.isAtMost(TokenEstimator.approximate.estimate(digest), 2500)
      assert.isAtMost(digest.length, maxContextChars)

      // The same store, the same digest, at a start as after a /clear.
      const started = yield* sessionStart("startup", "new-2", project)
      assert.strictEqual(additionalContext(started.stdout), digest)

      // The kept-aside folder gets its own session only; a folder precis has not seen gets nothing.
      const other = additionalContext((yield* sessionStart("startup", "new-3", elsewhere)).stdout)
      expect(other).toContain(`Last session ${ASIDE} ·`)
      expect(other).not.toContain(LAST)
      expect(other).not.toContain(OLDER)
      const unseen = yield* sessionStart("startup", "new-4", path.join(dir, "unseen"))
      assert.deepStrictEqual([unseen.code, unseen.stdout, unseen.stderr], [0, "", ""])
      // A session's own start leaves it out: the digest of a resumed-as-new session id names the others.
      const self = additionalContext((yield* sessionStart("startup", LAST, project)).stdout)
      expect(self).toContain(`Last session ${OLDER} ·`)
    }))
})
