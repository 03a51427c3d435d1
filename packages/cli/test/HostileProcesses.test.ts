/**
 * The second hostile week (issue 24) with real processes: a store read by a
 * user who cannot write it, writers held up by another process's write lock
 * or by a killed holder's lease (they wait, and say so), Node's warnings on
 * one line, the serve banner without the password, and exit codes of the
 * permanent provider failures through the shipped executable.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { freshPgDatabase, skipPg } from "../../store-pg/test/helpers.js"
import { modelServer } from "./utils/model.js"
import { repoRoot, sessionJsonl, tempDir, write } from "./utils/run.js"
import { bin, cleanEnv, precis } from "./utils/spawn.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const TIMEOUT = 120_000

const root = process.getuid?.() === 0

/**
 * Runs `script` (JavaScript, `db` the store's path, `release` a callback run
 * when the test says so) in another Node process that holds the store through
 * better-sqlite3, as another precis would; resolves once it printed "ready",
 * with a promise of its end and a way to call its `release`.
 */
const holder = (db: string, script: string) =>
  new Promise<{ readonly done: Promise<void>; readonly release: () => void }>((resolve, reject) => {
    const source = `const db = new (require("better-sqlite3"))(${JSON.stringify(db)});
      let release = () => {};
      process.stdin.on("data", () => release());
      ${script}`
    const child = spawn(process.execPath, ["-e", source], {
      cwd: path.join(repoRoot, "packages", "cli"),
      stdio: ["pipe", "pipe", "inherit"]
    })
    const done = new Promise<void>((end) => child.on("exit", () => end()))
    let released = false
    const release = () => {
      if (!released) child.stdin.end("release\n")
      released = true
    }
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve({ done, release }))
    child.on("error", reject)
  })

/** Runs `precis args` to its end, calling `onStderr` with all it printed on stderr so far, at each write. */
const watched = (args: ReadonlyArray<string>, onStderr: (stderr: string) => void) =>
  new Promise<{ readonly code: number | null; readonly stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, env: cleanEnv() })
    let stderr = ""
    child.stdout.resume()
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      onStderr(stderr)
    })
    child.on("exit", (code) => resolve({ code, stderr }))
  })

// As root, a reader is another user (nobody); else the files lose their write bits.
const asReader = root ? { uid: 65534, gid: 65534 } : {}
// That user must reach the executable: not so when the checkout lies in a folder only its owner may
// enter (as `mktemp -d` makes one). The test says so and skips then.
const readerReachesBin = !root ||
  spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(bin)}, require("fs").constants.R_OK)`], {
    ...asReader,
    cwd: "/"
  }).status === 0

describe.skipIf(!readerReachesBin)("a store its reader cannot write (as another user, who can reach the checkout)", () => {
  const readOnly = (target: string, mode: number) => fs.chmodSync(target, root ? mode | 0o444 : mode & ~0o222)

  for (const [where, dirMode, fileMode] of [["in a directory it cannot write", 0o755, 0o644], ["a file it cannot write", 0o777, 0o444]] as const) {
    it(`${where}: show, search, context and sessions read it, create nothing and change no byte`, async () => {
      // The reader can reach the folder: only its store is out of its hands.
      fs.chmodSync(dir, 0o755)
      const folder = fs.mkdtempSync(path.join(dir, "ro-"))
      const db = path.join(folder, "store.db")
      const imported = await precis(["import", write(folder, "s.jsonl", sessionJsonl(30)), "--db", db], { cwd: folder })
      assert.strictEqual(imported.code, 0, imported.stderr)
      const compacted = await precis(["compact", "--db", db, "--leaf-chunk-tokens", "300"], { cwd: folder })
      assert.strictEqual(compacted.code, 0, compacted.stderr)
      fs.rmSync(path.join(folder, "s.jsonl"))
      readOnly(folder, dirMode)
      readOnly(db, fileMode)
      const before = fs.readFileSync(db)
      for (const args of [["show"], ["search", "step"], ["context"], ["context", "--budget", "2000"], ["sessions"]]) {
        const result = await precis([...args, "--db", db], { cwd: "/", ...asReader })
        assert.strictEqual(result.code, 0, `${args.join(" ")}: ${result.stderr}`)
        assert.isAbove(result.stdout.length, 0)
        assert.deepStrictEqual(fs.readdirSync(folder), ["store.db"], args.join(" "))
      }
      assert.isTrue(before.equals(fs.readFileSync(db)))
      fs.chmodSync(folder, 0o755)
      fs.chmodSync(db, 0o644)
    }, TIMEOUT)
  }
})

describe("writers wait for each other, and say so", () => {
  it("an import and a compaction held up by another process's write lock (over 6 s) wait for it, saying so", async () => {
    const db = path.join(dir, "locked.db")
    const imported = await precis(["import", write(dir, "locked.jsonl", sessionJsonl(40)), "--db", db], { cwd: dir })
    assert.strictEqual(imported.code, 0, imported.stderr)
    // Held past the 5-second busy timeout writers had (a 200k-turn import in one transaction), and until
    // both writers said that they wait, however slowly they start.
    const held = await holder(db, `db.exec("BEGIN IMMEDIATE"); release = () => { db.exec("COMMIT"); process.exit(0) }; console.log("ready")`)
    const started = Date.now()
    const waiting = new Set<number>()
    const onWarning = (which: number) => (stderr: string) => {
      if (!stderr.includes("another process is writing; waiting for it")) return
      waiting.add(which)
      if (waiting.size === 2) setTimeout(held.release, Math.max(0, 6000 - (Date.now() - started)))
    }
    const [other, compact] = await Promise.all([
      watched(["import", write(dir, "other.jsonl", sessionJsonl(10)), "--db", db], onWarning(0)),
      watched(["compact", "--db", db, "--session", "locked", "--leaf-chunk-tokens", "300", "--json"], onWarning(1))
    ])
    await held.done
    for (const result of [other, compact]) {
      assert.strictEqual(result.code, 0, result.stderr)
      expect(result.stderr).toMatch(/^precis: warning: .*locked\.db: another process is writing; waiting for it \(up to 30s\)$/m)
      expect(result.stderr).not.toMatch(/database is locked/)
    }
    assert.isAtLeast(Date.now() - started, 6000)
  }, TIMEOUT)

  it("a compaction waiting on a killed holder's lease says so at once, and goes on when the lease expires", async () => {
    const db = path.join(dir, "lease.db")
    const imported = await precis(["import", write(dir, "lease.jsonl", sessionJsonl(40)), "--db", db], { cwd: dir })
    assert.strictEqual(imported.code, 0, imported.stderr)
    // What a compaction killed mid-run leaves: its lease row, not yet expired; it expires once the
    // waiter has said that it waits (whenever that is on a busy machine).
    const killed = await holder(
      db,
      `db.prepare("INSERT INTO leases (session_id, holder, expires_at) VALUES ('lease', 'killed', ?)").run(Date.now() + 60000);
      release = () => { db.prepare("UPDATE leases SET expires_at = 0").run(); process.exit(0) }; console.log("ready")`
    )
    const result = await watched(["compact", "--db", db, "--leaf-chunk-tokens", "300", "--json"], (stderr) => {
      if (stderr.includes("precis: warning: session lease")) killed.release()
    })
    await killed.done
    assert.strictEqual(result.code, 0, result.stderr)
    const warnings = result.stderr.split("\n").filter((line) => line.startsWith("precis: warning:"))
    assert.deepStrictEqual(warnings, [
      "precis: warning: session lease is held by another process (compacting it): waiting until it is done " +
      "(a holder that was killed gives it up within 30s)"
    ])
  }, TIMEOUT)
})

describe.skipIf(skipPg)("PostgreSQL URLs, as a user sees them", () => {
  it("sslmode=require: Node's multi-line warning is one line of precis's own", async () => {
    const url = await Effect.runPromise(Effect.scoped(freshPgDatabase))
    const result = await precis(["sessions", "--db", `${url}?sslmode=require`], { cwd: dir })
    assert.strictEqual(result.code, 1)
    const lines = result.stderr.trimEnd().split("\n")
    assert.strictEqual(lines.length, 2, result.stderr)
    expect(lines[0]).toMatch(/^precis: warning: SECURITY WARNING: The SSL modes 'prefer', 'require', and 'verify-ca'/)
    expect(lines[1]).toMatch(/^precis: .*sslmode=require: Store\.open: /)
    expect(result.stderr).not.toMatch(/\(node:\d+\)|--trace-warnings/)
  }, TIMEOUT)

  it("serve's banner names the database without its password", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const url = new URL(yield* freshPgDatabase)
      url.password = "PWSECRET"
      const db = url.toString()
      const imported = yield* Effect.promise(() => precis(["import", write(dir, "served.jsonl", sessionJsonl(6)), "--db", db], { cwd: dir }))
      assert.strictEqual(imported.code, 0, imported.stderr)
      const banner = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, [bin, "serve", "--db", db, "--port", "0"], { cwd: dir, env: cleanEnv() })
          let out = ""
          child.stdout.on("data", (chunk: Buffer) => {
            out += chunk.toString()
            if (out.includes("\n")) child.kill("SIGINT")
          })
          child.on("exit", () => resolve(out))
        })
      )
      expect(banner).toMatch(/^precis: viewing postgres:\/\/precis:\*\*\*@127\.0\.0\.1:\d+\/precis_test_\w+ at http:\/\/127\.0\.0\.1:\d+\//)
      assert.notInclude(banner, "PWSECRET")
    })))
  }, TIMEOUT)
})

describe("permanent provider failures through the executable", () => {
  it("https to an http server (compact), a 401 (condense), credentials in the URL (summarize): exit 1, one line", async () => {
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const refusing = yield* modelServer(() => ({ status: 401, content: "invalid api key" }))
      const file = write(dir, "exit.jsonl", sessionJsonl(40))
      const runs: ReadonlyArray<readonly [ReadonlyArray<string>, string, RegExp]> = [
        [["compact", file, "--db", path.join(dir, "exit.db"), "--leaf-chunk-tokens", "150", "--json"], refusing.baseUrl.replace("http:", "https:"), /ERR_SSL_WRONG_VERSION_NUMBER/],
        [["condense", file, "--budget", "300"], refusing.baseUrl, /not summarized: .*UnauthorizedError/],
        [["summarize", file], `http://u:PWSECRET@127.0.0.1:${refusing.port}/v1`, /PRECIS_OPENAI_BASE_URL: .*without user, password/]
      ]
      for (const [args, url, message] of runs) {
        const result = yield* Effect.promise(() =>
          precis([...args, "--provider", "openai"], { cwd: dir, env: { PRECIS_OPENAI_MODEL: "m", PRECIS_OPENAI_BASE_URL: url } })
        )
        assert.strictEqual(result.code, 1, result.stderr)
        assert.strictEqual(result.stderr.trimEnd().split("\n").length, 1, result.stderr)
        expect(result.stderr).toMatch(message)
        assert.notInclude(result.stdout + result.stderr, "PWSECRET")
        assert.notInclude(result.stdout, "TRUNCATED")
      }
    })))
  }, TIMEOUT)
})
