/**
 * `precis watch` as a real process on a hostile tree: links that loop, a
 * FIFO, a bad file, a file truncated to nothing and one replaced; on
 * PostgreSQL, a line its text type cannot hold (NUL), at every restart; and
 * Ctrl-C during an idle compaction. Waits on what the process prints (one
 * JSON event per line), never on durations.
 */
import { assert, describe, it } from "@effect/vitest"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { freshPgDatabase, skipPg } from "../../store-pg/test/helpers.js"
import { sessionJsonl, tempDir } from "./utils/run.js"
import { type Running, start } from "./utils/spawn.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const TIMEOUT = 120_000
const fast = ["--poll-interval", "50 millis", "--json"]

interface Event {
  readonly event: string
  readonly file?: string
  readonly added?: number
  readonly reason?: string
}

const events = (precis: Running): Array<Event> =>
  precis.stdout().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Event)

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Resolves once `precis` printed an event matching `pattern` (a regular expression on its JSON line) `times` times. */
const printed = (precis: Running, pattern: string, times = 1) =>
  precis.waitFor("stdout", new RegExp(`(?:${pattern}[^\\n]*\\n[^]*){${times - 1}}${pattern}`))

const stop = async (precis: Running) => {
  precis.child.kill("SIGINT")
  assert.strictEqual(await precis.exited, 130, precis.stderr())
}

const line = (prefix: string, i: number) => sessionJsonl(i + 1, prefix).split("\n")[i]! + "\n"

describe("precis watch on a hostile tree, a real process", () => {
  it("loops, a FIFO and a bad line do not stop it: the good lines come in once, and so do the new ones", async () => {
    const tree = path.join(dir, "tree")
    fs.mkdirSync(path.join(tree, "sub"), { recursive: true })
    fs.writeFileSync(path.join(tree, "good.jsonl"), sessionJsonl(3, "g"))
    fs.writeFileSync(path.join(tree, "sub", "other.jsonl"), sessionJsonl(2, "o"))
    fs.writeFileSync(path.join(tree, "bad.jsonl"), `${sessionJsonl(1, "b")}not json\n`)
    fs.symlinkSync("..", path.join(tree, "sub", "up"))
    fs.symlinkSync("..", path.join(tree, "up"))
    execFileSync("mkfifo", [path.join(tree, "pipe.jsonl")])
    const precis = start(["watch", tree, "--db", path.join(dir, "tree.db"), ...fast], { cwd: dir })
    try {
      await printed(precis, `"file":"${escape(path.join(tree, "sub", "other.jsonl"))}"`)
      await printed(precis, `"event":"line-skipped","file":"${escape(path.join(tree, "bad.jsonl"))}","line":2`)
      fs.appendFileSync(path.join(tree, "good.jsonl"), line("g", 3))
      await printed(precis, `"event":"imported","file":"${escape(path.join(tree, "good.jsonl"))}"`, 2)
    } finally {
      await stop(precis)
    }
    const imported = events(precis).filter((e) => e.event === "imported").map((e) => `${path.relative(tree, e.file!)}:${e.added}`)
    assert.deepStrictEqual(imported.sort(), ["bad.jsonl:1", "good.jsonl:1", "good.jsonl:3", "sub/other.jsonl:2"])
    assert.notInclude(precis.stdout(), "pipe.jsonl")
    assert.strictEqual(events(precis).filter((e) => e.event === "line-skipped").length, 1)
    assert.strictEqual(events(precis).filter((e) => e.event === "file-failed").length, 0)
  }, TIMEOUT)

  it("another program's log is read as import reads it: a bad line said and kept in the side file, a NUL shown as ␀, the lines after them imported", async () => {
    const tree = path.join(dir, "lenient")
    fs.mkdirSync(tree)
    const file = path.join(tree, "c.jsonl")
    const claude = (uuid: string, type: "user" | "assistant", content: string) =>
      JSON.stringify({ type, uuid, sessionId: "c", timestamp: "2025-01-01T00:00:00Z", message: { role: type, content } })
    const bad = "{\"type\": \"user\", \"mess"
    const lines = [claude("u1", "user", "hello"), claude("a1", "assistant", "hi"), bad, claude("n1", "user", "a\u0000b"), claude("u2", "user", "after")]
    fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(""))
    const db = path.join(dir, "lenient.db")
    // Text lines (not --json): each says what import says.
    const precis = start(["watch", tree, "--db", db, "--poll-interval", "50 millis"], { cwd: dir })
    try {
      await precis.waitFor("stdout", new RegExp(`${escape(file)}: 4 new turns into c `))
    } finally {
      await stop(precis)
    }
    const said = precis.stdout().split("\n").map((l) => l.replace(/^\S+ /, ""))
    assert.strictEqual(said.filter((l) => l.startsWith(`${file}:3: skipped: invalid JSON`)).length, 1, precis.stdout())
    assert.include(said, `${file}:4: NUL (U+0000) in the content shown as ␀`)
    const kept = fs.readFileSync(`${db}.skipped.jsonl`, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { file: string; line: number; text: string })
    assert.deepStrictEqual(kept.map((k) => [k.file, k.line, k.text]), [[file, 3, bad]])
  }, TIMEOUT)

  it("a file truncated to nothing is reported once; one replaced by another sharing its first kilobyte is read again", async () => {
    const tree = path.join(dir, "identity")
    fs.mkdirSync(tree)
    const cut = path.join(tree, "cut.jsonl")
    const swapped = path.join(tree, "swapped.jsonl")
    const head = JSON.stringify({ id: "h", role: "user", content: `same head ${"y".repeat(1100)}` })
    fs.writeFileSync(cut, sessionJsonl(3, "c"))
    fs.writeFileSync(swapped, `${head}\n${sessionJsonl(1, "s")}`)
    const precis = start(["watch", tree, "--db", path.join(dir, "identity.db"), ...fast], { cwd: dir })
    try {
      await printed(precis, `"file":"${escape(swapped)}"`)
      await printed(precis, `"file":"${escape(cut)}"`)
      fs.truncateSync(cut, 0)
      await printed(precis, `"event":"restarted","file":"${escape(cut)}","reason":"truncated"`)
      fs.writeFileSync(`${swapped}.tmp`, `${head}\n${sessionJsonl(3, "t")}`)
      fs.renameSync(`${swapped}.tmp`, swapped)
      await printed(precis, `"event":"restarted","file":"${escape(swapped)}","reason":"replaced"`)
      await printed(precis, `"event":"imported","file":"${escape(swapped)}"`, 2)
      // Many polls later, the truncated file has not been reported again; lines written to it come in.
      fs.writeFileSync(cut, sessionJsonl(2, "n"))
      await printed(precis, `"event":"imported","file":"${escape(cut)}"`, 2)
    } finally {
      await stop(precis)
    }
    const restarted = events(precis).filter((e) => e.event === "restarted").map((e) => `${path.basename(e.file!)}:${e.reason}`)
    assert.deepStrictEqual(restarted, ["cut.jsonl:truncated", "swapped.jsonl:replaced"])
    assert.deepStrictEqual(events(precis).filter((e) => e.file === swapped && e.event === "imported").map((e) => e.added), [2, 3])
  }, TIMEOUT)

  it("Ctrl-C during an idle compaction stops it with a consistent store that a rerun completes", async () => {
    const file = path.join(dir, "idle.jsonl")
    fs.writeFileSync(file, sessionJsonl(3000, "i"))
    const db = path.join(dir, "idle.db")
    // Sleep Mode alone (no worker processes): the idle cycle is what Ctrl-C interrupts.
    const flags = [
      "--idle-threshold", "100 millis", "--check-interval", "50 millis", "--batch-size", "5000", "--leaf-chunk-tokens", "300",
      "--fresh-tail", "4", "--workers", "0"
    ]
    const precis = start(["watch", file, "--db", db, ...fast, ...flags], { cwd: dir })
    await printed(precis, `"event":"cycle-started"`)
    await stop(precis)
    const compacted = events(precis).filter((e) => e.event === "session-compacted")
    assert.deepStrictEqual(compacted, [], "the cycle ran to its end")
    const violations = await Effect.runPromise(StoreInvariants.violations({ freshTailTurns: 4 }).pipe(Effect.provide(storeLayer(db))))
    assert.deepStrictEqual(violations, [])
    const again = start(["watch", file, "--db", db, ...fast, ...flags], { cwd: dir })
    await printed(again, `"event":"session-compacted"`)
    await stop(again)
  }, TIMEOUT)
})

describe.skipIf(skipPg)("precis watch on PostgreSQL, a real process", () => {
  it("a line no store keeps (NUL) is skipped once, said once; the lines and files after it go on", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const tree = path.join(dir, "pg")
      fs.mkdirSync(tree)
      fs.writeFileSync(path.join(tree, "nul.jsonl"), `${JSON.stringify({ id: "z", role: "user", content: "a\u0000b" })}\n`)
      fs.writeFileSync(path.join(tree, "fine.jsonl"), sessionJsonl(2, "f"))
      for (const round of [1, 2]) {
        yield* Effect.promise(async () => {
          const precis = start(["watch", tree, "--db", url, ...fast], { cwd: dir })
          try {
            // Said at the first start; the next starts from after it.
            if (round === 1) await printed(precis, `"event":"line-skipped","file":"${escape(path.join(tree, "nul.jsonl"))}","line":1`)
            fs.appendFileSync(path.join(tree, "fine.jsonl"), line("f", round + 1))
            await printed(precis, `"event":"imported","file":"${escape(path.join(tree, "fine.jsonl"))}","session":"fine","turns":1,"added":1`)
          } finally {
            await stop(precis)
          }
        })
      }
    }).pipe(Effect.scoped, Effect.runPromise), TIMEOUT)
})
