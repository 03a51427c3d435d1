/**
 * The shared fixture transcripts (real sessions of several agents), each
 * imported and compacted by the CLI; skipped where the fixtures are absent.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { repoRoot, runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const fixtures = path.resolve(repoRoot, "..", "shared", "fixtures", "transcripts")
const agents = path.resolve(repoRoot, "..", "shared", "fixtures", "agents")
describe.skipIf(!fs.existsSync(fixtures))("shared fixture transcripts", () => {
  it.live("each imports with --format auto and compacts with the extractive provider", () =>
    Effect.gen(function*() {
      const files = fs.readdirSync(fixtures).filter((f) => /\.(jsonl?|traj)$/.test(f) || f.endsWith(".traj.json"))
      assert.isAtLeast(files.length, 1)
      const db = path.join(dir, "fixtures.db")
      for (const name of files) {
        const file = path.join(fixtures, name)
        const result = yield* runCli(["compact", file, "--db", db, "--json", "--leaf-chunk-tokens", "1000"])
        assert.strictEqual(result.code, 0, `${name}: ${result.stderr}`)
        const output = JSON.parse(result.stdout)
        // A file of several conversations (OpenAssistant trees) gives a session each.
        const sessions: ReadonlyArray<{
          imported: { added: number }
          turnsCompacted: number
          leafSummariesCreated: number
        }> = output.sessions ?? [output]
        assert.isAtLeast(sessions.length, 1, name)
        for (const stats of sessions) {
          assert.isAbove(stats.imported.added, 0, name)
          // The default fresh tail (16 turns, more to keep a tool result with its call) is never summarized.
          assert.isAtMost(stats.turnsCompacted, Math.max(0, stats.imported.added - 16), name)
          if (stats.imported.added > 40) assert.isAtLeast(stats.leafSummariesCreated, 1, name)
        }
      }
    }), { timeout: 300_000 }) // the multi-hour Claude Code sessions are megabytes each

  it.live("context starts a Claude Code session with its state: request, branch, last checks, closed issues", () =>
    Effect.gen(function*() {
      const file = path.join(fixtures, "claude-code-spotter-258c7280.jsonl")
      if (!fs.existsSync(file)) return
      const db = path.join(dir, "spotter-state.db")
      const imported = yield* runCli(["import", file, "--db", db, "--session", "spotter"])
      assert.strictEqual(imported.code, 0, imported.stderr)
      const result = yield* runCli(["context", "--db", db, "--budget", "16000", "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      const context = JSON.parse(result.stdout)
      assert.isAtMost(context.tokens, 16000)
      assert.isAtMost(context.headerTokens, 2400)
      const header: string = context.header
      expect(header).toMatch(/^Session state \(from turns 1a2252ee … [\w#-]{1,12}, \d+ turns\):\n/)
      for (
        const entry of [
          "- first request: shown verbatim in this context [1a2252ee]",
          "- latest request: did you push? [",
          "- branch: spotter-gqc [",
          "- mix test: passed, 14 doctests, 87 tests, 0 failures [",
          "- mix credo --strict: passed, ",
          "- spotter-gqc.7: closed [",
          "- spotter-gqc: closed [",
          "- git push --set-upstream origin spotter-gqc [",
          "- lib/spotter/services/review_context_builder.ex ["
        ]
      ) expect(header).toContain(entry)
      // Tests that failed and then passed leave no open error; the full run stands for the runs of single files.
      assert.notInclude(header, "Open errors:")
      assert.notInclude(header, "resources_test.exs: passed")
      // The plan of spotter-gqc.7, committed and closed, is done: it gives way to the request made after it.
      assert.notInclude(header, "ReviewTokenStore - ETS-backed GenServer")
      assert.notInclude(header, "- [ ] ")
    }), { timeout: 120_000 })
})

describe.skipIf(!fs.existsSync(agents))("shared samples of other agents (Codex, opencode, pi, Cline, aider)", () => {
  it.live("each imports with --format auto, every turn stored, and its context starts with the first request", () =>
    Effect.gen(function*() {
      const files = fs.readdirSync(agents).filter((f) => f !== "SOURCES.md" && f !== "LICENSES")
      assert.isAtLeast(files.length, 1)
      const db = path.join(dir, "agents.db")
      for (const name of files) {
        const session = name.replace(/\W+/g, "-")
        const imported = yield* runCli(["import", path.join(agents, name), "--db", db, "--session", session, "--json"])
        assert.strictEqual(imported.code, 0, `${name}: ${imported.stderr}`)
        const output = JSON.parse(imported.stdout)
        assert.isAbove(output.added, 1, name)
        assert.strictEqual(output.added, output.turns, name)
        const context = yield* runCli(["context", "--db", db, "--session", session, "--budget", "8000", "--json"])
        assert.strictEqual(context.code, 0, `${name}: ${context.stderr}`)
        expect(JSON.parse(context.stdout).header).toContain("- first request: ")
      }
    }), { timeout: 120_000 })
})
