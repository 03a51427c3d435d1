/**
 * How the CLI ends on each kind of failure: the one table of
 * `internal/errors.ts` (every tag, every reason of a store's error), and, for
 * the reasons no other test reaches through the CLI, the command itself: one
 * line `precis: ...`, exit code 1, no stack trace. The reasons reached
 * elsewhere: not a store (Stores.test.ts), an older schema (Hostile.test.ts),
 * a bad line and a conflicting turn (BadInput.test.ts), a provider that will
 * not heal (Summarize.test.ts), configuration (CompactOptions.test.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, expect, it } from "@effect/vitest"
import { CompactionError, CompactionOptions, SleepMode } from "@precis/compaction"
import { ContextError } from "@precis/context"
import { Summarizer } from "@precis/core"
import { ImportError } from "@precis/importers"
import { OpenAiProvider } from "@precis/provider-openai"
import { StoreError } from "@precis/store"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { CliError, type Failure, report } from "../src/internal/errors.js"
import { assertOneLineFailure, escape, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const storeError = (reason: StoreError.Reason, description: string) =>
  new StoreError.StoreError({ operation: "TurnStore.sessions", reason, description })

describe("the table of failures", () => {
  it("gives every failure its one line and exit code 1", () => {
    const problems = [{ option: "budget", message: "must be an integer >= 1 (got 0)" }]
    const cases: ReadonlyArray<readonly [Failure, string]> = [
      [new CliError({ reason: "--user and --project exclude each other" }), "--user and --project exclude each other"],
      [
        ConfigError.InvalidData(["PRECIS_BUDGET"], "Expected an integer"),
        "configuration error: PRECIS_BUDGET: Expected an integer"
      ],
      [
        new ImportError.ImportError({ file: "a.jsonl", line: 3, reason: "InvalidLine", description: "invalid JSON" }),
        "a.jsonl:3: invalid JSON"
      ],
      [
        new CompactionError.ProviderUnavailableError({ sessionId: "s", reason: "UnauthorizedError", detail: "HTTP 401", written: 2 }),
        "compaction of session s stopped: the provider fails in a way that will not heal (UnauthorizedError: HTTP 401); " +
        "2 summaries were written before it stopped"
      ],
      [
        new CompactionOptions.InvalidOptionsError({ problems }),
        "invalid compaction options: budget must be an integer >= 1 (got 0)"
      ],
      [
        new ContextError.InvalidContextOptionsError({ problems }),
        "invalid context options: budget must be an integer >= 1 (got 0)"
      ],
      [new SleepMode.InvalidSleepOptionsError({ problems }), "invalid sleep mode options: budget must be an integer >= 1 (got 0)"],
      [
        new Summarizer.InvalidSummarizerOptionsError({ problems }),
        "invalid Summarizer options: budget must be an integer >= 1 (got 0)"
      ],
      [
        new OpenAiProvider.InvalidOpenAiOptionsError({ problems }),
        "invalid OpenAI provider options: budget must be an integer >= 1 (got 0)"
      ]
    ]
    for (const [error, line] of cases) assert.deepStrictEqual(report(error), { line, exitCode: 1 })
  })

  it("gives a store's error of every reason its message, naming the store, on one line without its secrets", () => {
    const reasons: ReadonlyArray<readonly [StoreError.Reason, string]> = [
      ["NotAStore", "not a precis store (it is empty)"],
      ["NewerSchema", "written by a newer precis (schema 99, this one knows 12)"],
      ["OlderSchema", "written by an older precis (schema 6, this one reads 12): a command that writes upgrades it"],
      ["NotFound", "no such file"],
      ["Locked", "database is locked"],
      ["ReadOnly", "attempt to write a readonly database"],
      ["Unavailable", "connect ECONNREFUSED 127.0.0.1:1"],
      ["Io", "disk I/O error"],
      ["InvalidInput", "a search query is at most 1000 characters (got 3000)"],
      ["Timeout", "the search took longer than 1ms: search for fewer or rarer words"],
      ["LeaseLost", "the lease on session s expired while held and another holder took it over"],
      ["Unknown", "UNIQUE constraint failed: turns.id"]
    ]
    assert.deepStrictEqual(reasons.map(([reason]) => reason), [...StoreError.Reason.literals])
    for (const [reason, description] of reasons) {
      const error = storeError(reason, description).inStore("postgres://precis:s3cret@db/p")
      assert.deepStrictEqual(report(error), {
        line: `postgres://precis:***@db/p: TurnStore.sessions: ${description}`,
        exitCode: 1
      })
    }
    const file = StoreError.StoreError.fromCause(storeError("Io", "disk I/O\nerror"), "Store.open", "x.db")
    assert.deepStrictEqual(report(file.inStore("x.db")), { line: "x.db: disk I/O error", exitCode: 1 })
  })
})

describe("the CLI on the store's reasons no other test reaches", () => {
  it.live("a store written by a newer precis: refused, naming its schema", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "newer.db")
      assert.strictEqual((yield* runCli(["import", write(dir, "newer.jsonl", sessionJsonl(3)), "--db", db])).code, 0)
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO precis_migrations (migration_id, name) VALUES (999, 'from the future')`).pipe(
          Effect.provide(storeLayer(db)),
          Effect.orDie
        )
      for (const args of [["sessions"], ["import", write(dir, "more.jsonl", sessionJsonl(2))]]) {
        assertOneLineFailure(
          yield* runCli([...args, "--db", db]),
          new RegExp(`^precis: ${escape(db)}: written by a newer precis \\(schema 999, this one knows \\d+\\)$`)
        )
      }
    }))

  it.live("a PostgreSQL server that cannot be reached: one line, its password hidden", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["sessions", "--db", "postgres://precis:s3cret@127.0.0.1:1/precis"])
      assertOneLineFailure(result, /^precis: postgres:\/\/precis:\*\*\*@127\.0\.0\.1:1\/precis: .*ECONNREFUSED/)
      expect(result.stderr).not.toContain("s3cret")
    }))

  it.live("a search the store refuses: one line saying why", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "search.db")
      assert.strictEqual((yield* runCli(["import", write(dir, "search.jsonl", sessionJsonl(3)), "--db", db])).code, 0)
      const query = Array.from({ length: 1500 }, () => "pdf").join(" ")
      assertOneLineFailure(
        yield* runCli(["search", query, "--db", db]),
        /^precis: .*search\.db: a search query is at most 1000 characters \(got 5999\)$/
      )
    }))
})

describe("the CLI on the importer's reasons no other test reaches", () => {
  it.live("a file of no known format: one line naming it and the formats", () =>
    Effect.gen(function*() {
      const notes = write(dir, "notes.txt", "hello, these are notes\n")
      assertOneLineFailure(
        yield* runCli(["import", notes, "--db", path.join(dir, "notes.db")]),
        new RegExp(`^precis: ${escape(notes)}:1: cannot detect the transcript format; pass one of precis, `)
      )
      assert.isFalse(fs.existsSync(path.join(dir, "notes.db")))
    }))
})
