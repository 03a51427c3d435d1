/**
 * The followed files of a store written before they were the store's own
 * (the CLI kept them in a table of its own until schema 8): the migration
 * adopts the table and its rows, and `watch` goes on from them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { FollowedFiles } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { gunzipSync } from "node:zlib"
import { afterAll } from "vitest"
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

describe("followed files of a store written by the CLI before schema 8", () => {
  it.live("a store written before the table was the CLI's keeps its rows, and watch resumes from them", () =>
    Effect.gen(function*() {
      // Written by `precis watch` when the library's migrations created the table (schema 7,
      // migration 3 `followed_files`): it followed /tmp/fx/watched.jsonl, 6 lines, 657 bytes.
      const db = path.join(dir, "watched.db")
      fs.writeFileSync(db, gunzipSync(fs.readFileSync(path.join(fixtures, "watched-schema7.db.gz"))))
      const recorded = new FollowedFiles.FollowedFile({
        path: "/tmp/fx/watched.jsonl",
        sessionId: "watched",
        format: "precis",
        byteOffset: 657,
        lineCount: 6,
        size: 657,
        checksum: "head:43a33faeff8af9b8dc38b95c503ebef63d82d895"
      })
      const read = Effect.flatMap(FollowedFiles.FollowedFiles, (files) => files.get(recorded.path))
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
      // (until it said so too: it prints after the transaction that wrote them)
      for (let i = 0; i < 600 && (turns.length < 8 || !stdout.some((line) => line.includes("\"imported\""))); i++) {
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
