/**
 * The CLI's own table of followed files (`precis watch`): created by the CLI,
 * not by the library's migrations; rows a store already holds are read as
 * they are; and an offset is committed with the turns read up to it, or not
 * at all.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { Fixtures } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { gunzipSync } from "node:zlib"
import { afterAll } from "vitest"
import { pgStoreLayer, skipPg } from "../../store-pg/test/helpers.js"
import * as FollowedFiles from "../src/internal/followedFiles.js"
import { runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures")

/** Rows of a statement on the store `filename`, through the store's own client. */
const rows = <A extends object>(filename: string, statement: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)).pipe(
    Effect.provide(SqliteStore.layer({ filename })),
    Effect.orDie
  )

const followed = { path: "/t/a.jsonl", sessionId: "a", format: "precis", byteOffset: 120, lineCount: 3, headHash: "h" }

describe("followed files", () => {
  it.effect("a new store has no table of the CLI's until the CLI creates it; its rows round-trip", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "new.db")
      yield* Effect.scoped(Layer.build(SqliteStore.layer({ filename: db })))
      const table = "SELECT name FROM sqlite_master WHERE name = 'followed_files'"
      assert.deepStrictEqual(yield* rows(db, table), [])
      const [saved, other] = yield* Effect.gen(function*() {
        const files = yield* FollowedFiles.make
        yield* files.save(followed)
        yield* files.save({ ...followed, byteOffset: 240, lineCount: 6 })
        return [yield* files.get(followed.path), yield* files.get("/t/other.jsonl")] as const
      }).pipe(Effect.provide(SqliteStore.layer({ filename: db })))
      assert.deepStrictEqual(saved, Option.some({ ...followed, byteOffset: 240, lineCount: 6 }))
      assert.deepStrictEqual(other, Option.none())
      assert.deepStrictEqual(yield* rows(db, table), [{ name: "followed_files" }])
    }))

  it.live("a store written before the table was the CLI's keeps its rows, and watch resumes from them", () =>
    Effect.gen(function*() {
      // Written by `precis watch` when the library's migrations created the table (schema 7,
      // migration 3 `followed_files`): it followed /tmp/fx/watched.jsonl, 6 lines, 657 bytes.
      const db = path.join(dir, "watched.db")
      fs.writeFileSync(db, gunzipSync(fs.readFileSync(path.join(fixtures, "watched-schema7.db.gz"))))
      const recorded = {
        path: "/tmp/fx/watched.jsonl",
        sessionId: "watched",
        format: "precis",
        byteOffset: 657,
        lineCount: 6,
        headHash: "43a33faeff8af9b8dc38b95c503ebef63d82d895"
      }
      const read = Effect.flatMap(FollowedFiles.make, (files) => files.get(recorded.path))
      assert.deepStrictEqual(
        yield* read.pipe(Effect.provide(SqliteStore.layer({ filename: db }).pipe(Layer.orDie))),
        Option.some(recorded)
      )

      // The same transcript, grown by two lines, where this test keeps its files.
      const file = path.join(dir, "watched.jsonl")
      const grown = JSON.stringify({ id: "w6", role: "user", content: "and two more lines" }) + "\n" +
        JSON.stringify({ id: "w7", role: "assistant", content: "read after the restart" }) + "\n"
      fs.writeFileSync(file, fs.readFileSync(path.join(fixtures, "watched.jsonl"), "utf8") + grown)
      yield* rows(db, `UPDATE followed_files SET path = '${file}'`)
      const stdout: Array<string> = []
      const watcher = yield* Effect.fork(runCli(["watch", file, "--db", db, "--poll-interval", "30 millis", "--json"], { stdout }))
      const ids = Effect.map(
        rows<{ id: string }>(db, "SELECT id FROM turns WHERE session_id = 'watched' ORDER BY seq"),
        (found) => found.map((row) => row.id)
      )
      let turns = yield* ids
      for (let i = 0; i < 600 && turns.length < 8; i++) {
        yield* Effect.sleep("50 millis")
        turns = yield* ids
      }
      yield* Fiber.interrupt(watcher)
      assert.deepStrictEqual(turns, ["w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"])
      // Read from the recorded offset: two lines, not the whole file again.
      const events = stdout.map((line) => JSON.parse(line) as { event: string; turns?: number; added?: number })
      assert.deepStrictEqual(
        // (the watcher's other events, started, backlog, cycles and idle, say nothing of the file's lines)
        events.filter((e) => e.event === "imported").map((e) => [e.event, e.turns, e.added]),
        [["imported", 2, 2]]
      )
      assert.deepStrictEqual(yield* rows(db, "SELECT byte_offset, line_count FROM followed_files"), [
        { byte_offset: fs.statSync(file).size, line_count: 8 }
      ])
    }), { timeout: 60_000 })
})

const together = (name: string, store: Layer.Layer<TurnStore.TurnStore | SqlClient.SqlClient>) =>
  it.effect(`${name}: the turns and the offset are committed together, or neither is`, () =>
    Effect.gen(function*() {
      const turnStore = yield* TurnStore.TurnStore
      const files = yield* FollowedFiles.make
      const read = (session: string, fail: boolean) =>
        turnStore.withTransaction(Effect.gen(function*() {
          yield* turnStore.appendTurns(session, Fixtures.conversation(3))
          yield* files.save({ ...followed, path: `/t/${session}.jsonl`, sessionId: session })
          if (fail) return yield* Effect.fail("interrupted" as const)
        }))
      assert.strictEqual(yield* Effect.flip(read("lost", true)), "interrupted")
      assert.deepStrictEqual(yield* turnStore.turns("lost"), [])
      assert.deepStrictEqual(yield* files.get("/t/lost.jsonl"), Option.none())
      yield* read("kept", false)
      assert.strictEqual((yield* turnStore.turns("kept")).length, 3)
      assert.isTrue(Option.isSome(yield* files.get("/t/kept.jsonl")))
    }).pipe(Effect.provide(store)))

describe("followed files in the store's transactions", () => {
  together("SQLite", SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie))
  describe.skipIf(skipPg)("PostgreSQL", () => {
    together("PostgreSQL", pgStoreLayer())
  })
})
