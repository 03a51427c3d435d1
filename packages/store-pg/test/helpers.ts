/**
 * The PostgreSQL server of the tests, and fresh databases on it: for this
 * package's tests and for those of the packages above it (compaction, the CLI),
 * which include this file.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { FollowedFiles, Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { randomUUID } from "node:crypto"
import * as PgStore from "../src/PgStore.js"

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
export const pgStoreLayer = (): Layer.Layer<Store.Store | FollowedFiles.FollowedFiles | SqlClient.SqlClient> =>
  Layer.unwrapScoped(Effect.map(freshPgDatabase, (url) => PgStore.layer({ url: Redacted.make(url) }))).pipe(Layer.orDie)
