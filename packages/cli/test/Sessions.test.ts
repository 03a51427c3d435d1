/**
 * `precis sessions`: the sessions of a store, read-only.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { afterAll } from "vitest"
import { runCli, tempDir } from "./utils/run.js"
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
          timeRangeEnd: "2025-01-01T00:39:00.000Z"
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

})
