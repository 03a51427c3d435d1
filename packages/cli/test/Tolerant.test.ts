/**
 * Another program's log imported leniently by the CLI: a line that cannot be
 * read is skipped with `FILE:LINE: skipped: reason`, counted in `--json`
 * (`skippedLines`) and kept in `<db>.skipped.jsonl`; `--strict` refuses the file.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { escape, runCli, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const line = (i: number, content: unknown) =>
  JSON.stringify({ type: i % 2 === 0 ? "user" : "assistant", uuid: `u-${i}`, sessionId: "s", message: { role: i % 2 === 0 ? "user" : "assistant", content } })
const good = Array.from({ length: 6 }, (_, i) => line(i, `turn ${i} [x]`))
// Line 3 broken as a redaction tool breaks it (an invalid escape), line 5 cut short.
const broken = good.map((l, i) => i === 2 ? l.replace("[x]", "\\[x]") : i === 4 ? l.slice(0, 30) : l)

describe("a Claude Code session with broken lines", () => {
  it.live("imports every other line, reports and keeps each skipped one; the mended file adds exactly those", () =>
    Effect.gen(function*() {
      const file = write(dir, "broken.jsonl", broken.join("\n") + "\n")
      const db = path.join(dir, "broken.db")
      const first = yield* runCli(["import", file, "--db", db, "--session", "s", "--json"])
      assert.strictEqual(first.code, 0, first.stderr)
      expect(JSON.parse(first.stdout)).toMatchObject({ turns: 4, added: 4, skipped: 0, skippedLines: 2 })
      expect(first.stderr).toMatch(new RegExp(`^precis: ${escape(file)}:3: skipped: invalid JSON: invalid escape in string$`, "m"))
      expect(first.stderr).toMatch(new RegExp(`^precis: ${escape(file)}:5: skipped: invalid JSON: `, "m"))
      const kept = fs.readFileSync(`${db}.skipped.jsonl`, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
      assert.deepStrictEqual(kept.map((k) => [k.file, k.line, k.text]), [[file, 3, broken[2]], [file, 5, broken[4]]])
      assert.strictEqual(fs.statSync(`${db}.skipped.jsonl`).mode & 0o077, 0)
      // The same file again keeps nothing twice.
      assert.strictEqual((yield* runCli(["import", file, "--db", db, "--session", "s"])).code, 0)
      assert.strictEqual(fs.readFileSync(`${db}.skipped.jsonl`, "utf8").trimEnd().split("\n").length, 2)
      fs.writeFileSync(file, good.join("\n") + "\n")
      const mended = yield* runCli(["import", file, "--db", db, "--session", "s", "--json"])
      expect(JSON.parse(mended.stdout)).toMatchObject({ turns: 6, added: 2, skipped: 4, skippedLines: 0 })
      const context = JSON.parse((yield* runCli(["context", "--db", db, "--session", "s", "--json"])).stdout)
      assert.deepStrictEqual(context.turns.map((t: { content: string }) => t.content).sort(), good.map((_, i) => `turn ${i} [x]`).sort())
    }))

  it.live("is refused whole with --strict, at its first bad line, and nothing is written", () =>
    Effect.gen(function*() {
      const file = write(dir, "strict.jsonl", broken.join("\n") + "\n")
      const db = path.join(dir, "strict.db")
      const result = yield* runCli(["import", file, "--db", db, "--strict"])
      assert.strictEqual(result.code, 1)
      expect(result.stderr.trim()).toBe(`precis: ${file}:3: invalid JSON: invalid escape in string`)
      assert.isFalse(fs.existsSync(db))
      assert.isFalse(fs.existsSync(`${db}.skipped.jsonl`))
    }))

  it.live("stores a tool output holding a NUL with the NUL shown as ␀, and says so", () =>
    Effect.gen(function*() {
      const file = write(dir, "nul.jsonl", [line(0, "cat it"), line(1, "out\u0000put")].join("\n") + "\n")
      const db = path.join(dir, "nul.db")
      const result = yield* runCli(["compact", file, "--db", db, "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      expect(JSON.parse(result.stdout)).toMatchObject({ imported: { added: 2 }, skippedLines: 0 })
      expect(result.stderr).toContain(`${file}:2: NUL (U+0000) in the content shown as \u2400`)
      const context = JSON.parse((yield* runCli(["context", "--db", db, "--json"])).stdout)
      expect(context.turns.map((t: { content: string }) => t.content)).toContain("out\u2400put")
    }))
})
