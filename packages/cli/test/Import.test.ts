/**
 * `precis import FILE`: a file's turns stored once, all or nothing.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { stripAnsi } from "../src/internal/console.js"
import { assertOneLineFailure, escape, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("import", () => {
  it.live("stores a file's turns once: a second import adds nothing", () =>
    Effect.gen(function*() {
      const file = write(dir, "twice.jsonl", sessionJsonl(10))
      const db = path.join(dir, "twice.db")
      const first = yield* runCli(["import", file, "--db", db])
      assert.strictEqual(first.code, 0, first.stderr)
      assert.strictEqual(first.stdout, `imported 10 of 10 turns from ${file} into session twice in ${db}`)
      const second = yield* runCli(["import", file, "--db", db, "--json"])
      assert.strictEqual(second.code, 0, second.stderr)
      assert.deepStrictEqual(JSON.parse(second.stdout), {
        session: "twice",
        file,
        db,
        turns: 10,
        added: 0,
        skipped: 10,
        skippedLines: 0
      })
      const context = JSON.parse((yield* runCli(["context", "--db", db, "--json"])).stdout)
      assert.strictEqual(context.turns.length, 10)
    }))

  it.live("a malformed precis JSONL line fails with FILE:LINE and creates no store", () =>
    Effect.gen(function*() {
      const lines = sessionJsonl(5).split("\n")
      lines.splice(3, 0, "{\"role\": \"user\", \"content\": ")
      const file = write(dir, "broken.jsonl", lines.join("\n"))
      const db = path.join(dir, "broken.db")
      const result = yield* runCli(["import", file, "--db", db])
      assertOneLineFailure(result, new RegExp(`^precis: ${escape(file)}:4: `))
      assert.isFalse(fs.existsSync(db))
      assert.deepStrictEqual(fs.readdirSync(dir).filter((f) => f.startsWith("broken.db")), [])
    }))

  it.live("a malformed OpenAI chat JSON leaves an existing store byte-identical", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "untouched.db")
      const good = write(dir, "untouched-good.jsonl", sessionJsonl(6))
      assert.strictEqual((yield* runCli(["import", good, "--db", db])).code, 0)
      const before = fs.readFileSync(db)
      const files = fs.readdirSync(dir).filter((f) => f.startsWith("untouched.db")).sort()
      const bad = write(
        dir,
        "chat.json",
        "[\n  {\"role\": \"user\", \"content\": \"hello\"},\n  {\"role\": \"assistant\", \"content\": 42}\n]\n"
      )
      const result = yield* runCli(["import", bad, "--db", db, "--session", "untouched-good"])
      assertOneLineFailure(result, /chat\.json:3: message 2: /)
      assert.isTrue(fs.readFileSync(db).equals(before))
      assert.deepStrictEqual(fs.readdirSync(dir).filter((f) => f.startsWith("untouched.db")).sort(), files)
    }))

  it.live("derives the session from the file name, or takes --session", () =>
    Effect.gen(function*() {
      const file = write(dir, "run-7.traj.json", JSON.stringify({ history: [{ role: "user", content: "go" }] }))
      const db = path.join(dir, "derive.db")
      const derived = yield* runCli(["import", file, "--db", db, "--json"])
      assert.strictEqual(derived.code, 0, derived.stderr)
      assert.strictEqual(JSON.parse(derived.stdout).session, "run-7")
      const named = yield* runCli(["import", file, "--db", db, "--json", "--session", "mine"])
      assert.strictEqual(JSON.parse(named.stdout).session, "mine")
    }))

  it.live("an unknown --format value is refused", () =>
    Effect.gen(function*() {
      const file = write(dir, "fmt.jsonl", sessionJsonl(2))
      const result = yield* runCli(["import", file, "--format", "yaml", "--db", path.join(dir, "fmt.db")])
      assert.strictEqual(result.code, 1)
      expect(stripAnsi(result.stderr)).toMatch(/one of the following cases: auto, precis, openai, claude-code/)
      assert.isFalse(fs.existsSync(path.join(dir, "fmt.db")))
    }))
})
