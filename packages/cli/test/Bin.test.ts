/**
 * The real executable, spawned: exit codes, stderr and stdout as a user sees
 * them. `bin/precis.js` runs the compiled `dist/` (the global setup builds it);
 * each spawn still loads the whole CLI, so there are few of them.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll } from "vitest"
import { escape, repoRoot, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")
const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// The child sees no PRECIS_* or OPENAI_* setting of the machine running the tests.
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("PRECIS_") && !key.startsWith("OPENAI_") && key !== "NO_COLOR") env[key] = value
  }
  return { ...env, ...extra }
}

interface Spawned {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const precis = (args: ReadonlyArray<string>, env?: Record<string, string>): Promise<Spawned> =>
  new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: dir, env: cleanEnv(env), timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
      resolve({ code, stdout, stderr })
    })
  })

const SPAWN_TIMEOUT = 60_000

/** Exit code 1 and exactly one line on stderr, with no stack trace. */
const assertUserError = (result: Spawned, expected: RegExp) => {
  assert.strictEqual(result.code, 1, result.stderr)
  assert.strictEqual(result.stderr.trimEnd().split("\n").length, 1, result.stderr)
  expect(result.stderr.trimEnd()).toMatch(expected)
  expect(result.stderr).not.toMatch(/\n\s+at /)
  assert.strictEqual(result.stdout, "")
}

describe("bin/precis.js", () => {
  it("--help exits 0 and prints plain text (no ANSI styling) in 80 columns when stdout is not a terminal", async () => {
    const result = await precis(["--help"])
    assert.strictEqual(result.code, 0, result.stderr)
    expect(result.stdout).toContain("COMMANDS")
    expect(result.stdout).toMatch(/^compact \[<FILE>\]\n\n {2}Import FILE/m)
    expect(result.stdout).not.toContain("\x1b[")
    assert.isAtMost(Math.max(...result.stdout.split("\n").map((line) => line.length)), 80)
  }, SPAWN_TIMEOUT)

  it("a malformed line exits 1 with FILE:LINE: reason and creates no store", async () => {
    const file = write(dir, "bad.jsonl", `${sessionJsonl(3)}{"role": "user"}\n`)
    const result = await precis(["import", file, "--db", "bad.db"])
    assertUserError(result, new RegExp(`^precis: ${escape(file)}:4: .+`))
    assert.isFalse(fs.existsSync(path.join(dir, "bad.db")))
  }, SPAWN_TIMEOUT)

  it("--provider openai without a model exits 1 and says to set PRECIS_OPENAI_MODEL", async () => {
    const file = write(dir, "s.jsonl", sessionJsonl(4))
    const result = await precis(["summarize", file, "--provider", "openai"], { PRECIS_OPENAI_API_KEY: "sk-secret-key" })
    assertUserError(result, /^precis: --provider openai needs a model: set PRECIS_OPENAI_MODEL/)
    expect(result.stderr).not.toContain("sk-secret-key")
  }, SPAWN_TIMEOUT)

  it("a bad option value exits 1 naming the option", async () => {
    const result = await precis(["compact", "--fresh-tail", "abc"])
    assert.strictEqual(result.code, 1)
    expect(result.stderr).toContain("--fresh-tail must be an integer >= 0")
    expect(result.stderr).not.toMatch(/\n\s+at /)
    assert.isFalse(fs.existsSync(path.join(dir, "precis.db")))
  }, SPAWN_TIMEOUT)

  it("a PRECIS_COMPACTION_* variable out of its bounds exits 1 with one line naming it, and writes nothing", async () => {
    const file = write(dir, "env.jsonl", sessionJsonl(6))
    for (
      const [name, value, message] of [
        ["PRECIS_COMPACTION_THRESHOLD", "5", "must be a number in \\(0, 1\\] \\(got 5\\)"],
        ["PRECIS_COMPACTION_LEAF_TARGET_TOKENS", "-3", "must be an integer >= 1 \\(got -3\\)"]
      ] as const
    ) {
      const result = await precis(["compact", file, "--db", "env.db"], { [name]: value })
      assertUserError(result, new RegExp(`^precis: configuration error: ${name}: ${message}$`))
    }
    assert.isFalse(fs.existsSync(path.join(dir, "env.db")))
  }, SPAWN_TIMEOUT)

  it("compact FILE writes the default store in the working directory, progress as plain lines", async () => {
    const file = write(dir, "work.jsonl", sessionJsonl(30))
    const result = await precis(["compact", file, "--leaf-chunk-tokens", "200", "--fresh-tail", "4"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.isTrue(fs.existsSync(path.join(dir, "precis.db")))
    expect(result.stdout).toMatch(/^session work: 30 turns \(4 not summarized\)/m)
    expect(result.stdout).toMatch(/^tiers this run: normal \d+, aggressive 0, fallback 0$/m)
    expect(result.stderr).toMatch(/^precis: leaf pass: 26 turns in \d+ chunks$/m)
    expect(result.stderr).not.toContain("\r")
  }, SPAWN_TIMEOUT)

  it("--json --verbose keeps stdout one JSON document, the logs on stderr", async () => {
    const file = write(dir, "verbose.jsonl", sessionJsonl(8))
    const result = await precis(["summarize", file, "--json", "--verbose"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(Object.keys(JSON.parse(result.stdout)).sort(), ["inputTokens", "outputTokens", "text", "tier"])
    expect(result.stderr).toMatch(/level=DEBUG .*message="precis: LLM call replied".*elapsedMs=/)
  }, SPAWN_TIMEOUT)

  it("SIGINT during a compaction exits 130 and leaves a consistent store", async () => {
    // A model server that never answers keeps the compaction inside its first call.
    let arrived: () => void = () => {}
    const firstRequest = new Promise<void>((resolve) => (arrived = resolve))
    const server = createServer(() => arrived())
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const file = write(dir, "sigint.jsonl", sessionJsonl(30))
      const db = path.join(dir, "sigint.db")
      const child = spawn(process.execPath, [bin, "compact", file, "--db", db, "--provider", "openai"], {
        cwd: dir,
        env: cleanEnv({
          PRECIS_OPENAI_MODEL: "never",
          PRECIS_OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
        }),
        stdio: "ignore"
      })
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      await firstRequest
      child.kill("SIGINT")
      assert.strictEqual(await exited, 130)
      // The import committed, no summary was half-written, and a rerun can go on from there.
      const show = await Effect.runPromise(runCli(["show", "--db", db, "--json"]))
      assert.strictEqual(show.code, 0, show.stderr)
      assert.deepStrictEqual(JSON.parse(show.stdout).nodes, [])
      const rerun = await Effect.runPromise(runCli(["compact", "--db", db, "--json", "--leaf-chunk-tokens", "300"]))
      assert.strictEqual(rerun.code, 0, rerun.stderr)
      assert.strictEqual(JSON.parse(rerun.stdout).turnsCompacted, 14)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }, SPAWN_TIMEOUT)

  const demo = path.join(repoRoot, "examples", "coding-session.jsonl")
  it.skipIf(!fs.existsSync(demo))("the README demo makes several leaves and a condensed node", async () => {
    // As `pnpm demo` runs it: leaves of 2000 tokens (the library's default of 20,000 makes one of the example).
    const result = await precis(["compact", demo, "--db", "demo.db", "--json", "--leaf-chunk-tokens", "2000"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(result.stderr, "")
    const stats = JSON.parse(result.stdout)
    assert.isAtLeast(stats.leafSummariesCreated, 4)
    assert.isAtLeast(stats.condensedSummariesCreated, 1)
  }, SPAWN_TIMEOUT)
})
