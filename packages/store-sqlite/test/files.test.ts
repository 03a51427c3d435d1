/**
 * The SQLite driver's dealings with the world outside one fiber: session
 * leases, read-only opening, files that are not ours, a full disk and an empty
 * filename. (Leases across real processes: packages/cli/test/Processes.test.ts.)
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { assert, describe, expect, it } from "@effect/vitest"
import { SqlStore, Store, WorkQueue } from "@precis/store"
import { Fixtures, Logs } from "@precis/testing"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SqliteStore from "../src/SqliteStore.js"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-sqlite-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const file = (name: string) => path.join(dir, name)

/** Builds the store layer and runs `use` with it, closing it afterwards. */
const withStore = <A, E>(
  options: SqliteStore.SqliteOptions,
  use: (store: Store.Service) => Effect.Effect<A, E>
) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(SqliteStore.layer(options)), (ctx) => Effect.flatMap(Effect.provide(Store.all, ctx), use))
  )

/** The failure of opening `options`' store. */
const openError = (options: SqliteStore.SqliteOptions) =>
  Effect.flip(Effect.scoped(Layer.build(SqliteStore.layer(options))))

/** Runs raw SQL on a file with a plain client (no precis checks). */
const raw = (filename: string, statements: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const statement of statements) yield* sql.unsafe(statement)
  }).pipe(Effect.provide(SqliteClient.layer({ filename, disableWAL: true })), Effect.orDie)

/** Yields until `condition` holds (everything here is in-process, so a few yields suffice). */
const waitUntil = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.repeat(Effect.zipLeft(condition, Effect.yieldNow()), { until: (held) => held })

// Waiters retry every 5 (test) seconds: each retry under TestClock.adjust costs real time.
const leaseStore = () =>
  Store.layer(SqliteStore.make({ leaseRetry: "5 seconds" })).pipe(
    Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" })),
    Layer.orDie
  )

/** Statements undoing the search migrations (4_search, 7_search_mark): what a schema-3 file lacks. */
const dropSearch = [
  "DROP TABLE turns_fts_mark",
  ...["turns", "summaries"].flatMap((table) => [
    ...["insert", "delete", "update"].map((op) => `DROP TRIGGER ${table}_fts_${op}`),
    `DROP TABLE ${table}_fts`
  ])
]

/** Statements undoing 8_followed_files, 9_projects and 11_summary_keys: a schema-7 file, whose sessions have no project columns. */
const toSchema7 = [
  "ALTER TABLE summaries DROP COLUMN also_keys",
  "DROP TABLE followed_files",
  "DROP INDEX sessions_cwd",
  "DROP INDEX sessions_git_root",
  ...["cwd", "git_root", "agent", "started_at", "ended_at"].map((column) => `ALTER TABLE sessions DROP COLUMN ${column}`),
  "DELETE FROM precis_migrations WHERE migration_id > 7"
]

/** Statements undoing 7_search_mark: a schema-6 file, whose triggers index every write of turns. */
// Back below schema 11: the summaries' Also keys go.
const dropKeys = "ALTER TABLE summaries DROP COLUMN also_keys"

const toSchema6 = [
  ...toSchema7,
  "DROP TABLE turns_fts_mark",
  ...["insert", "delete", "update"].map((op) => `DROP TRIGGER turns_fts_${op}`),
  `CREATE TRIGGER turns_fts_insert AFTER INSERT ON turns BEGIN
    INSERT INTO turns_fts (rowid, content) VALUES (new.rowid, new.content);
  END`,
  `CREATE TRIGGER turns_fts_delete AFTER DELETE ON turns BEGIN
    INSERT INTO turns_fts (turns_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
  END`,
  `CREATE TRIGGER turns_fts_update AFTER UPDATE OF content ON turns BEGIN
    INSERT INTO turns_fts (turns_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO turns_fts (rowid, content) VALUES (new.rowid, new.content);
  END`,
  "INSERT INTO turns_fts (turns_fts) VALUES ('rebuild')",
  "DELETE FROM precis_migrations WHERE migration_id > 6"
]

/** Runs a query on a file with a plain client and returns its rows. */
const rows = (filename: string, statement: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(SqliteClient.layer({ filename, disableWAL: true })),
    Effect.orDie
  )

const siblings = (filename: string) => fs.readdirSync(dir).filter((name) => name.startsWith(`${path.basename(filename)}-`))

describe("SqliteStore session leases", () => {
  it.effect("a live lease makes another holder wait, renewed past its time to live, then hands over", () =>
    Effect.gen(function*() {
      const store = yield* WorkQueue.WorkQueue
      const order: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const a = yield* Effect.fork(
        store.withSessionLease("s", Effect.zipRight(Effect.sync(() => order.push("a")), Deferred.await(gate)))
      )
      yield* waitUntil(Effect.sync(() => order.length === 1))
      const b = yield* Effect.fork(store.withSessionLease("s", Effect.sync(() => order.push("b"))))
      const other = yield* Effect.fork(store.withSessionLease("other", Effect.sync(() => order.push("other"))))
      yield* Fiber.join(other)
      // Twice the 30-second time to live: a's renewals keep b out.
      yield* TestClock.adjust("60 seconds")
      assert.deepStrictEqual(order, ["a", "other"])
      assert.isTrue(Option.isNone(yield* Fiber.poll(b)))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(a)
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(b)
      assert.deepStrictEqual(order, ["a", "other", "b"])
      const sql = yield* SqlClient.SqlClient
      assert.deepStrictEqual(yield* sql`SELECT * FROM leases`, [])
    }).pipe(Effect.provide(leaseStore())))

  it.effect("a waiter for a lease says so once (a warning naming the session and when a dead holder lets go)", () => {
    const warnings = Logs.capture()
    return Effect.gen(function*() {
      const store = yield* WorkQueue.WorkQueue
      const gate = yield* Deferred.make<void>()
      const held = yield* Deferred.make<void>()
      const a = yield* Effect.fork(store.withSessionLease("s", Effect.zipRight(Deferred.succeed(held, undefined), Deferred.await(gate))))
      yield* Deferred.await(held)
      const b = yield* Effect.fork(store.withSessionLease("s", Effect.void))
      yield* TestClock.adjust("20 seconds")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(a)
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(b)
      assert.deepStrictEqual(warnings.messages, [
        "session s is held by another process (compacting it): waiting until it is done " +
        "(a holder that was killed gives it up within 30s)"
      ])
    }).pipe(Effect.provide(leaseStore()), Effect.provide(warnings.layer))
  })

  it.effect("an expired lease (its holder was killed) is taken over, a live one is not", () =>
    Effect.gen(function*() {
      const store = yield* WorkQueue.WorkQueue
      const sql = yield* SqlClient.SqlClient
      // A holder that died at time 0 with a 30-second lease.
      yield* sql`INSERT INTO leases (session_id, holder, expires_at) VALUES ('s', 'killed', 30000)`
      const ran: Array<string> = []
      const b = yield* Effect.fork(store.withSessionLease("s", Effect.sync(() => ran.push("b"))))
      yield* TestClock.adjust("29 seconds")
      assert.deepStrictEqual(ran, [])
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(b)
      assert.deepStrictEqual(ran, ["b"])
    }).pipe(Effect.provide(leaseStore())))

  it.effect("a lease is released when the work fails or is interrupted, even while waiting", () =>
    Effect.gen(function*() {
      const store = yield* WorkQueue.WorkQueue
      const sql = yield* SqlClient.SqlClient
      const failed = yield* Effect.flip(store.withSessionLease("s", Effect.fail("boom" as const)))
      assert.strictEqual(failed, "boom")
      const holder = yield* Effect.fork(store.withSessionLease("s", Effect.never))
      yield* waitUntil(Effect.map(sql`SELECT * FROM leases`, (rows) => rows.length === 1))
      const waiter = yield* Effect.fork(store.withSessionLease("s", Effect.void))
      yield* TestClock.adjust("6 seconds")
      yield* Fiber.interrupt(waiter)
      yield* Fiber.interrupt(holder)
      assert.deepStrictEqual(yield* sql`SELECT * FROM leases`, [])
    }).pipe(Effect.provide(leaseStore())))

  it.effect("a holder whose lease was taken over fails with a StoreError", () =>
    Effect.gen(function*() {
      const store = yield* WorkQueue.WorkQueue
      const sql = yield* SqlClient.SqlClient
      const holder = yield* Effect.fork(store.withSessionLease("s", Effect.never))
      yield* waitUntil(Effect.map(sql`SELECT * FROM leases`, (rows) => rows.length === 1))
      yield* sql`UPDATE leases SET holder = 'thief'`
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(holder))
      assert.strictEqual(error._tag, "StoreError")
      expect(error.message).toMatch(/lease on session s expired while held/)
    }).pipe(Effect.provide(leaseStore())))
})

describe("SqliteStore files", () => {
  it.effect("read-only on a WAL store: reads, refuses writes, leaves no -wal/-shm and the bytes identical", () =>
    Effect.gen(function*() {
      const db = file("ro.db")
      yield* withStore({ filename: db }, (store) => store.appendTurns("s", Fixtures.conversation(3)))
      assert.deepStrictEqual(siblings(db), [])
      const before = fs.readFileSync(db)
      const turns = yield* withStore({ filename: db, readonly: true }, (store) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(store.appendTurns("s", Fixtures.conversation(5)))
          expect(error.message).toMatch(/ro\.db: .*readonly/)
          return yield* store.turns("s")
        }))
      assert.strictEqual(turns.length, 3)
      assert.deepStrictEqual(siblings(db), [])
      assert.isTrue(before.equals(fs.readFileSync(db)))
    }))

  it.effect("read-only refuses a 0-byte file and a foreign one, writing nothing (no migration ran)", () =>
    Effect.gen(function*() {
      const zero = file("zero.db")
      fs.writeFileSync(zero, "")
      const empty = yield* openError({ filename: zero, readonly: true })
      assert.strictEqual(empty.message, `${zero}: not a precis store (it is empty)`)
      assert.strictEqual(fs.statSync(zero).size, 0)
      assert.deepStrictEqual(siblings(zero), [])

      const foreign = file("foreign.db")
      yield* raw(foreign, ["CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('mine')"])
      const before = fs.readFileSync(foreign)
      for (const readonly of [true, false]) {
        const error = yield* openError({ filename: foreign, readonly })
        assert.strictEqual(error.message, `${foreign}: not a precis store (it has tables but no precis migrations)`)
      }
      assert.isTrue(before.equals(fs.readFileSync(foreign)))
      assert.deepStrictEqual(siblings(foreign), [])
    }))

  it.effect("read-only never creates a missing file", () =>
    Effect.gen(function*() {
      const missing = file("missing.db")
      const error = yield* openError({ filename: missing, readonly: true })
      assert.strictEqual(error._tag, "StoreError")
      assert.isFalse(fs.existsSync(missing))
    }))

  it.effect("a writing store refuses a database from a newer precis; a reader too", () =>
    Effect.gen(function*() {
      const db = file("newer.db")
      yield* withStore({ filename: db }, (store) => store.appendTurns("s", Fixtures.conversation(2)))
      yield* raw(db, [`INSERT INTO precis_migrations (migration_id, name) VALUES (${SqlStore.schemaVersion + 3}, 'future')`])
      const before = fs.readFileSync(db)
      for (const readonly of [false, true]) {
        const error = yield* openError({ filename: db, readonly })
        assert.strictEqual(
          error.message,
          `${db}: written by a newer precis (schema ${SqlStore.schemaVersion + 3}, this one knows ${SqlStore.schemaVersion})`
        )
      }
      assert.isTrue(before.equals(fs.readFileSync(db)))
    }))

  it.effect("a writing store migrates a 0-byte file, and a schema-1 store gets the leases table", () =>
    Effect.gen(function*() {
      const zero = file("zero-w.db")
      fs.writeFileSync(zero, "")
      const added = yield* withStore({ filename: zero }, (store) => store.appendTurns("s", Fixtures.conversation(2)))
      assert.strictEqual(added.length, 2)
      const old = file("schema1.db")
      yield* withStore({ filename: old }, () => Effect.void)
      // Back to schema 1: the later migrations' tables and rows go.
      yield* raw(old, [
        ...toSchema7,
        "DROP TABLE leases",
        "DROP TABLE session_work",
        "DROP TABLE session_state",
        ...dropSearch,
        "DELETE FROM precis_migrations WHERE migration_id >= 2"
      ])
      const ran = yield* withStore({ filename: old }, (store) => store.withSessionLease("s", Effect.succeed("ran")))
      assert.strictEqual(ran, "ran")
      // Id 3 (the table the CLI then kept as its own) is skipped, not run; 8 creates `followed_files`.
      assert.deepStrictEqual(
        yield* rows(old, "SELECT migration_id AS id FROM precis_migrations ORDER BY migration_id"),
        [1, 2, 4, 5, 6, 7, 8, 9, 11].map((id) => ({ id }))
      )
      assert.deepStrictEqual(yield* rows(old, "SELECT name FROM sqlite_master WHERE name = 'followed_files'"), [
        { name: "followed_files" }
      ])
    }))

  it.effect("the search migration indexes the rows a schema-3 store already holds; later writes stay indexed", () =>
    Effect.gen(function*() {
      const db = file("schema3.db")
      yield* withStore({ filename: db }, (store) =>
        Effect.zipRight(
          store.appendTurns("s", [Fixtures.turn("user", "the flux capacitor hums", { id: "old" })]),
          store.insertLeaf({ sessionId: "s", content: "capacitor notes", tier: "normal", tokenEstimate: 3, turnIds: ["old"] })
        ))
      yield* raw(db, [
        ...toSchema7,
        ...dropSearch,
        "DROP TABLE session_state",
        "DROP TABLE session_work",
        "DELETE FROM precis_migrations WHERE migration_id >= 4"
      ])
      const hits = yield* withStore({ filename: db }, (store) =>
        Effect.zipRight(
          store.appendTurns("s", [Fixtures.turn("assistant", "a second capacitor", { id: "new" })]),
          store.search("s", "capacitor")
        ))
      assert.deepStrictEqual(hits.map((h) => [h.kind, h.id]).sort(), [["summary", hits.find((h) => h.kind === "summary")!.id], ["turn", "new"], ["turn", "old"]].sort())
      const reader = yield* withStore({ filename: db, readonly: true }, (store) => store.search(undefined, "flux"))
      assert.deepStrictEqual(reader.map((h) => h.id), ["old"])
    }))

  it.effect("the search-mark migration keeps a schema-6 store's index, marks it complete, and later turns are indexed before a search", () =>
    Effect.gen(function*() {
      const db = file("schema6.db")
      yield* withStore({ filename: db }, (store) =>
        store.appendTurns("s", ["the old heron", "an old stork", "a young heron"].map((text, i) =>
          Fixtures.turn("user", text, { id: `o${i}` }))))
      yield* raw(db, toSchema6)
      // A turn a schema-6 writer added, then the migration.
      yield* raw(db, ["INSERT INTO turns (id, session_id, seq, role, content) VALUES ('o3', 's', 3, 'user', 'old ibis')"])
      const indexed = yield* withStore({ filename: db }, (store) => store.indexSearch)
      assert.strictEqual(indexed, 0)
      assert.deepStrictEqual(
        yield* rows(db, "SELECT (SELECT last_rowid FROM turns_fts_mark) = (SELECT max(rowid) FROM turns) AS marked"),
        [{ marked: 1 }]
      )
      yield* raw(db, ["INSERT INTO turns_fts (turns_fts, rank) VALUES ('integrity-check', 1)"])
      const reader = (query: string) =>
        withStore({ filename: db, readonly: true }, (store) =>
          Effect.map(store.search("s", query), (hits) => hits.map((h) => h.id).sort()))
      assert.deepStrictEqual(yield* reader("old"), ["o0", "o1", "o3"])
      // A later append is not indexed until a writer searches or indexes; a reader cannot index it.
      yield* withStore({ filename: db }, (store) => store.appendTurns("s", [Fixtures.turn("user", "old crane", { id: "n0" })]))
      assert.deepStrictEqual(yield* reader("crane"), [])
      assert.strictEqual(yield* withStore({ filename: db }, (store) => store.indexSearch), 1)
      assert.deepStrictEqual(yield* reader("crane"), ["n0"])
      yield* raw(db, ["INSERT INTO turns_fts (turns_fts, rank) VALUES ('integrity-check', 1)"])
    }))

  it.effect("the summary-keys migration reads the Also keys of the summaries a schema-9 store holds, once", () =>
    Effect.gen(function*() {
      const db = file("schema9.db")
      yield* withStore({ filename: db }, (store) =>
        Effect.gen(function*() {
          yield* store.appendTurns("s", Fixtures.conversation(4))
          const turns = yield* store.turns("s")
          yield* store.insertLeaf({
            sessionId: "s",
            content: "fixed it\nAlso: src/a.ts; pnpm test",
            tier: "normal",
            tokenEstimate: 5,
            turnIds: [turns[0]!.id, turns[1]!.id]
          })
          yield* store.insertLeaf({ sessionId: "s", content: "Also: in the middle\nthen text", tier: "normal", tokenEstimate: 5, turnIds: [turns[2]!.id] })
        }))
      yield* raw(db, [dropKeys, "DELETE FROM precis_migrations WHERE migration_id > 9"])
      const keys = yield* withStore({ filename: db }, (store) => Effect.map(store.summaries("s"), (all) => all.map((s) => s.alsoKeys)))
      assert.deepStrictEqual(keys, [["src/a.ts", "pnpm test"], []])
    }))

  it.effect("the work-queue migration queues the sessions a schema-4 store already holds", () =>
    Effect.gen(function*() {
      const db = file("schema4.db")
      yield* withStore({ filename: db }, (store) =>
        Effect.forEach(["b", "a"], (id) => store.appendTurns(id, Fixtures.conversation(2)), { discard: true }))
      yield* raw(db, [...toSchema6, "DROP TABLE session_state", "DROP TABLE session_work", "DELETE FROM precis_migrations WHERE migration_id > 4"])
      const claims = yield* withStore({ filename: db }, (store) =>
        Effect.all([store.claimWork, store.claimWork, store.claimWork]))
      assert.deepStrictEqual(claims.map(Option.map((claim) => claim.sessionId)), [Option.some("a"), Option.some("b"), Option.some("a")])
    }))

  it.effect("the projects migration gives the sessions a schema-7 store holds their project and time span", () =>
    Effect.gen(function*() {
      const db = file("schema7.db")
      yield* withStore({ filename: db }, (store) =>
        Effect.zipRight(
          store.appendTurns("s", [
            Fixtures.turn("user", "hi", { id: "a", timestamp: "2025-01-02T00:00:00Z", metadata: { sourceFormat: "codex" } }),
            Fixtures.turn("user", "go", { id: "b", timestamp: "2025-01-03T00:00:00Z", metadata: { cwd: "/w/app", gitRoot: "/w" } }),
            Fixtures.turn("user", "on", { id: "c", timestamp: "2025-01-01T00:00:00Z", metadata: { cwd: "/w/other" } })
          ]),
          store.appendTurns("bare", [Fixtures.turn("user", "no metadata", { id: "x" })])
        ))
      yield* raw(db, toSchema7)
      const sessions = yield* withStore({ filename: db }, (store) => store.sessions)
      assert.deepStrictEqual(sessions.map((s) => [s.id, s.project, s.startedAt, s.endedAt]).sort(), [
        ["bare", undefined, undefined, undefined],
        ["s", { directory: "/w/app", gitRoot: "/w", agent: "codex" }, "2025-01-01T00:00:00Z", "2025-01-03T00:00:00Z"]
      ])
    }))

  it.effect("a full disk is a StoreError failure naming the file, not a defect, and writes nothing", () =>
    Effect.gen(function*() {
      const db = file("full.db")
      yield* withStore({ filename: db }, () => Effect.void)
      const big = Array.from({ length: 200 }, (_, i) => Fixtures.turn("user", `${"x".repeat(2000)} ${i}`, { id: `b${i}` }))
      const [error, count] = yield* withStore({ filename: db, maxPageCount: 12 }, (store) =>
        Effect.all([Effect.flip(store.appendTurns("s", big)), Effect.map(store.turns("s"), (t) => t.length)]))
      assert.strictEqual(error._tag, "StoreError")
      assert.strictEqual(error.message, `${db}: database or disk is full`)
      assert.strictEqual(count, 0)
    }))

  it.effect("refuses an empty filename (SQLite would use a throwaway database)", () =>
    Effect.gen(function*() {
      const error = yield* openError({ filename: "" })
      expect(error.message).toMatch(/filename is empty/)
    }))
})

describe("SqliteStore: read-only means read-only, nothing created by mistake, writers wait", () => {
  it.effect("a writer that creates nothing (create: false) refuses a missing, a 0-byte and an empty-schema file", () =>
    Effect.gen(function*() {
      const missing = file("nocreate-missing.db")
      const notThere = yield* openError({ filename: missing, create: false })
      assert.strictEqual(notThere.message, `${missing}: no such file`)
      assert.isFalse(fs.existsSync(missing))
      const zero = file("nocreate-zero.db")
      fs.writeFileSync(zero, "")
      const empty = yield* openError({ filename: zero, create: false })
      assert.strictEqual(empty.message, `${zero}: not a precis store (it is empty)`)
      assert.strictEqual(fs.statSync(zero).size, 0)
      assert.deepStrictEqual(siblings(zero), [])
      // A store it is given is written as ever.
      const db = file("nocreate-ok.db")
      yield* withStore({ filename: db }, (store) => store.appendTurns("s", Fixtures.conversation(2)))
      const added = yield* withStore({ filename: db, create: false }, (store) => store.appendTurns("s", Fixtures.conversation(3)))
      assert.strictEqual(added.length, 1)
    }))

  it.effect("a reader refuses an older schema (only a writer migrates) and leaves it as it is; a writer migrates it", () =>
    Effect.gen(function*() {
      const db = file("older.db")
      yield* withStore({ filename: db }, (store) => store.appendTurns("s", Fixtures.conversation(2)))
      yield* raw(db, [...toSchema6])
      const before = fs.readFileSync(db)
      const error = yield* openError({ filename: db, readonly: true })
      assert.strictEqual(
        error.message,
        `${db}: written by an older precis (schema 6, this one reads ${SqlStore.schemaVersion}): ` +
          "a command that writes (import, compact) upgrades it"
      )
      assert.isTrue(before.equals(fs.readFileSync(db)))
      const turns = yield* withStore({ filename: db, create: false }, (store) => store.turns("s"))
      assert.strictEqual(turns.length, 2)
      assert.strictEqual((yield* withStore({ filename: db, readonly: true }, (store) => store.turns("s"))).length, 2)
    }))

  it.effect("a reader's connection is read-only at the driver: even the SqlClient it provides cannot write", () =>
    Effect.gen(function*() {
      const db = file("driver-ro.db")
      yield* withStore({ filename: db }, (store) => store.appendTurns("s", Fixtures.conversation(2)))
      const error = yield* Effect.scoped(
        Effect.flatMap(Layer.build(SqliteStore.layer({ filename: db, readonly: true })), (ctx) =>
          Effect.flip(Effect.provide(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`PRAGMA query_only = OFF`.pipe(
            Effect.zipRight(sql`INSERT INTO sessions (id, created_at) VALUES ('x', 'now')`)
          )), ctx)))
      )
      expect(String(error.cause)).toMatch(/readonly/)
      assert.deepStrictEqual(siblings(db), [])
    }))

  it.live("a writer held up by another's write lock waits for it, saying so once, then writes", () => {
    const warnings = Logs.capture()
    return Effect.gen(function*() {
      const db = file("waits.db")
      yield* withStore({ filename: db }, (store) => store.appendTurns("s", Fixtures.conversation(1)))
      // Another process's long transaction: a plain connection holding the write lock for 2.5 seconds.
      const holder = yield* Effect.fork(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`BEGIN IMMEDIATE`
          yield* sql`INSERT INTO sessions (id, created_at) VALUES ('held', 'now')`
          yield* Effect.sleep("2500 millis")
          yield* sql`COMMIT`
        }).pipe(Effect.provide(SqliteClient.layer({ filename: db, disableWAL: true })), Effect.orDie)
      )
      yield* Effect.sleep("200 millis")
      const started = Date.now()
      const added = yield* withStore({ filename: db }, (store) => store.appendTurns("s", Fixtures.conversation(3)))
      assert.strictEqual(added.length, 2)
      assert.isAtLeast(Date.now() - started, 1500)
      yield* Fiber.join(holder)
      assert.deepStrictEqual(warnings.messages, [`${db}: another process is writing; waiting for it (up to 30s)`])
    }).pipe(Effect.provide(warnings.layer))
  })

  it.effect("a store is a regular file: a directory, a device or a FIFO is refused, whatever the mode, and left as it was", () =>
    Effect.gen(function*() {
      const folder = file("a-folder.db")
      fs.mkdirSync(folder)
      const fifo = file("a-fifo.db")
      execFileSync("mkfifo", [fifo])
      const cases = [[folder, "a directory"], [fifo, "a FIFO"]]
      for (const [filename, what] of cases) {
        for (const mode of [{}, { create: false }, { readonly: true }]) {
          const error = yield* openError({ filename: filename!, ...mode })
          assert.strictEqual(error.message, `${filename}: ${what}, not a regular file: a store is a regular file (or a PostgreSQL URL)`)
        }
      }
      // A stream of this process is no store, whatever it leads to (a terminal, a pipe, a regular file).
      for (const filename of ["/dev/stdout", "/dev/null", "/dev/fd/1", "/proc/self/fd/1", "/dev/../dev/stderr"]) {
        for (const mode of [{}, { readonly: true }]) {
          expect((yield* openError({ filename, ...mode })).message).toBe(
            `${filename}: a device or process file, not a regular file: a store is a regular file (or a PostgreSQL URL)`
          )
        }
      }
      assert.isTrue(fs.statSync(folder).isDirectory())
      assert.deepStrictEqual(fs.readdirSync(folder), [])
    }))

  it.effect("a layer made before its file exists opens the file once it does (the file is looked at when built)", () =>
    Effect.gen(function*() {
      const late = file("late.db")
      const reader = SqliteStore.layer({ filename: late, readonly: true })
      const missing = yield* Effect.flip(Effect.scoped(Layer.build(reader)))
      assert.deepStrictEqual([missing.reason, missing.description], ["NotFound", "no such file"])
      yield* withStore({ filename: late }, (store) => store.appendTurns("s", [Fixtures.turn("user", "hello")]))
      const sessions = yield* Effect.scoped(
        Effect.flatMap(Layer.build(reader), (ctx) => Effect.flatMap(Effect.provide(Store.all, ctx), (store) => store.sessions))
      )
      assert.deepStrictEqual(sessions.map((s) => s.id), ["s"])
    }))

  it.effect("a long session is read whole, in order, a page at a time; a read of it can be interrupted", () =>
    Effect.gen(function*() {
      const count = 20_000
      yield* withStore({ filename: file("long.db") }, (store) =>
        Effect.gen(function*() {
          yield* store.appendTurns("s", Array.from({ length: count }, (_, i) => Fixtures.turn("user", `turn ${i}`, { id: `t${i}` })))
          const all = yield* store.turns("s")
          assert.deepStrictEqual([all.length, all[0]!.id, all.at(-1)!.id], [count, "t0", `t${count - 1}`])
          assert.isTrue(all.every((turn, i) => turn.seq === i))
          const range = yield* store.turns("s", { from: 5000, to: 15_000 })
          assert.deepStrictEqual([range.length, range[0]!.seq, range.at(-1)!.seq], [10_001, 5000, 15_000])
          yield* store.insertLeaf({ sessionId: "s", content: "first ten", tier: "normal", tokenEstimate: 3, turnIds: all.slice(0, 10).map((t) => t.id) })
          const uncovered = yield* store.uncoveredTurns("s")
          assert.deepStrictEqual([uncovered.length, uncovered[0]!.seq], [count - 10, 10])
          assert.deepStrictEqual((yield* store.uncoveredTurns("s", { limit: 3, offset: 1 })).map((t) => t.seq), [11, 12, 13])
          // Forked and interrupted at its first yield, the read stops there.
          const fiber = yield* Effect.fork(store.turns("s"))
          yield* Effect.yieldNow()
          const exit = yield* Fiber.interrupt(fiber)
          assert.isTrue(Exit.isInterrupted(exit))
        }))
    }))
})
