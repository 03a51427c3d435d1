/**
 * A fleet of workers as real processes: `precis compact --all` in 4 processes
 * over one PostgreSQL database of 200 sessions. Each session is compacted by
 * one worker (the store's session lease, a PostgreSQL advisory lock), every
 * evictable turn is covered by exactly one leaf, the store's invariants hold,
 * and every worker takes a share of the work.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, expect, it } from "@effect/vitest"
import { ConversationTurn } from "@precis/core"
import { TurnStore } from "@precis/store"
import { PgStore } from "@precis/store-pg"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { freshPgDatabase, pgClient, skipPg } from "../../store-pg/test/helpers.js"
import { repoRoot } from "./utils/run.js"

const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")

const SESSIONS = 200
const TURNS = 12
const TAIL = 4
const WORKERS = 4
const flags = ["--leaf-chunk-tokens", "300", "--fresh-tail", `${TAIL}`, "--min-fan-in", "2", "--max-fan-in", "3"]

const precis = (args: ReadonlyArray<string>) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(process.execPath, [bin, ...args], { timeout: 150_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
      resume(Effect.succeed({ code, stdout, stderr }))
    })
  })

/** The turns of session `s`: a short coding conversation. */
const turnsOf = (s: number) =>
  Array.from({ length: TURNS }, (_, i) =>
    ConversationTurn.make({
      id: `t${i}`,
      role: i % 2 === 0 ? "user" : "assistant",
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      content: `Session ${s}, step ${i}: edited src/module${i}.ts and ran the tests of pkg${s}; ` +
        `it failed with TypeError: cannot read property 'x${i}' of undefined, fixed by guarding the call.`
    }))

describe.skipIf(skipPg)("precis compact --all workers over one PostgreSQL database", () => {
  it.scopedLive(`${WORKERS} processes compact ${SESSIONS} sessions, each once, sharing the work`, () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const db = pgClient(url)
      yield* Effect.flatMap(TurnStore.TurnStore, (store) =>
        Effect.forEach(
          Array.from({ length: SESSIONS }, (_, s) => s),
          (s) => store.appendTurns(`s${s}`, turnsOf(s)),
          { concurrency: 8, discard: true }
        )).pipe(Effect.provide(PgStore.layer({ url: Redacted.make(url) })))

      const started = Date.now()
      const runs = yield* Effect.all(
        Array.from({ length: WORKERS }, () => precis(["compact", "--all", "--db", url, "--json", ...flags])),
        { concurrency: "unbounded" }
      )
      const results = runs.map((run) => {
        assert.strictEqual(run.code, 0, run.stderr)
        return JSON.parse(run.stdout) as {
          sessions: ReadonlyArray<{ sessionId: string; turnsCompacted: number }>
          totals: { turnsCompacted: number; leafSummariesCreated: number; condensedSummariesCreated: number }
          skippedLocked: number
        }
      })
      const perWorker = results.map((r) => ({
        sessions: r.sessions.length,
        turns: r.totals.turnsCompacted,
        leaves: r.totals.leafSummariesCreated,
        condensed: r.totals.condensedSummariesCreated,
        skippedLocked: r.skippedLocked
      }))
      console.log(`${WORKERS} workers in ${Date.now() - started} ms: ${JSON.stringify(perWorker)}`)

      // Each session was compacted by exactly one worker, and every worker had a share.
      const compacted = results.flatMap((r) => r.sessions.map((s) => s.sessionId))
      expect(compacted.length).toBe(SESSIONS)
      expect(new Set(compacted).size).toBe(SESSIONS)
      for (const worker of perWorker) assert.isAbove(worker.sessions, 0)
      expect(perWorker.reduce((n, w) => n + w.turns, 0)).toBe(SESSIONS * (TURNS - TAIL))

      // Every evictable turn is covered by one leaf (no duplicate summaries), and the DAG is consistent.
      const [covered] = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ links: string; turns: string; sessions: string }>`
            SELECT count(*) AS links, count(DISTINCT (s.session_id, ss.turn_id)) AS turns,
              count(DISTINCT s.session_id) AS sessions
            FROM summary_sources ss JOIN summaries s ON s.id = ss.summary_id
            WHERE ss.turn_id IS NOT NULL`
      ).pipe(Effect.provide(db))
      expect(Number(covered!.links)).toBe(SESSIONS * (TURNS - TAIL))
      expect(Number(covered!.turns)).toBe(SESSIONS * (TURNS - TAIL))
      expect(Number(covered!.sessions)).toBe(SESSIONS)
      expect(
        yield* StoreInvariants.violations({ freshTailTurns: TAIL, minFanIn: 2, maxFanIn: 3, condensedFully: true }).pipe(
          Effect.provide(db)
        )
      ).toEqual([])
    }).pipe(Effect.orDie), 240_000)
})
