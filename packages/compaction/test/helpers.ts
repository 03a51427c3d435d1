/**
 * Layers and small tools shared by the tests.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { type Provider, Summarizer } from "@precis/core"
import { ScriptedProvider } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { randomUUID } from "node:crypto"
import * as CompactionManager from "../src/CompactionManager.js"
import * as CompactionOptions from "../src/CompactionOptions.js"
import type * as MemoryStore from "../src/MemoryStore.js"
import * as PgMemoryStore from "../src/PgMemoryStore.js"
import * as SqliteMemoryStore from "../src/SqliteMemoryStore.js"

/** A store over SQLite, with its `SqlClient` exposed to the invariant checker. */
export const storeLayer = (filename = ":memory:") =>
  SqliteMemoryStore.layerClient.pipe(Layer.provideMerge(SqliteClient.layer({ filename })), Layer.orDie)

/**
 * The PostgreSQL server of the tests (`scripts/pg-test-server.sh start`
 * prints it): the PostgreSQL tests skip without it, except under CI, where
 * they fail.
 */
export const pgUrl: string | undefined = process.env.PRECIS_TEST_PG_URL

/** True when the PostgreSQL tests must be skipped (no server, not under CI). */
export const skipPg = pgUrl === undefined && process.env.CI === undefined

const requirePgUrl = (): string => {
  if (pgUrl === undefined) throw new Error("PRECIS_TEST_PG_URL is not set: start scripts/pg-test-server.sh")
  return pgUrl
}

/** A plain client of the PostgreSQL database at `url` (for the invariant checker). */
export const pgClient = (url: string) => PgClient.layer({ url: Redacted.make(url) })

/** A fresh database on the test server, dropped when the scope closes; its URL. */
export const freshPgDatabase = Effect.gen(function*() {
  const admin = requirePgUrl()
  const name = `precis_test_${randomUUID().replaceAll("-", "")}`
  const run = (statement: string) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(admin) })),
      Effect.orDie
    )
  yield* Effect.acquireRelease(run(`CREATE DATABASE ${name}`), () => run(`DROP DATABASE ${name} WITH (FORCE)`))
  const url = new URL(admin)
  url.pathname = `/${name}`
  return url.toString()
})

/** A store over a fresh PostgreSQL database, with its `SqlClient` exposed to the invariant checker. */
export const pgStoreLayer = () =>
  Layer.unwrapScoped(
    Effect.map(
      freshPgDatabase,
      (url) => PgMemoryStore.layerClient.pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(url) })))
    )
  ).pipe(Layer.orDie)

/** A short reply derived from the request, always shorter than a chunk's material. */
export const shortReply = (request: Provider.ChatRequest): ScriptedProvider.Outcome =>
  ScriptedProvider.reply(`${request.task?.kind ?? "?"} of ${request.task?.material.length ?? 0} chars`)

/** The manager's requirements: a store, a Summarizer and a scripted provider. */
export const depsLayer = (
  provider: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider> = ScriptedProvider.respond(shortReply),
  filename?: string
) => depsOn(storeLayer(filename), provider)

/** The manager's requirements over the given store. */
export const depsOn = (
  store: Layer.Layer<MemoryStore.MemoryStore | SqlClient.SqlClient>,
  provider: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider> = ScriptedProvider.respond(shortReply)
) => Layer.mergeAll(store, Summarizer.layer().pipe(Layer.provideMerge(provider)))

/** Everything a compaction test needs, over the given store. */
export const managerOn = (
  store: Layer.Layer<MemoryStore.MemoryStore | SqlClient.SqlClient>,
  provider?: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>,
  options?: CompactionOptions.Options
) => CompactionManager.layer(options).pipe(Layer.provideMerge(depsOn(store, provider)))

/** Everything a compaction test needs, over an in-memory (or file) store. */
export const managerLayer = (
  provider?: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>,
  options?: CompactionOptions.Options,
  filename?: string
) => CompactionManager.layer(options).pipe(Layer.provideMerge(depsLayer(provider, filename)))

/** Yields until `condition` holds (everything here is in-process, so a few yields suffice). */
export const waitUntil = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 10_000; i++) {
      if (yield* condition) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage("waitUntil: condition never held")
  })

/** How many requests the scripted provider received. */
export const requestCount = Effect.map(
  ScriptedProvider.ScriptedProvider,
  (recorder) => recorder.requests.pipe(Effect.map((rs) => rs.length))
).pipe(Effect.flatten)

/**
 * Runs `effect` to its end under the TestClock, advancing the clock past any
 * provider timeout or delay whenever the fiber is stuck waiting on it.
 */
export const runPumped = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    for (let i = 0; i < 5_000; i++) {
      for (let j = 0; j < 20; j++) yield* Effect.yieldNow()
      const done = yield* Fiber.poll(fiber)
      if (Option.isSome(done)) return yield* Fiber.join(fiber)
      yield* TestClock.adjust("61 seconds")
    }
    return yield* Effect.dieMessage("runPumped: the effect never finished")
  })
