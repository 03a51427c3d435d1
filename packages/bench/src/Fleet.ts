/**
 * Section `fleet`, compaction throughput over many sessions: N `precis compact
 * --all` processes (1, 2 and 4 workers) over one PostgreSQL database, and one
 * process over a SQLite file, each on a fresh store of the same sessions
 * (extractive provider). Wall time from the workers' start to the last one's
 * exit, process start included. The PostgreSQL part needs a server:
 * `PRECIS_BENCH_PG_URL` (or `PRECIS_TEST_PG_URL`), a URL whose user may
 * create databases; without one it is skipped with a note.
 *
 * @since 0.3.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { MemoryStore, PgMemoryStore, SqliteMemoryStore } from "@precis/compaction"
import { ConversationTurn } from "@precis/core"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { execFile } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { figure, type Figure } from "./Results.js"
import { binPath } from "./Startup.js"

/**
 * @since 0.3.0
 */
export interface Options {
  readonly quick: boolean
}

/**
 * One configuration's run: the store, the workers, the work and its wall time.
 *
 * @since 0.3.0
 */
export interface FleetResult {
  readonly store: "postgres" | "sqlite"
  readonly workers: number
  readonly sessions: number
  readonly turnsCompacted: number
  readonly summaries: number
  /** Sessions each worker compacted. */
  readonly perWorker: ReadonlyArray<number>
  readonly seconds: number
}

const flags = ["--leaf-chunk-tokens", "600", "--fresh-tail", "8", "--json"]

/** The turns of session `s`: a coding conversation of `count` turns. */
const turnsOf = (s: number, count: number) =>
  Array.from({ length: count }, (_, i) =>
    ConversationTurn.make({
      id: `t${i}`,
      role: i % 2 === 0 ? "user" : "assistant",
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      content: `Session ${s}, step ${i}: edited src/module${i % 17}.ts and ran the tests of pkg${s % 13}; ` +
        `it failed with TypeError: cannot read property 'x${i}' of undefined, fixed by guarding the call.`
    }))

const seed = (store: Layer.Layer<MemoryStore.MemoryStore, MemoryStore.StoreError>, sessions: number, turns: number) =>
  Effect.runPromise(
    Effect.flatMap(MemoryStore.MemoryStore, (memory) =>
      Effect.forEach(
        Array.from({ length: sessions }, (_, s) => s),
        (s) => memory.appendTurns(`s${s}`, turnsOf(s, turns)),
        { concurrency: 4, discard: true }
      )).pipe(Effect.provide(store))
  )

interface WorkerOutput {
  readonly sessions: ReadonlyArray<unknown>
  readonly totals: {
    readonly turnsCompacted: number
    readonly leafSummariesCreated: number
    readonly condensedSummariesCreated: number
  }
}

const worker = (db: string) =>
  new Promise<WorkerOutput>((resolve, reject) => {
    execFile(process.execPath, [binPath(), "compact", "--all", "--db", db, ...flags], {
      maxBuffer: 64 << 20
    }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`precis compact --all failed: ${stderr}`))
      else resolve(JSON.parse(stdout) as WorkerOutput)
    })
  })

/** Runs `workers` processes over `db` at once; their outputs and the wall time. */
const fleet = async (
  store: FleetResult["store"],
  db: string,
  workers: number,
  sessions: number
): Promise<FleetResult> => {
  const t0 = performance.now()
  const outputs = await Promise.all(Array.from({ length: workers }, () => worker(db)))
  const seconds = (performance.now() - t0) / 1000
  const perWorker = outputs.map((o) => o.sessions.length)
  const done = perWorker.reduce((a, b) => a + b, 0)
  if (done !== sessions) throw new Error(`${workers} workers compacted ${done} sessions of ${sessions}`)
  return {
    store,
    workers,
    sessions,
    turnsCompacted: outputs.reduce((n, o) => n + o.totals.turnsCompacted, 0),
    summaries: outputs.reduce(
      (n, o) => n + o.totals.leafSummariesCreated + o.totals.condensedSummariesCreated,
      0
    ),
    perWorker,
    seconds: Number(seconds.toFixed(2))
  }
}

// Runs `statement` on the server's administration database.
const admin = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url) }))
    )
  )

/** A fresh database on the server at `url`, seeded, the fleet run over it, then dropped. */
const onPostgres = async (url: string, workers: number, sessions: number, turns: number) => {
  const name = `precis_bench_${randomUUID().replaceAll("-", "")}`
  await admin(url, `CREATE DATABASE ${name}`)
  try {
    const target = new URL(url)
    target.pathname = `/${name}`
    await seed(PgMemoryStore.layer({ url: Redacted.make(target.toString()) }), sessions, turns)
    return await fleet("postgres", target.toString(), workers, sessions)
  } finally {
    await admin(url, `DROP DATABASE ${name} WITH (FORCE)`)
  }
}

const onSqlite = async (sessions: number, turns: number) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-fleet-"))
  try {
    const file = path.join(dir, "fleet.db")
    await seed(SqliteMemoryStore.layer({ filename: file }), sessions, turns)
    return await fleet("sqlite", file, 1, sessions)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The section: 200 sessions of 100 turns (40 of 50 with `quick`) on SQLite
 * with one process, then on PostgreSQL with 1, 2 and 4 workers.
 *
 * @since 0.3.0
 */
export const run = async (
  options: Options
): Promise<{ readonly figures: ReadonlyArray<Figure>; readonly results: ReadonlyArray<FleetResult> }> => {
  const sessions = options.quick ? 40 : 200
  const turns = options.quick ? 50 : 100
  const url = process.env.PRECIS_BENCH_PG_URL ?? process.env.PRECIS_TEST_PG_URL
  const results: Array<FleetResult> = [await onSqlite(sessions, turns)]
  if (url === undefined) {
    process.stderr.write("note: fleet: no PRECIS_BENCH_PG_URL or PRECIS_TEST_PG_URL, the PostgreSQL part is skipped\n")
  } else {
    for (const workers of [1, 2, 4]) results.push(await onPostgres(url, workers, sessions, turns))
  }
  const rate = (r: FleetResult) => r.sessions / r.seconds
  const label = (r: FleetResult) =>
    r.store === "sqlite" ? "SQLite, 1 process" : `PostgreSQL, ${r.workers} worker${r.workers === 1 ? "" : "s"}`
  const single = results.find((r) => r.store === "postgres" && r.workers === 1)
  const figures = results.map((r) =>
    figure({
      section: "fleet",
      name: `${label(r)}: sessions compacted per second (${r.sessions} sessions of ${turns} turns)`,
      value: Number(rate(r).toFixed(2)),
      unit: "sessions/s",
      baseline: r.store === "postgres" && r.workers > 1 && single !== undefined
        ? { name: label(single), value: Number(rate(single).toFixed(2)), unit: "sessions/s" }
        : undefined,
      note: `${r.turnsCompacted} turns into ${r.summaries} summaries in ${r.seconds} s; sessions per worker ` +
        r.perWorker.join("/")
    })
  )
  return { figures, results }
}
