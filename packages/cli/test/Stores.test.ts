/**
 * What the commands do with a store that is missing, foreign, empty or not
 * SQLite, and with a session it does not hold: one line naming the file or
 * the session, nothing created or changed.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { assertOneLineFailure, escape, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"
import { compactedStore } from "./utils/store.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("missing stores and unknown sessions", () => {
  const { db } = compactedStore(dir)

  it.live("an unknown session is one line naming the sessions", () =>
    Effect.gen(function*() {
      for (const command of ["show", "context", "compact"]) {
        const result = yield* runCli([command, "--db", db, "--session", "nope"])
        assertOneLineFailure(result, /unknown session 'nope' in .*dag\.db \(sessions: dag\)$/)
      }
    }))

  it.live("show, context and compact without FILE never create a missing store", () =>
    Effect.gen(function*() {
      const missing = path.join(dir, "missing.db")
      for (const command of ["show", "context", "compact"]) {
        const result = yield* runCli([command, "--db", missing])
        assertOneLineFailure(result, /missing\.db: no such store/)
      }
      assert.isFalse(fs.existsSync(missing))
    }))

  it.live("without the store, show, context and sessions name the .db files found beside it", () =>
    Effect.gen(function*() {
      const folder = fs.mkdtempSync(path.join(dir, "hint-"))
      const wanted = path.join(folder, "precis.db")
      const none = yield* runCli(["sessions", "--db", wanted])
      assertOneLineFailure(none, /precis\.db: no such store \(import a file first/)
      fs.copyFileSync(db, path.join(folder, "demo.db"))
      for (const command of ["show", "context", "sessions"]) {
        const one = yield* runCli([command, "--db", wanted])
        const demo = path.join(folder, "demo.db")
        assertOneLineFailure(one, `precis: ${wanted}: no such store; found ${demo} in ${folder}: use --db ${demo}`)
      }
      fs.copyFileSync(db, path.join(folder, "other.db"))
      const several = yield* runCli(["show", "--db", wanted])
      assertOneLineFailure(several, /found .*demo\.db, .*other\.db in .*: choose one with --db$/)
      assert.isFalse(fs.existsSync(wanted))
    }))

  it.live("a store that is not SQLite fails with one line naming the file", () =>
    Effect.gen(function*() {
      const junk = write(dir, "junk.db", "not a database\n")
      for (const command of ["show", "context", "sessions"]) {
        assertOneLineFailure(yield* runCli([command, "--db", junk]), new RegExp(`^precis: ${escape(junk)}: `))
      }
    }))

})

describe("stores that are not ours, read-only commands", () => {
  const siblings = (db: string) => fs.readdirSync(dir).filter((name) => name.startsWith(`${path.basename(db)}-`))

  it.live("show and context read a store without writing it: no -wal/-shm left, bytes identical", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "readonly.db")
      const file = write(dir, "readonly.jsonl", sessionJsonl(30, "r"))
      const compacted = yield* runCli(["compact", file, "--db", db, "--leaf-chunk-tokens", "300"])
      assert.strictEqual(compacted.code, 0, compacted.stderr)
      const before = fs.readFileSync(db)
      for (const command of ["show", "context"]) {
        const result = yield* runCli([command, "--db", db])
        assert.strictEqual(result.code, 0, result.stderr)
      }
      assert.deepStrictEqual(siblings(db), [])
      assert.isTrue(before.equals(fs.readFileSync(db)))
    }))

  it.live("show and context on a 0-byte file: one line naming it, the file unchanged", () =>
    Effect.gen(function*() {
      const zero = write(dir, "zero.db", "")
      for (const command of ["show", "context"]) {
        assertOneLineFailure(yield* runCli([command, "--db", zero]), `${zero}: not a precis store (it is empty)`)
      }
      assert.strictEqual(fs.statSync(zero).size, 0)
      assert.deepStrictEqual(siblings(zero), [])
    }))

  it.live("every command refuses a database with tables but no precis migrations, naming it, leaving it unchanged", () =>
    Effect.gen(function*() {
      const file = write(dir, "into-foreign.jsonl", sessionJsonl(5, "x"))
      const foreign = path.join(dir, "other.db")
      // Tables without precis's migration table: what another program's SQLite file looks like to precis.
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP TABLE precis_migrations`).pipe(
        Effect.provide(storeLayer(foreign))
      )
      const before = fs.readFileSync(foreign)
      for (const args of [["import", file], ["compact", file], ["show"], ["context"]]) {
        assertOneLineFailure(
          yield* runCli([...args, "--db", foreign]),
          `${foreign}: not a precis store (it has tables but no precis migrations)`
        )
      }
      assert.isTrue(before.equals(fs.readFileSync(foreign)))
      assert.deepStrictEqual(siblings(foreign), [])
    }))

  it.live("--db with an empty name is refused before anything is written", () =>
    Effect.gen(function*() {
      const file = write(dir, "nodb.jsonl", sessionJsonl(3, "n"))
      const result = yield* runCli(["import", file, "--db", ""])
      assert.strictEqual(result.code, 1)
      expect(result.stderr).toContain("--db must name a file")
    }))
})
