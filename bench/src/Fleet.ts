/**
 * Section `fleet`, compaction over many sessions.
 *
 * - Throughput: N `precis compact --all` processes (1, 2 and 4 workers) over
 *   one PostgreSQL database, and one process over a SQLite file, each on a
 *   fresh store of the same sessions; wall time from the workers' start to the
 *   last one's exit, process start included. Twice: with the extractive
 *   provider (the workers are CPU-bound) and with a simulated model (a local
 *   OpenAI-compatible server answering each call after 20 to 50 ms, or
 *   `PRECIS_BENCH_MODEL_MS=MIN-MAX`, the delay and reply derived from the
 *   request, so that the workers wait on the model, as with a real one). Each run's rate is a ratio against its provider's
 *   1-worker PostgreSQL run of the same section run.
 * - Finding work: what one worker's look for work costs over N idle sessions
 *   and one with work, before the work queue (one round of the old
 *   `compactAll`: the session list, then each session's uncovered turns and
 *   parentless summaries) and with it (`WorkQueue.claimWork`, one
 *   statement), at 200 and 2,000 sessions, on SQLite and PostgreSQL.
 *
 * The PostgreSQL parts need a server: `PRECIS_BENCH_PG_URL` (or
 * `PRECIS_TEST_PG_URL`), a URL whose user may create databases; without one
 * they are skipped with a note.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"

import { ConversationTurn } from "@precis/core"
import { Store, type StoreError } from "@precis/store"
import { PgStore } from "@precis/store-pg"
import { SqliteStore } from "@precis/store-sqlite"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { execFile } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ModelServer from "./internal/modelServer.js"
import { figure, type Figure } from "./Results.js"
import { binPath } from "./Startup.js"
import { median } from "./Stats.js"

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

/**
 * The workers' provider: the offline extractive one (CPU-bound workers) or a
 * simulated model answering after 20 to 50 ms (workers waiting on the model).
 *
 * @since 0.1.0
 */
export type FleetProvider = "extractive" | "simulated"

/**
 * One configuration's run: the store, the provider, the workers, the work and its wall time.
 *
 * @since 0.1.0
 */
export interface FleetResult {
  readonly store: "postgres" | "sqlite"
  readonly provider: FleetProvider
  readonly workers: number
  readonly sessions: number
  readonly turnsCompacted: number
  readonly summaries: number
  /** Sessions each worker compacted. */
  readonly perWorker: ReadonlyArray<number>
  readonly seconds: number
  /** The machine's 1-minute load average at the start and at the end of the run. */
  readonly load: readonly [number, number]
}

/**
 * What finding work cost over `sessions` idle sessions and one with work:
 * a round of the per-session scan, and one claim from the work queue
 * (milliseconds, medians).
 *
 * @since 0.1.0
 */
export interface FindWorkResult {
  readonly store: "postgres" | "sqlite"
  readonly sessions: number
  readonly scanMs: number
  readonly claimMs: number
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

type StoreLayer = Layer.Layer<Store.Store, StoreError.StoreError>

const seed = (store: StoreLayer, sessions: number, turns: number) =>
  Effect.runPromise(
    Effect.flatMap(Store.all, (memory) =>
      Effect.forEach(
        Array.from({ length: sessions }, (_, s) => s),
        (s) => memory.appendTurns(`s${s}`, turnsOf(s, turns)),
        { concurrency: 4, discard: true }
      )).pipe(Effect.provide(store))
  )

type Model = ModelServer.Model

interface WorkerOutput {
  readonly sessions: ReadonlyArray<unknown>
  readonly totals: {
    readonly turnsCompacted: number
    readonly leafSummariesCreated: number
    readonly condensedSummariesCreated: number
  }
}

const worker = (db: string, model: Model | undefined) =>
  new Promise<WorkerOutput>((resolve, reject) => {
    const provider = model === undefined ? [] : ["--provider", "openai"]
    execFile(process.execPath, [binPath(), "compact", "--all", "--db", db, ...provider, ...flags], {
      maxBuffer: 64 << 20,
      env: { ...process.env, ...model?.env }
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
  sessions: number,
  model: Model | undefined
): Promise<FleetResult> => {
  const loadBefore = os.loadavg()[0]!
  const t0 = performance.now()
  const outputs = await Promise.all(Array.from({ length: workers }, () => worker(db, model)))
  const seconds = (performance.now() - t0) / 1000
  const load = [loadBefore, os.loadavg()[0]!].map((x) => Number(x.toFixed(1)))
  const perWorker = outputs.map((o) => o.sessions.length)
  const done = perWorker.reduce((a, b) => a + b, 0)
  if (done !== sessions) throw new Error(`${workers} workers compacted ${done} sessions of ${sessions}`)
  return {
    store,
    provider: model === undefined ? "extractive" : "simulated",
    workers,
    sessions,
    turnsCompacted: outputs.reduce((n, o) => n + o.totals.turnsCompacted, 0),
    summaries: outputs.reduce(
      (n, o) => n + o.totals.leafSummariesCreated + o.totals.condensedSummariesCreated,
      0
    ),
    perWorker,
    seconds: Number(seconds.toFixed(2)),
    load: [load[0]!, load[1]!]
  }
}

// Runs `statement` on the server's administration database.
const admin = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url) }))
    )
  )

/** Runs `use` over a fresh database on the server at `url`, dropped afterwards. */
const withPgDatabase = async <A>(url: string, use: (database: string) => Promise<A>): Promise<A> => {
  const name = `precis_bench_${randomUUID().replaceAll("-", "")}`
  await admin(url, `CREATE DATABASE ${name}`)
  try {
    const target = new URL(url)
    target.pathname = `/${name}`
    return await use(target.toString())
  } finally {
    await admin(url, `DROP DATABASE ${name} WITH (FORCE)`)
  }
}

/** Runs `use` over a fresh SQLite file, removed afterwards. */
const withSqliteFile = async <A>(use: (file: string) => Promise<A>): Promise<A> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-fleet-"))
  try {
    return await use(path.join(dir, "fleet.db"))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const pgStore = (url: string): StoreLayer => PgStore.layer({ url: Redacted.make(url) })
const sqliteStore = (file: string): StoreLayer => SqliteStore.layer({ filename: file })

const onPostgres = (url: string, workers: number, sessions: number, turns: number, model: Model | undefined) =>
  withPgDatabase(url, async (db) => {
    await seed(pgStore(db), sessions, turns)
    return await fleet("postgres", db, workers, sessions, model)
  })

const onSqlite = (sessions: number, turns: number, model: Model | undefined) =>
  withSqliteFile(async (file) => {
    await seed(sqliteStore(file), sessions, turns)
    return await fleet("sqlite", file, 1, sessions, model)
  })

const millis = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(effect), ([elapsed]) => Duration.toMillis(elapsed))

/**
 * `sessions` idle sessions (8 turns each: all in the fresh tail, nothing to
 * do) and one with work, taken off the queue as a first worker would; then
 * the median cost of the old round of looking (the session list, each
 * session's uncovered turns and parentless summaries) and of one claim.
 */
const findWork = (kind: FindWorkResult["store"], store: StoreLayer, sessions: number) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const memory = yield* Store.all
      yield* Effect.forEach(
        Array.from({ length: sessions }, (_, s) => s),
        (s) => memory.appendTurns(`idle${s}`, turnsOf(s, 8)),
        { concurrency: 4, discard: true }
      )
      // The first worker finds every idle session without work and takes it off the queue.
      while (true) {
        const claim = yield* memory.claimWork
        if (Option.isNone(claim)) break
        yield* memory.settleWork(claim.value)
      }
      yield* memory.appendTurns("busy", turnsOf(sessions, 100))
      const scan = Effect.flatMap(memory.sessions, (all) =>
        Effect.forEach(all, (session) => Effect.all([memory.uncoveredTurns(session.id), memory.parentless(session.id)]), {
          discard: true
        }))
      const scans = yield* Effect.forEach(Array.from({ length: 3 }), () => millis(scan))
      const claims = yield* Effect.forEach(Array.from({ length: 30 }), () =>
        millis(Effect.flatMap(memory.claimWork, (claim) =>
          Option.isSome(claim) && claim.value.sessionId === "busy"
            ? Effect.void
            : Effect.dieMessage("the queue did not give the session with work"))))
      return {
        store: kind,
        sessions,
        scanMs: Number(median(scans).toFixed(2)),
        claimMs: Number(median(claims).toFixed(3))
      } satisfies FindWorkResult
    }).pipe(Effect.provide(store))
  )

const storeLabel = (store: "postgres" | "sqlite") => (store === "sqlite" ? "SQLite" : "PostgreSQL")

/**
 * The section: 200 sessions of 100 turns (40 of 50 with `quick`) with each
 * provider, on SQLite with one process, then on PostgreSQL with 1, 2 and 4
 * workers; then the cost of finding work at 200 and 2,000 sessions (100 and
 * 400 with `quick`).
 *
 * @since 0.1.0
 */
export const run = async (
  options: Options
): Promise<{
  readonly figures: ReadonlyArray<Figure>
  readonly results: { readonly fleets: ReadonlyArray<FleetResult>; readonly findWork: ReadonlyArray<FindWorkResult> }
}> => {
  const sessions = options.quick ? 40 : 200
  const turns = options.quick ? 50 : 100
  const url = process.env.PRECIS_BENCH_PG_URL ?? process.env.PRECIS_TEST_PG_URL
  if (url === undefined) {
    process.stderr.write("note: fleet: no PRECIS_BENCH_PG_URL or PRECIS_TEST_PG_URL, the PostgreSQL part is skipped\n")
  }
  const fleets: Array<FleetResult> = []
  const range = ModelServer.latencyRange()
  const model = await ModelServer.start(range)
  try {
    for (const m of [undefined, model]) {
      fleets.push(await onSqlite(sessions, turns, m))
      if (url !== undefined) {
        for (const workers of [1, 2, 4]) fleets.push(await onPostgres(url, workers, sessions, turns, m))
      }
    }
  } finally {
    await model.close()
  }
  const finds: Array<FindWorkResult> = []
  for (const n of options.quick ? [100, 400] : [200, 2000]) {
    finds.push(await withSqliteFile((file) => findWork("sqlite", sqliteStore(file), n)))
    if (url !== undefined) finds.push(await withPgDatabase(url, (db) => findWork("postgres", pgStore(db), n)))
  }

  const rate = (r: FleetResult) => r.sessions / r.seconds
  const label = (r: FleetResult) =>
    `${r.store === "sqlite" ? "SQLite, 1 process" : `PostgreSQL, ${r.workers} worker${r.workers === 1 ? "" : "s"}`}, ` +
    (r.provider === "extractive" ? "extractive provider" : `simulated ${range.min}-${range.max} ms model`)
  const throughput = fleets.map((r) => {
    const single = fleets.find((s) => s.store === "postgres" && s.workers === 1 && s.provider === r.provider)
    return figure({
      section: "fleet",
      name: `${label(r)}: sessions compacted per second (${r.sessions} sessions of ${turns} turns)`,
      value: Number(rate(r).toFixed(2)),
      unit: "sessions/s",
      baseline: single !== undefined && single !== r
        ? { name: label(single), value: Number(rate(single).toFixed(2)), unit: "sessions/s" }
        : undefined,
      note: `${r.turnsCompacted} turns into ${r.summaries} summaries in ${r.seconds} s; sessions per worker ` +
        `${r.perWorker.join("/")}; load average ${r.load[0]} to ${r.load[1]}`
    })
  })
  const finding = finds.map((f) =>
    figure({
      section: "fleet",
      name: `${storeLabel(f.store)}: finding work among ${f.sessions} idle sessions and 1 with work, one claim`,
      value: f.claimMs,
      unit: "ms",
      baseline: { name: "a round of the per-session scan", value: f.scanMs, unit: "ms" },
      note: "medians: 30 claims, 3 scans"
    })
  )
  return { figures: [...throughput, ...finding], results: { fleets, findWork: finds } }
}
