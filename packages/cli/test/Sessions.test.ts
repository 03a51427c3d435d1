/**
 * `precis sessions`: the sessions of a store, read-only.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { afterAll } from "vitest"
import * as path from "node:path"
import { claudeCodeJsonl, runCli, tempDir, write } from "./utils/run.js"
import { compactedStore } from "./utils/store.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("sessions", () => {
  const { compacted, db } = compactedStore(dir)

  it.live("sessions lists each session with its sizes and time range, and changes nothing", () =>
    Effect.gen(function*() {
      const before = fs.readFileSync(db)
      const json = yield* runCli(["sessions", "--db", db, "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const stats = JSON.parse(compacted().stdout)
      assert.deepStrictEqual(JSON.parse(json.stdout), {
        db,
        sessions: [{
          id: "dag",
          turns: 40,
          uncoveredTurns: 6,
          summaries: stats.leafSummariesCreated + stats.condensedSummariesCreated,
          timeRangeStart: "2025-01-01T00:00:00.000Z",
          timeRangeEnd: "2025-01-01T00:39:00.000Z",
          project: null
        }]
      })
      const text = yield* runCli(["sessions", "--db", db])
      assert.strictEqual(
        text.stdout,
        `dag · 40 turns (6 not summarized) · ${
          stats.leafSummariesCreated + stats.condensedSummariesCreated
        } summaries · 2025-01-01T00:00:00 → 2025-01-01T00:39:00`
      )
      assert.isTrue(fs.readFileSync(db).equals(before))
    }))

  it.live("sessions are grouped under the folder their turns were held in, those without one last", () =>
    Effect.gen(function*() {
      const store = path.join(dir, "projects.db")
      for (const [session, cwd, minute] of [["s1", "/w/app", 0], ["s2", "/w/lib", 5], ["s3", "/w/app", 10]] as const) {
        const file = write(dir, `${session}.jsonl`, claudeCodeJsonl(session, cwd, minute))
        assert.strictEqual((yield* runCli(["import", file, "--db", store, "--session", session])).code, 0)
      }
      const plain = write(dir, "plain.jsonl", `${JSON.stringify({ id: "p0", role: "user", content: "no folder" })}\n`)
      assert.strictEqual((yield* runCli(["import", plain, "--db", store, "--session", "s0"])).code, 0)
      const text = (yield* runCli(["sessions", "--db", store])).stdout.split("\n")
      assert.deepStrictEqual(text.map((l) => l.split(" · ")[0]), [
        "/w/app (claude-code)",
        "  s1",
        "  s3",
        "/w/lib (claude-code)",
        "  s2",
        "(no project)",
        "  s0"
      ])
      const json = JSON.parse((yield* runCli(["sessions", "--db", store, "--json"])).stdout)
      assert.deepStrictEqual(json.sessions.find((s: { id: string }) => s.id === "s2").project, {
        directory: "/w/lib",
        agent: "claude-code"
      })
    }))

})
