/**
 * Ctrl-C (SIGINT) and SIGTERM during CPU-bound work, on the real executable:
 * an offline compaction and an import over SQLite never wait on the network,
 * so only the process's scheduler lets the signal in (see
 * `src/internal/scheduler.ts`). Each case sends the signal when the process
 * says it has started the work, and checks by counts, not by durations, that
 * the work stopped before it was done: the store holds less than the whole
 * run would have written, its invariants hold, and a rerun completes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { runCli, sessionJsonl, tempDir, write } from "./utils/run.js"
import { start } from "./utils/spawn.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const TIMEOUT = 120_000
// Small leaves make a leaf pass of hundreds of chunks: long enough to be interrupted in its first tenth.
const flags = ["--leaf-chunk-tokens", "300", "--fresh-tail", "4", "--min-fan-in", "2", "--max-fan-in", "3"]

const run = (args: ReadonlyArray<string>) => Effect.runPromise(runCli(args))

/** The summaries of `db` by depth, and whether its invariants hold. */
const storeState = async (db: string) => {
  const shown = await run(["show", "--db", db, "--json"])
  assert.strictEqual(shown.code, 0, shown.stderr)
  const nodes: ReadonlyArray<{ readonly depth: number }> = JSON.parse(shown.stdout).nodes
  const violations = await Effect.runPromise(
    StoreInvariants.violations({ freshTailTurns: 4, minFanIn: 2, maxFanIn: 3 }).pipe(Effect.provide(storeLayer(db)))
  )
  return { leaves: nodes.filter((n) => n.depth === 0).length, condensed: nodes.filter((n) => n.depth > 0).length, violations }
}

const imported = async (name: string, turns: number) => {
  const db = path.join(dir, `${name}.db`)
  const result = await run(["import", write(dir, `${name}.jsonl`, sessionJsonl(turns)), "--db", db, "--session", "s"])
  assert.strictEqual(result.code, 0, result.stderr)
  return db
}

describe("signals during CPU-bound work", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} in the first tenth of an offline leaf pass stops it: exit 130, fewer leaves, a consistent store a rerun completes`, async () => {
      const db = await imported(`leaf-${signal}`, 3000)
      const precis = start(["compact", "--db", db, "--session", "s", ...flags], { cwd: dir })
      const [, chunks] = await precis.waitFor("stderr", /leaf pass: \d+ turns in (\d+) chunks/)
      // The first progress line comes a tenth of the way in.
      await precis.waitFor("stderr", /leaves \[[#-]+\] \d+\//)
      precis.child.kill(signal)
      assert.strictEqual(await precis.exited, 130, precis.stderr())
      const stopped = await storeState(db)
      assert.isAbove(stopped.leaves, 0)
      assert.isBelow(stopped.leaves, Number(chunks), "the leaf pass ran to its end")
      assert.strictEqual(stopped.condensed, 0)
      assert.deepStrictEqual(stopped.violations, [])
      const rerun = await run(["compact", "--db", db, "--session", "s", "--json", ...flags])
      assert.strictEqual(rerun.code, 0, rerun.stderr)
      const done = await storeState(db)
      assert.strictEqual(done.leaves, Number(chunks))
      assert.deepStrictEqual(done.violations, [])
    }, TIMEOUT)
  }

  it("SIGINT when condensation starts stops it with every written parent whole", async () => {
    const db = await imported("condense", 3000)
    const precis = start(["compact", "--db", db, "--session", "s", ...flags], { cwd: dir })
    const [, groups] = await precis.waitFor("stderr", /condensing depth 0: (\d+) groups/)
    precis.child.kill("SIGINT")
    assert.strictEqual(await precis.exited, 130, precis.stderr())
    const stopped = await storeState(db)
    assert.isBelow(stopped.condensed, Number(groups), "the condensation ran to its end")
    assert.deepStrictEqual(stopped.violations, [])
    const rerun = await run(["compact", "--db", db, "--session", "s", "--json", ...flags])
    assert.strictEqual(rerun.code, 0, rerun.stderr)
    assert.isAtLeast((await storeState(db)).condensed, Number(groups))
  }, TIMEOUT)

  it("SIGINT while an import stores its turns: exit 130, what is stored is whole transactions, a rerun imports the rest", async () => {
    const file = write(dir, "import.jsonl", sessionJsonl(20_000))
    const db = path.join(dir, "import.db")
    const precis = start(["import", file, "--db", db, "--verbose"], { cwd: dir })
    // The store is open and migrated: what is left is storing the 20,000 turns, in transactions of 5,000.
    await precis.waitFor("stderr", /Migrations complete/)
    precis.child.kill("SIGINT")
    assert.strictEqual(await precis.exited, 130, precis.stderr())
    const sessions = await run(["sessions", "--db", db, "--json"])
    assert.strictEqual(sessions.code, 0, sessions.stderr)
    const stored: ReadonlyArray<{ readonly turns: number }> = JSON.parse(sessions.stdout).sessions
    const before = stored.reduce((sum, session) => sum + session.turns, 0)
    assert.isAtMost(before, 20_000)
    assert.strictEqual(before % 5_000, 0)
    const rerun = await run(["import", file, "--db", db, "--json"])
    assert.strictEqual(rerun.code, 0, rerun.stderr)
    assert.strictEqual(JSON.parse(rerun.stdout).added, 20_000 - before)
  }, TIMEOUT)
})
