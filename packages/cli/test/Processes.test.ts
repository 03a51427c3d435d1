/**
 * Several `precis` processes on one store, as real processes: one compaction
 * per session at a time holds across processes (the store's session lease),
 * and writers wait for each other (IMMEDIATE transactions) instead of failing
 * with "database is locked".
 */
import { assert, describe, it } from "@effect/vitest"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { repoRoot, sessionJsonl, tempDir, write } from "./utils/run.js"

const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")
const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

interface Spawned {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const precis = (args: ReadonlyArray<string>): Promise<Spawned> =>
  new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: dir, timeout: 90_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
      resolve({ code, stdout, stderr })
    })
  })

const TIMEOUT = 120_000
const compactFlags = ["--leaf-chunk-tokens", "300", "--fresh-tail", "4", "--min-fan-in", "2", "--max-fan-in", "3", "--json"]

describe("precis processes on one store", () => {
  it("two concurrent compactions of one session both succeed, and the store's invariants hold", async () => {
    const db = path.join(dir, "two.db")
    const file = write(dir, "two.jsonl", sessionJsonl(120))
    const imported = await precis(["import", file, "--db", db, "--session", "s"])
    assert.strictEqual(imported.code, 0, imported.stderr)
    const [a, b] = await Promise.all([
      precis(["compact", "--db", db, "--session", "s", ...compactFlags]),
      precis(["compact", "--db", db, "--session", "s", ...compactFlags])
    ])
    assert.strictEqual(a.code, 0, a.stderr)
    assert.strictEqual(b.code, 0, b.stderr)
    // One did the work; the other waited, then found nothing (or the remainder) to do.
    const compacted = [JSON.parse(a.stdout).turnsCompacted, JSON.parse(b.stdout).turnsCompacted]
    assert.strictEqual(compacted[0] + compacted[1], 116)
    const found = await Effect.runPromise(
      StoreInvariants.violations({ freshTailTurns: 4, minFanIn: 2, maxFanIn: 3, condensedFully: true }).pipe(
        Effect.provide(storeLayer(db))
      )
    )
    assert.deepStrictEqual(found, [])
  }, TIMEOUT)

  it("a compaction and an import of another file into the same store both succeed", async () => {
    const db = path.join(dir, "mixed.db")
    const first = write(dir, "first.jsonl", sessionJsonl(120, "f"))
    const second = write(dir, "second.jsonl", sessionJsonl(1500, "g"))
    const imported = await precis(["import", first, "--db", db])
    assert.strictEqual(imported.code, 0, imported.stderr)
    const [compact, other] = await Promise.all([
      precis(["compact", "--db", db, "--session", "first", ...compactFlags]),
      precis(["import", second, "--db", db, "--json"])
    ])
    assert.strictEqual(compact.code, 0, compact.stderr)
    assert.strictEqual(other.code, 0, other.stderr)
    assert.strictEqual(JSON.parse(compact.stdout).turnsCompacted, 116)
    assert.strictEqual(JSON.parse(other.stdout).added, 1500)
  }, TIMEOUT)
})
