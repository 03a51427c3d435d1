import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { CompactionManager, CompactionOptions } from "@precis/compaction"
import { Summarizer } from "@precis/core"
import { Importer } from "@precis/importers"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { TurnStore } from "@precis/store"
import { StoreInvariants } from "@precis/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { storeLayer } from "../../compaction/test/helpers.js"
import { stripAnsi } from "../src/internal/console.js"
import { compactionOptions } from "../src/internal/options.js"
import { assertOneLineFailure, repoRoot, type Result, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const run = (args: ReadonlyArray<string>, options?: Parameters<typeof runCli>[1]) =>
  Effect.runPromise(runCli(args, options))

const JSON_NODE_KEYS = [
  "children",
  "depth",
  "id",
  "parentId",
  "tier",
  "timeRangeEnd",
  "timeRangeStart",
  "tokenEstimate"
]

interface Node {
  readonly id: string
  readonly depth: number
  readonly tier: string
  readonly parentId: string | null
  readonly tokenEstimate: number
  readonly timeRangeStart: string | null
  readonly timeRangeEnd: string | null
  readonly children: ReadonlyArray<string>
}

describe("summarize", () => {
  const file = write(dir, "summarize.jsonl", sessionJsonl(12, "s"))

  it.live("--json prints { text, tier, inputTokens, outputTokens } and nothing on stderr", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", file, "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
      const summary = JSON.parse(result.stdout)
      assert.deepStrictEqual(Object.keys(summary).sort(), ["inputTokens", "outputTokens", "text", "tier"])
      assert.strictEqual(summary.tier, "normal")
      assert.isAbove(summary.text.length, 0)
      assert.isAbove(summary.inputTokens, summary.outputTokens)
      assert.isAbove(summary.outputTokens, 0)
    }))

  it.live("prints the text, then the tier and token counts", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", file, "--target-tokens", "50"])
      assert.strictEqual(result.code, 0, result.stderr)
      expect(result.stdout).toMatch(/\n\ntier: (normal|aggressive|fallback) · \d+ tokens in · \d+ tokens out$/)
      expect(result.stdout).toContain("src/module")
    }))

  it.live("reads --prior from a file, and fails with one line when it is missing", () =>
    Effect.gen(function*() {
      const prior = write(dir, "prior.txt", "Earlier: the team chose SQLite for the store.")
      const ok = yield* runCli(["summarize", file, "--prior", prior, "--json"])
      assert.strictEqual(ok.code, 0, ok.stderr)
      const missing = yield* runCli(["summarize", file, "--prior", path.join(dir, "no-prior.txt")])
      assertOneLineFailure(missing, /no-prior\.txt: no such file$/)
    }))

  it.live("fails with one line for a file without turns", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", write(dir, "empty.jsonl", "\n")])
      assertOneLineFailure(result, /^precis: no turns found in \S*empty\.jsonl as auto$/)
    }))

  it.live("fails with one line for a missing input file", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", path.join(dir, "absent.jsonl")])
      assertOneLineFailure(result, /absent\.jsonl: no such file$/)
    }))

  it.live("rejects a non-numeric --target-tokens, naming the option", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", file, "--target-tokens", "many"])
      assert.strictEqual(result.code, 1)
      expect(stripAnsi(result.stderr)).toContain("--target-tokens must be an integer >= 1")
      assert.strictEqual(result.stdout, "")
    }))

  it.live("reports a bad PRECIS_SUMMARIZER_* setting as one line", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["summarize", file], { env: { PRECIS_SUMMARIZER_MAX_TOKENS: "lots" } })
      assertOneLineFailure(result, /configuration error: PRECIS_SUMMARIZER_MAX_TOKENS/)
    }))
})

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
        skipped: 10
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
      assertOneLineFailure(result, new RegExp(`^precis: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:4: `))
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

describe("compact, show and context", () => {
  const db = path.join(dir, "dag.db")
  const file = write(dir, "dag.jsonl", sessionJsonl(40))
  const flags = ["--leaf-chunk-tokens", "150", "--fresh-tail", "6", "--min-fan-in", "2", "--max-fan-in", "4"]
  let compacted: Result
  beforeAll(async () => {
    compacted = await run(["compact", file, "--db", db, "--json", ...flags])
  })

  it("compact FILE --json imports, then prints the stats and the tier counts only", () => {
    assert.strictEqual(compacted.code, 0, compacted.stderr)
    assert.strictEqual(compacted.stderr, "") // no progress with --json
    const stats = JSON.parse(compacted.stdout)
    assert.strictEqual(stats.session, "dag")
    assert.deepStrictEqual(stats.imported, { turns: 40, added: 40, skipped: 0 })
    assert.strictEqual(stats.turnsCompacted, 34)
    assert.isAtLeast(stats.leafSummariesCreated, 4)
    assert.isAtLeast(stats.condensedSummariesCreated, 1)
    const total = stats.tierCounts.normal + stats.tierCounts.aggressive + stats.tierCounts.fallback
    assert.strictEqual(total, stats.leafSummariesCreated + stats.condensedSummariesCreated)
    assert.deepStrictEqual(stats.tiersUsed, stats.tierCounts)
  })

  it.live("a second compact with nothing new does nothing", () =>
    Effect.gen(function*() {
      const again = yield* runCli(["compact", "--db", db, "--json", ...flags])
      assert.strictEqual(again.code, 0, again.stderr)
      const stats = JSON.parse(again.stdout)
      assert.strictEqual(stats.leafSummariesCreated, 0)
      assert.strictEqual(stats.condensedSummariesCreated, 0)
      assert.strictEqual(stats.turnsCompacted, 0)
      assert.isUndefined(stats.imported)
    }))

  it.live("show --json gives the nodes of a consistent DAG", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["show", "--db", db, "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      const { session, nodes } = JSON.parse(result.stdout) as { session: string; nodes: Array<Node> }
      assert.strictEqual(session, "dag")
      const stats = JSON.parse(compacted.stdout)
      assert.strictEqual(nodes.length, stats.leafSummariesCreated + stats.condensedSummariesCreated)
      const byId = new Map(nodes.map((n) => [n.id, n]))
      for (const node of nodes) {
        assert.deepStrictEqual(Object.keys(node).sort(), JSON_NODE_KEYS)
        assert.include(["normal", "aggressive", "fallback"], node.tier)
        assert.isAbove(node.tokenEstimate, 0)
        assert.isNotNull(node.timeRangeStart)
        assert.isTrue(node.timeRangeStart! <= node.timeRangeEnd!)
        assert.strictEqual(node.children.length === 0, node.depth === 0)
        for (const childId of node.children) {
          const child = byId.get(childId)!
          assert.strictEqual(child.parentId, node.id)
          assert.strictEqual(child.depth, node.depth - 1)
        }
        if (node.parentId !== null) assert.include(byId.get(node.parentId)!.children, node.id)
      }
      assert.isAtLeast(Math.max(...nodes.map((n) => n.depth)), 1)
    }))

  it.live("show prints a tree with depths, tiers, token counts and time ranges", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["show", "--db", db])
      assert.strictEqual(result.code, 0, result.stderr)
      const lines = result.stdout.split("\n")
      expect(lines[0]).toMatch(/^session dag: 40 turns \(6 not summarized\), \d+ summaries \(\d+ leaves, \d+ condensed/)
      expect(result.stdout).toMatch(
        /^depth [1-9] · normal · \d+ tokens · 2025-01-01T00:00:00 → 2025-01-01T00:\d\d:00 · [\w-]+  "/m
      )
      // Children are indented under their parent, down to the leaves.
      expect(result.stdout).toMatch(/^(│  |   )*(├─|└─) depth 0 · \w+ · \d+ tokens · /m)
      const roots = lines.slice(1).filter((l) => l.startsWith("depth "))
      const nodes = JSON.parse((yield* runCli(["show", "--db", db, "--json"])).stdout).nodes as Array<Node>
      assert.strictEqual(lines.length - 2, nodes.length)
      expect(lines.at(-1)).toMatch(/^tiers of the stored summaries: normal \d+, aggressive \d+, fallback \d+$/)
      assert.strictEqual(roots.length, nodes.filter((n) => n.parentId === null).length)
    }))

  it.live("context prints the parentless summaries, then the fresh tail", () =>
    Effect.gen(function*() {
      const json = yield* runCli(["context", "--db", db, "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const context = JSON.parse(json.stdout)
      const nodes: Array<Node> = JSON.parse((yield* runCli(["show", "--db", db, "--json"])).stdout).nodes
      assert.deepStrictEqual(
        context.summaries.map((s: Node) => s.id),
        nodes.filter((n) => n.parentId === null).map((n) => n.id)
      )
      assert.deepStrictEqual(context.turns.map((t: { id: string }) => t.id), ["t34", "t35", "t36", "t37", "t38", "t39"])
      assert.isAbove(context.tokens, context.headerTokens)
      // The session-state header: the first and latest requests, each citing its turn.
      expect(context.header).toMatch(/^Session state \(from turns t0 … t39, 40 turns\):\nTask:\n- first request: Step 0: .*\[t0\]\n- latest request: Step 38: .*\[t38\]/)
      const text = yield* runCli(["context", "--db", db])
      assert.strictEqual(text.code, 0, text.stderr)
      // The header after the summaries, before the turns: it changes more often than they do.
      assert.isTrue(text.stdout.startsWith("[Summary 1, depth "))
      assert.include(text.stdout, `\n\n${context.header}\n\n[2025-01-01T00:34:00] `)
      expect(text.stdout.trimEnd()).toMatch(/\[2025-01-01T00:39:00\] assistant: Step 39: .*$/)
      // --no-state leaves it out.
      const bare = yield* runCli(["context", "--db", db, "--no-state"])
      assert.strictEqual(bare.code, 0, bare.stderr)
      expect(bare.stdout).toMatch(/^\[Summary 1, depth \d/)
      assert.strictEqual(text.stdout.replace(`\n\n${context.header}`, ""), bare.stdout)
      const bareJson = JSON.parse((yield* runCli(["context", "--db", db, "--no-state", "--json"])).stdout)
      assert.deepStrictEqual([bareJson.header, bareJson.headerTokens], ["", 0])
      assert.isBelow(bareJson.tokens, context.tokens)
    }))

  it.live("context --budget fits the context into N tokens and reports each stage", () =>
    Effect.gen(function*() {
      const full = JSON.parse((yield* runCli(["context", "--db", db, "--json"])).stdout)
      const budget = Math.floor(full.tokens / 2)
      const json = yield* runCli(["context", "--db", db, "--budget", String(budget), "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const fitted = JSON.parse(json.stdout)
      assert.strictEqual(fitted.budget, budget)
      // Everything as printed, within the budget (filled to 85% of it at most: the one-shot mark).
      assert.isAtMost(fitted.tokens, Math.floor(budget * 0.85))
      // The header takes at most 15% of the budget; the condenser fits the rest into what is left.
      assert.isAbove(fitted.headerTokens, 0)
      assert.isAtMost(fitted.headerTokens, Math.floor(budget * 0.15))
      assert.isTrue(fitted.header.startsWith("Session state (from turns t0 … t39, 40 turns):"))
      assert.deepStrictEqual(fitted.report.stages.map((s: { stage: string }) => s.stage), ["mask", "forget", "window", "expand"])
      assert.isTrue(fitted.report.stages.some((s: { acted: boolean }) => s.acted))
      // The newest turn is always kept.
      assert.strictEqual(fitted.turns.at(-1).id, "t39")
      const text = yield* runCli(["context", "--db", db, "--budget", String(budget)])
      assert.strictEqual(text.code, 0, text.stderr)
      // One line per stage on stderr, each with the CLI's prefix.
      assert.strictEqual(Math.floor(Array.from(text.stdout.slice(0, -1)).length / 4), fitted.tokens)
      // The first request pinned first.
      assert.deepStrictEqual(fitted.pinned.map((t: { id: string }) => t.id), ["t0"])
      assert.isTrue(text.stdout.startsWith("[2025-01-01T00:00:00] user: Step 0"))
      assert.include(text.stdout, `\n\n${fitted.header}\n\n`)
      expect(text.stderr).toMatch(
        new RegExp(
          `^precis: session state: ${fitted.headerTokens} tokens\nprecis: condenser: ${fitted.report.tokensBefore} -> ` +
            `${fitted.report.tokensAfter} tokens \\(budget ${budget}\\)`
        )
      )
      expect(text.stderr.split("\n").every((line) => line.startsWith("precis: "))).toBe(true)
      const bad = yield* runCli(["context", "--db", db, "--budget", "0"])
      assert.strictEqual(bad.code, 1)
      expect(bad.stderr).toContain("--budget must be an integer >= 1")
    }))

  it.live("context --budget with room shows summaries as their children, within 85% of it; not with --no-expand", () =>
    Effect.gen(function*() {
      const full = JSON.parse((yield* runCli(["context", "--db", db, "--json"])).stdout)
      const nodes: Array<Node> = JSON.parse((yield* runCli(["show", "--db", db, "--json"])).stdout).nodes
      const budget = full.tokens * 4
      const json = yield* runCli(["context", "--db", db, "--budget", String(budget), "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const expanded = JSON.parse(json.stdout)
      assert.isAtMost(expanded.tokens, Math.floor(budget * 0.85))
      assert.isAbove(expanded.tokens, full.tokens)
      assert.isAbove(expanded.summaries.length, full.summaries.length)
      // Children shown in place of their parent: summaries that have a parent in the store.
      const parentOf = new Map(nodes.map((n) => [n.id, n.parentId]))
      assert.isTrue(expanded.summaries.some((s: Node) => parentOf.get(s.id) !== null))
      const expand = expanded.report.stages.at(-1)
      assert.deepStrictEqual([expand.stage, expand.acted], ["expand", true])
      assert.strictEqual(expanded.turns.at(-1).id, "t39")
      const text = yield* runCli(["context", "--db", db, "--budget", String(budget)])
      expect(text.stderr).toMatch(/^precis: expand: \d+ -> \d+ tokens; expanded \d+$/m)
      expect(text.stdout.split("\n").filter((l) => l.startsWith("[Summary ")).length).toBe(expanded.summaries.length)
      const off = JSON.parse((yield* runCli(["context", "--db", db, "--budget", String(budget), "--no-expand", "--json"])).stdout)
      assert.deepStrictEqual(off.summaries.map((s: Node) => s.id), full.summaries.map((s: Node) => s.id))
      assert.deepStrictEqual(off.turns.map((t: { id: string }) => t.id), full.turns.map((t: { id: string }) => t.id))
      assert.deepStrictEqual(off.report.stages.map((s: { stage: string }) => s.stage), ["mask", "forget", "window"])
    }))

  it.live("condense FILE --budget N prints the stateless pipeline's context, never over N", () =>
    Effect.gen(function*() {
      const json = yield* runCli(["condense", file, "--budget", "300", "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const condensed = JSON.parse(json.stdout)
      assert.isAtMost(condensed.tokens, 300)
      const summarize = condensed.report.stages.find((s: { stage: string }) => s.stage === "summarize")
      assert.isTrue(summarize.acted)
      assert.isAbove(summarize.summarized, 0)
      assert.strictEqual(condensed.summaries.length, 1)
      const missing = yield* runCli(["condense", file])
      assert.strictEqual(missing.code, 1)
      expect(missing.stderr).toContain("condense needs --budget N")
    }))

  it.live("an unknown session is one line naming the sessions", () =>
    Effect.gen(function*() {
      for (const command of ["show", "context", "compact"]) {
        const result = yield* runCli([command, "--db", db, "--session", "nope"])
        assertOneLineFailure(result, /unknown session 'nope' in .*dag\.db \(sessions: dag\)$/)
      }
    }))

  it.live("show, context and compact without FILE never create a missing store", () =>
    Effect.gen(function*() {
      const missing = path.join(dir, "missing.db")
      for (const command of ["show", "context", "compact"]) {
        const result = yield* runCli([command, "--db", missing])
        assertOneLineFailure(result, /missing\.db: no such store/)
      }
      assert.isFalse(fs.existsSync(missing))
    }))

  it.live("without the store, show, context and sessions name the .db files found beside it", () =>
    Effect.gen(function*() {
      const folder = fs.mkdtempSync(path.join(dir, "hint-"))
      const wanted = path.join(folder, "precis.db")
      const none = yield* runCli(["sessions", "--db", wanted])
      assertOneLineFailure(none, /precis\.db: no such store \(import a file first/)
      fs.copyFileSync(db, path.join(folder, "demo.db"))
      for (const command of ["show", "context", "sessions"]) {
        const one = yield* runCli([command, "--db", wanted])
        const demo = path.join(folder, "demo.db")
        assertOneLineFailure(one, `precis: ${wanted}: no such store; found ${demo} in ${folder}: use --db ${demo}`)
      }
      fs.copyFileSync(db, path.join(folder, "other.db"))
      const several = yield* runCli(["show", "--db", wanted])
      assertOneLineFailure(several, /found .*demo\.db, .*other\.db in .*: choose one with --db$/)
      assert.isFalse(fs.existsSync(wanted))
    }))

  it.live("a store that is not SQLite fails with one line naming the file", () =>
    Effect.gen(function*() {
      const junk = write(dir, "junk.db", "not a database\n")
      for (const command of ["show", "context", "sessions"]) {
        assertOneLineFailure(yield* runCli([command, "--db", junk]), new RegExp(`^precis: ${junk.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: `))
      }
    }))

  it.live("sessions lists each session with its sizes and time range, and changes nothing", () =>
    Effect.gen(function*() {
      const before = fs.readFileSync(db)
      const json = yield* runCli(["sessions", "--db", db, "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const stats = JSON.parse(compacted.stdout)
      assert.deepStrictEqual(JSON.parse(json.stdout), {
        db,
        sessions: [{
          id: "dag",
          turns: 40,
          uncoveredTurns: 6,
          summaries: stats.leafSummariesCreated + stats.condensedSummariesCreated,
          timeRangeStart: "2025-01-01T00:00:00.000Z",
          timeRangeEnd: "2025-01-01T00:39:00.000Z"
        }]
      })
      const text = yield* runCli(["sessions", "--db", db])
      assert.strictEqual(
        text.stdout,
        `dag · 40 turns (6 not summarized) · ${
          stats.leafSummariesCreated + stats.condensedSummariesCreated
        } summaries · 2025-01-01T00:00:00 → 2025-01-01T00:39:00`
      )
      assert.isTrue(fs.readFileSync(db).equals(before))
    }))

  it.live("with several sessions and no --session, asks for one", () =>
    Effect.gen(function*() {
      const two = path.join(dir, "two.db")
      yield* runCli(["import", write(dir, "a.jsonl", sessionJsonl(2, "a")), "--db", two])
      yield* runCli(["import", write(dir, "b.jsonl", sessionJsonl(2, "b")), "--db", two])
      assertOneLineFailure(yield* runCli(["show", "--db", two]), /several sessions \(a, b\): choose one with --session/)
      const chosen = yield* runCli(["show", "--db", two, "--session", "b"])
      assert.strictEqual(chosen.code, 0, chosen.stderr)
      expect(chosen.stdout).toMatch(/^session b: 2 turns/)
      const listed = yield* runCli(["sessions", "--db", two])
      assert.deepStrictEqual(listed.stdout.split("\n").map((l) => l.split(" · ")[0]), ["a", "b"])
    }))
})

describe("compact --all", () => {
  const flags = ["--leaf-chunk-tokens", "150", "--fresh-tail", "6", "--min-fan-in", "2", "--max-fan-in", "4"]

  it.live("compacts every session with work, prints a line per session and the totals, then finds nothing", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "all.db")
      for (const [name, turns] of [["a", 40], ["b", 30], ["c", 4]] as const) {
        const imported = yield* runCli(["import", write(dir, `${name}.jsonl`, sessionJsonl(turns, name)), "--db", db])
        assert.strictEqual(imported.code, 0, imported.stderr)
      }
      const text = yield* runCli(["compact", "--all", "--db", db, ...flags])
      assert.strictEqual(text.code, 0, text.stderr)
      const lines = text.stdout.split("\n")
      // c is all fresh tail: nothing to do there.
      expect(lines.filter((line) => /^[abc]: compacted/.test(line)).map((line) => line.slice(0, 2)).sort()).toEqual([
        "a:",
        "b:"
      ])
      expect(lines.find((line) => line.startsWith("2 sessions:"))).toMatch(
        /^2 sessions: compacted 58 turns into \d+ leaf and \d+ condensed summaries$/
      )
      const again = yield* runCli(["compact", "--all", "--db", db, "--json", ...flags])
      assert.strictEqual(again.code, 0, again.stderr)
      const stats = JSON.parse(again.stdout)
      assert.deepStrictEqual(stats.sessions, [])
      assert.strictEqual(stats.totals.turnsCompacted, 0)
      assert.strictEqual(stats.skippedLocked, 0)
      assert.deepStrictEqual(
        yield* StoreInvariants.violations({ freshTailTurns: 6, minFanIn: 2, maxFanIn: 4, condensedFully: true }).pipe(
          Effect.provide(storeLayer(db))
        ),
        []
      )
    }))

  it.live("compact appends the Also line of dropped keys by default; --no-also-line and PRECIS_COMPACTION_ALSO_LINE=false turn it off", () =>
    Effect.gen(function*() {
      const file = write(dir, "also.jsonl", sessionJsonl(40))
      const flags = ["--leaf-chunk-tokens", "300", "--fresh-tail", "6", "--json"]
      const contents = (db: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ content: string }>`SELECT content FROM summaries`).pipe(
          Effect.map((rows) => rows.map((row) => row.content)),
          Effect.provide(storeLayer(db))
        )
      const withLine = path.join(dir, "also-on.db")
      const on = yield* runCli(["compact", file, "--db", withLine, ...flags])
      assert.strictEqual(on.code, 0, on.stderr)
      const alsoLines = (yield* contents(withLine)).flatMap((c) => c.split("\n").filter((l) => l.startsWith("Also: ")))
      assert.isAbove(alsoLines.length, 0)
      for (const [name, args, env] of [
        ["flag", ["--no-also-line"], {}],
        ["variable", [], { PRECIS_COMPACTION_ALSO_LINE: "false" }]
      ] as const) {
        const db = path.join(dir, `also-off-${name}.db`)
        const off = yield* runCli(["compact", file, "--db", db, ...flags, ...args], { env })
        assert.strictEqual(off.code, 0, off.stderr)
        const texts = yield* contents(db)
        assert.isAbove(texts.length, 0)
        assert.isFalse(texts.some((c) => c.includes("\nAlso: ")), name)
      }
    }))

  it.live("--all takes no FILE, --session or --redo-fallbacks", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "all-bad.db")
      const file = write(dir, "all-bad.jsonl", sessionJsonl(4))
      for (const extra of [[file], ["--session", "s"], ["--redo-fallbacks"]]) {
        const result = yield* runCli(["compact", "--all", "--db", db, ...extra])
        assertOneLineFailure(result, /--all compacts the sessions already in the store/)
      }
      assert.isFalse(fs.existsSync(db))
    }))
})

describe("compaction flags and their PRECIS_COMPACTION_* variables", () => {
  const file = write(dir, "env.jsonl", sessionJsonl(40))
  const compactJson = (name: string, args: ReadonlyArray<string>, env?: Record<string, string>) =>
    Effect.map(
      runCli(["compact", file, "--db", path.join(dir, `${name}.db`), "--json", ...args], env === undefined ? {} : { env }),
      (result) => {
        assert.strictEqual(result.code, 0, result.stderr)
        return JSON.parse(result.stdout) as { leafSummariesCreated: number; turnsCompacted: number }
      }
    )

  it.live("a missing flag is read from its variable, and the flag wins over the variable", () =>
    Effect.gen(function*() {
      const byFlag = yield* compactJson("flag", ["--leaf-chunk-tokens", "150", "--fresh-tail", "6"])
      const byEnv = yield* compactJson("env", [], {
        PRECIS_COMPACTION_LEAF_CHUNK_TOKENS: "150",
        PRECIS_COMPACTION_FRESH_TAIL_TURNS: "6"
      })
      const defaults = yield* compactJson("defaults", [])
      assert.strictEqual(byFlag.turnsCompacted, 34)
      assert.deepStrictEqual(byEnv, byFlag)
      assert.notStrictEqual(defaults.leafSummariesCreated, byFlag.leafSummariesCreated)
      const flagWins = yield* compactJson("both", ["--leaf-chunk-tokens", "150", "--fresh-tail", "6"], {
        PRECIS_COMPACTION_FRESH_TAIL_TURNS: "30"
      })
      assert.deepStrictEqual(flagWins, byFlag)
    }))

  it.live("without flags or variables the CLI writes the DAG the library writes with its defaults", () =>
    Effect.gen(function*() {
      // 60 turns of ~200 tokens: more than one leaf of 2000 tokens, one of the library's 20,000.
      const big = write(dir, "defaults.jsonl", sessionJsonl(60).split("\n").map((line) => {
        if (line.length === 0) return line
        const turn = JSON.parse(line)
        return JSON.stringify({ ...turn, content: `${turn.content} ${"and then src/app.ts was read again ".repeat(20)}` })
      }).join("\n"))
      const db = path.join(dir, "defaults.db")
      const cli = yield* runCli(["compact", big, "--db", db, "--json"])
      assert.strictEqual(cli.code, 0, cli.stderr)
      const library = yield* Effect.gen(function*() {
        const store = yield* TurnStore.TurnStore
        const manager = yield* CompactionManager.CompactionManager
        const imported = yield* Importer.importFile(big)
        yield* store.appendTurns("defaults", Importer.allTurns(imported))
        return yield* manager.compact("defaults")
      }).pipe(
        Effect.provide(CompactionManager.layer().pipe(
          Layer.provideMerge(storeLayer()),
          Layer.provide(Summarizer.layer()),
          Layer.provide(ExtractiveProvider.layer())
        )),
        Effect.provide(NodeFileSystem.layer)
      )
      const stats = JSON.parse(cli.stdout)
      assert.deepStrictEqual(
        [stats.leafSummariesCreated, stats.condensedSummariesCreated, stats.turnsCompacted],
        [library.leafSummariesCreated, library.condensedSummariesCreated, library.turnsCompacted]
      )
      assert.strictEqual(stats.turnsCompacted, 60 - CompactionOptions.defaults.freshTailTurns)
    }))

  it.live("--budget and PRECIS_COMPACTION_BUDGET are the library's budget: they bound the fresh tail in tokens", () =>
    Effect.gen(function*() {
      // A budget of 2400 bounds the tail at 1000 tokens (tailTokensFor), fewer than 16 turns of this session.
      const byFlag = yield* compactJson("budget", ["--budget", "2400"])
      const byVariable = yield* compactJson("budget-env", [], { PRECIS_COMPACTION_BUDGET: "2400" })
      const none = yield* compactJson("budget-none", [])
      assert.deepStrictEqual(byVariable, byFlag)
      assert.isAbove(byFlag.turnsCompacted, none.turnsCompacted)
      // PRECIS_BUDGET is not a variable of precis: one budget variable.
      assert.deepStrictEqual(yield* compactJson("budget-old", [], { PRECIS_BUDGET: "2400" }), none)
    }))

  it.effect("compactionOptions reads all 13 PRECIS_COMPACTION_* variables, a flag winning over its variable", () =>
    Effect.gen(function*() {
      // A value for each of the 13 options, as a shell would set them.
      const env = (
        "FRESH_TAIL_TURNS=3 FRESH_TAIL_TOKENS=900 BUDGET=8000 LOW_WATER=0.4 LEAF_CHUNK_TOKENS=700 MAX_TURNS=50 " +
        "MIN_FAN_IN=3 MAX_FAN_IN=5 THRESHOLD=0.6 CONCURRENCY=2 LEAF_TARGET_TOKENS=300 CONDENSE_TARGET_TOKENS=400 " +
        "ALSO_LINE=false"
      ).split(" ").map((setting) => {
        const [name, value] = setting.split("=")
        return [`${CompactionOptions.prefix}${name}`, value!] as const
      })
      const none = Option.none<number>()
      const flags = {
        budget: none,
        freshTail: Option.some(6),
        leafChunkTokens: none,
        minFanIn: none,
        maxFanIn: none,
        concurrency: none,
        noAlsoLine: false
      }
      const [options, library] = yield* Effect.all([compactionOptions(flags), CompactionOptions.config]).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(env)))
      )
      assert.strictEqual(Object.keys(options).length, 13)
      assert.deepStrictEqual(options, { ...library, freshTailTurns: 6 })
      assert.strictEqual(options.threshold, 0.6)
      assert.strictEqual(options.alsoLine, false)
    }))

  it.live("PRECIS_COMPACTION_MAX_TURNS reaches the compaction", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* compactJson("max-turns", [], { PRECIS_COMPACTION_MAX_TURNS: "5" })).turnsCompacted, 5)
    }))

  it.live("every PRECIS_COMPACTION_* variable out of its bounds exits 1 with one line naming it, writing nothing", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<readonly [string, string, string]> = [
        ["PRECIS_COMPACTION_THRESHOLD", "5", "must be a number in (0, 1] (got 5)"],
        ["PRECIS_COMPACTION_LEAF_TARGET_TOKENS", "-3", "must be an integer >= 1 (got -3)"],
        ["PRECIS_COMPACTION_FRESH_TAIL_TURNS", "-1", "must be an integer >= 0 (got -1)"],
        ["PRECIS_COMPACTION_FRESH_TAIL_TOKENS", "1.5", "must be an integer >= 0 (got 1.5)"],
        ["PRECIS_COMPACTION_BUDGET", "0", "must be an integer >= 1 (got 0)"],
        ["PRECIS_COMPACTION_LOW_WATER", "2", "must be a number in (0, 1] (got 2)"],
        ["PRECIS_COMPACTION_LEAF_CHUNK_TOKENS", "lots", `must be an integer >= 1 (got "lots")`],
        ["PRECIS_COMPACTION_MAX_TURNS", "0", "must be an integer >= 1 (got 0)"],
        ["PRECIS_COMPACTION_MIN_FAN_IN", "1", "must be an integer >= 2 (got 1)"],
        ["PRECIS_COMPACTION_MAX_FAN_IN", "3", "must be an integer >= PRECIS_COMPACTION_MIN_FAN_IN (got 3 < 4)"],
        ["PRECIS_COMPACTION_CONCURRENCY", "0", "must be an integer >= 1 (got 0)"],
        ["PRECIS_COMPACTION_CONDENSE_TARGET_TOKENS", "NaN", `must be an integer >= 1 (got "NaN")`],
        ["PRECIS_COMPACTION_ALSO_LINE", "perhaps", `must be true or false (got "perhaps")`]
      ]
      const db = path.join(dir, "bad-env.db")
      for (const [name, value, message] of bad) {
        const result = yield* runCli(["compact", file, "--db", db], { env: { [name]: value } })
        assertOneLineFailure(result, new RegExp(`^precis: configuration error: ${name}: ${escape(message)}$`))
      }
      assert.isFalse(fs.existsSync(db))
    }))

  it.live("a rule broken across a flag and a variable names both", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["compact", file, "--db", path.join(dir, "across.db"), "--max-fan-in", "3"], {
        env: { PRECIS_COMPACTION_MIN_FAN_IN: "5" }
      })
      assertOneLineFailure(result, /^precis: --max-fan-in must be an integer >= PRECIS_COMPACTION_MIN_FAN_IN \(got 3 < 5\)$/)
    }))
})

describe("compact output", () => {
  it.live("without --json prints the DAG and the tier counts, and plain progress lines on stderr", () =>
    Effect.gen(function*() {
      const file = write(dir, "plain.jsonl", sessionJsonl(30))
      const db = path.join(dir, "plain.db")
      const result = yield* runCli(["compact", file, "--db", db, "--leaf-chunk-tokens", "150", "--fresh-tail", "4"])
      assert.strictEqual(result.code, 0, result.stderr)
      expect(result.stdout).toMatch(/^imported 30 of 30 turns into session plain$/m)
      expect(result.stdout).toMatch(/^compacted 26 turns into \d+ leaf and \d+ condensed summaries$/m)
      expect(result.stdout).toMatch(/^session plain: 30 turns \(4 not summarized\)/m)
      expect(result.stdout).toMatch(/^depth 1 · /m)
      expect(result.stdout).toMatch(/^tiers this run: normal \d+, aggressive \d+, fallback \d+$/m)
      const progress = result.stderr.split("\n")
      expect(progress[0]).toMatch(/^precis: leaf pass: 26 turns in \d+ chunks$/)
      expect(result.stderr).toMatch(/^precis: leaves \[#+\] (\d+)\/\1 · tiers: normal \d+/m)
      expect(result.stderr).toMatch(/^precis: condensing depth 0: \d+ groups$/m)
      expect(result.stderr).not.toContain("\r")
    }))

  it.live("draws the progress bar in place when stderr is a terminal", () =>
    Effect.gen(function*() {
      const file = write(dir, "tty.jsonl", sessionJsonl(20))
      const written: Array<string> = []
      const result = yield* runCli(
        ["compact", file, "--db", path.join(dir, "tty.db"), "--leaf-chunk-tokens", "150"],
        { stderr: { isTTY: true, write: (text) => void written.push(text) } }
      )
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
      assert.isAbove(written.length, 2)
      for (const chunk of written.slice(0, -1)) expect(chunk).toMatch(/^\r\x1b\[K/)
      assert.strictEqual(written.at(-1), "\n")
    }))

  it.live("--verbose logs each LLM call's timing on stderr, stdout stays one JSON document", () =>
    Effect.gen(function*() {
      const file = write(dir, "verbose.jsonl", sessionJsonl(20))
      const result = yield* runCli([
        "compact",
        file,
        "--db",
        path.join(dir, "verbose.db"),
        "--leaf-chunk-tokens",
        "150",
        "--json",
        "--verbose"
      ])
      assert.strictEqual(result.code, 0, result.stderr)
      const stats = JSON.parse(result.stdout)
      const calls = result.stderr.split("\n").filter((l) => l.includes("LLM call replied"))
      assert.strictEqual(calls.length, stats.leafSummariesCreated + stats.condensedSummariesCreated)
      for (const line of calls) expect(line).toMatch(/level=DEBUG .*elapsedMs=\d/)
      expect(result.stderr).toMatch(/precis: compacted.*elapsedMs=/)
      expect(result.stderr).toContain("precis: leaf pass")
    }))

  it.live("quiet without --verbose: no debug logs", () =>
    Effect.gen(function*() {
      const file = write(dir, "quiet.jsonl", sessionJsonl(20))
      const result = yield* runCli(["compact", file, "--db", path.join(dir, "quiet.db"), "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
    }))

  it.live("rejects bad compaction option values before touching anything", () =>
    Effect.gen(function*() {
      const file = write(dir, "badopt.jsonl", sessionJsonl(4))
      const db = path.join(dir, "badopt.db")
      for (
        const [flag, value, message] of [
          ["--fresh-tail", "-1", "--fresh-tail must be an integer >= 0"],
          ["--budget", "0", "--budget must be an integer >= 1"],
          ["--min-fan-in", "1", "--min-fan-in must be an integer >= 2"],
          ["--leaf-chunk-tokens", "1.5", "--leaf-chunk-tokens must be an integer >= 1"],
          ["--concurrency", "x", "--concurrency must be an integer >= 1"]
        ] as const
      ) {
        const result = yield* runCli(["compact", file, "--db", db, flag, value])
        assert.strictEqual(result.code, 1)
        expect(stripAnsi(result.stderr)).toContain(message)
      }
      const inverted = yield* runCli(["compact", file, "--db", db, "--min-fan-in", "5", "--max-fan-in", "3"])
      assertOneLineFailure(inverted, /^precis: --max-fan-in must be an integer >= --min-fan-in \(got 3 < 5\)$/)
      assert.isFalse(fs.existsSync(db))
    }))
})

describe("--provider openai", () => {
  const file = write(dir, "openai.jsonl", sessionJsonl(6))
  const SECRET = "sk-test-DO-NOT-PRINT-1234567890"
  let server: Server
  let baseUrl = ""
  const seen: Array<{ readonly authorization: string | undefined; readonly body: { readonly model?: string } }> = []
  let status = 200
  let stall = false
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = ""
      req.on("data", (chunk) => (body += chunk))
      req.on("end", () => {
        seen.push({ authorization: req.headers.authorization, body: JSON.parse(body) })
        if (stall) return // never answers
        res.writeHead(status, { "content-type": "application/json" })
        res.end(
          status === 200
            ? JSON.stringify({ choices: [{ message: { role: "assistant", content: "Edited src/module1.ts." } }] })
            : JSON.stringify({ error: { message: "invalid api key" } })
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  })
  afterAll(() =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  )

  it.live("without PRECIS_OPENAI_MODEL says to set it, and writes nothing", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "nomodel.db")
      for (const args of [["summarize", file], ["compact", file, "--db", db]]) {
        const result = yield* runCli([...args, "--provider", "openai"])
        assertOneLineFailure(result, /--provider openai needs a model: set PRECIS_OPENAI_MODEL/)
      }
      assert.isFalse(fs.existsSync(db))
    }))

  it.live("talks to an OpenAI-compatible server with the configured model and key", () =>
    Effect.gen(function*() {
      status = 200
      seen.length = 0
      const result = yield* runCli(["summarize", file, "--provider", "openai", "--json"], {
        env: { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: baseUrl, PRECIS_OPENAI_API_KEY: SECRET }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(JSON.parse(result.stdout).text, "Edited src/module1.ts.")
      assert.strictEqual(JSON.parse(result.stdout).tier, "normal")
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0]!.body.model, "tiny-model")
      assert.strictEqual(seen[0]!.authorization, `Bearer ${SECRET}`)
    }))

  it.live("a refused key is an error naming the cause, and is never printed, even with --verbose", () =>
    Effect.gen(function*() {
      status = 401
      const result = yield* runCli(["summarize", file, "--provider", "openai", "--json", "--verbose"], {
        env: { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: baseUrl, PRECIS_OPENAI_API_KEY: SECRET }
      })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stdout, "")
      expect(result.stderr).toMatch(/precis: .*openai\.jsonl: not summarized: the provider fails in a way that will not heal \(UnauthorizedError: .*HTTP 401/)
      expect(result.stdout + result.stderr).not.toContain(SECRET)
      expect(result.stdout + result.stderr).not.toContain("DO-NOT-PRINT")
    }))

  it.live("compact with a refused key exits 1 naming the cause, and stores no fallback", () =>
    Effect.gen(function*() {
      status = 401
      seen.length = 0
      const db = path.join(dir, "refused.db")
      const big = write(dir, "refused.jsonl", sessionJsonl(40))
      const env = { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: baseUrl, PRECIS_OPENAI_API_KEY: SECRET }
      const result = yield* runCli(
        ["compact", big, "--db", db, "--provider", "openai", "--leaf-chunk-tokens", "150", "--json"],
        { env }
      )
      assertOneLineFailure(result, /compaction of session refused stopped: .*UnauthorizedError.*HTTP 401/)
      expect(result.stdout + result.stderr).not.toContain(SECRET)
      assert.strictEqual(seen.length, 2) // the first chunk's two tiers, then it stopped
      const shown = yield* runCli(["show", "--db", db, "--json"])
      assert.deepStrictEqual(JSON.parse(shown.stdout).nodes, [])
    }))

  it.live("compact against a server that refuses connections exits 1 naming the cause", () =>
    Effect.gen(function*() {
      // A port that was just free: nothing listens there.
      const closed = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const probe = createServer()
          probe.listen(0, "127.0.0.1", () => {
            const port = (probe.address() as AddressInfo).port
            probe.close(() => resolve(port))
          })
        })
      )
      const db = path.join(dir, "nobody.db")
      const result = yield* runCli(
        ["compact", write(dir, "nobody.jsonl", sessionJsonl(40)), "--db", db, "--provider", "openai", "--json"],
        { env: { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: `http://127.0.0.1:${closed}/v1` } }
      )
      assertOneLineFailure(result, /compaction of session nobody stopped: .*TransportError: .*ECONNREFUSED/)
    }))

  it.live("--redo-fallbacks rewrites the fallbacks of a server that failed for a while", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "redo.db")
      const big = write(dir, "redo.jsonl", sessionJsonl(40))
      const env = { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: baseUrl }
      const flags = ["--db", db, "--provider", "openai", "--leaf-chunk-tokens", "150", "--json"]
      status = 400 // rejected, but nothing a retry or a later run cannot fix: the fallbacks are stored
      const failing = yield* runCli(["compact", big, ...flags], { env })
      assert.strictEqual(failing.code, 0, failing.stderr)
      const first = JSON.parse(failing.stdout)
      assert.isAbove(first.tiersUsed.fallback, 0)
      assert.strictEqual(first.tiersUsed.normal, 0)
      status = 200
      const redone = yield* runCli(["compact", ...flags, "--redo-fallbacks"], { env })
      assert.strictEqual(redone.code, 0, redone.stderr)
      const stats = JSON.parse(redone.stdout)
      assert.strictEqual(stats.leafSummariesCreated, 0)
      assert.deepStrictEqual(stats.redo, {
        redone: first.tiersUsed.fallback,
        stillFallback: 0,
        tiersUsed: { normal: first.tiersUsed.fallback, aggressive: 0, fallback: 0 }
      })
      const nodes = JSON.parse((yield* runCli(["show", "--db", db, "--json"])).stdout).nodes as Array<Node>
      assert.isTrue(nodes.every((n) => n.tier === "normal"))
    }))

  it.live("--timeout bounds each tier: a server that stalls ends in the fallback after two deadlines", () =>
    Effect.gen(function*() {
      stall = true
      seen.length = 0
      const result = yield* runCli(["summarize", file, "--provider", "openai", "--json", "--timeout", "1"], {
        env: { PRECIS_OPENAI_MODEL: "tiny-model", PRECIS_OPENAI_BASE_URL: baseUrl, PRECIS_SUMMARIZER_TIMEOUT: "1 hour" }
      }).pipe(Effect.ensuring(Effect.sync(() => (stall = false))))
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(JSON.parse(result.stdout).tier, "fallback")
      assert.strictEqual(seen.length, 2)
    }))

  it.live("a --timeout that is not a duration is refused, naming the option", () =>
    Effect.gen(function*() {
      for (const bad of ["soon", "0", "-3", "-1 seconds"]) {
        const result = yield* runCli(["summarize", file, "--timeout", bad])
        assertOneLineFailure(
          result,
          new RegExp(`^precis: --timeout must be a positive finite duration such as "30 seconds" \\(got .*\\)$`)
        )
      }
    }))
})

describe("help", () => {
  it.live("--help on every command prints its usage and exits 0", () =>
    Effect.gen(function*() {
      const expected: Record<string, ReadonlyArray<string>> = {
        import: ["--db FILE", "--session ID", "--format", "<FILE>"],
        compact: ["--provider", "--fresh-tail N", "--leaf-chunk-tokens N", "--min-fan-in N", "--max-fan-in N", "--concurrency N"],
        summarize: ["--prior FILE", "--target-tokens N", "--provider"],
        show: ["--json", "--session ID"],
        context: ["--db FILE", "--verbose", "--budget N"],
        condense: ["--budget N", "--provider", "<FILE>"],
        search: ["<QUERY>", "--session ID", "--limit N", "--json"],
        serve: ["--db FILE", "--port N", "--host HOST"]
      }
      for (const [command, fragments] of Object.entries(expected)) {
        const result = yield* runCli([command, "--help"])
        assert.strictEqual(result.code, 0, result.stderr)
        const text = stripAnsi(result.stdout)
        for (const fragment of fragments) expect(text).toContain(fragment)
      }
      const root = yield* runCli(["--help"])
      assert.strictEqual(root.code, 0)
      for (const command of Object.keys(expected)) expect(stripAnsi(root.stdout)).toContain(`- ${command} `)
    }))

  it.live("a subcommand's usage line starts with precis, and no text option reads as generic text", () =>
    Effect.gen(function*() {
      const asked = [
        ...["import", "compact", "summarize", "sessions", "show", "context"].map((command) => [command, "--help"]),
        ["show", "-h"],
        ["--help", "context"]
      ]
      for (const args of asked) {
        const command = args.find((a) => !a.startsWith("-"))!
        const text = stripAnsi((yield* runCli(args)).stdout)
        const usage = text.split("\n").filter((l) => l.startsWith("$ "))
        assert.isAtLeast(usage.length, 1, text)
        for (const line of usage) expect(line).toMatch(new RegExp(`^\\$ precis ${command} `))
        expect(text).not.toContain("A user-defined piece of text")
      }
      const compact = stripAnsi((yield* runCli(["compact", "--help"])).stdout)
      expect(compact).toMatch(/^--fresh-tail N\n\n  An integer\.$/m)
      expect(compact).toMatch(/^--db FILE\n\n  A file path\.$/m)
      expect(compact).toMatch(/^--timeout DURATION\n\n  A duration/m)
      expect(compact).toMatch(/^<FILE>\n\n  A file path\.$/m)
    }), { timeout: 30_000 }) // eight help pages, on shared cores

  it.live("every option of every command says its default", () =>
    Effect.gen(function*() {
      const builtIns = ["--completions", "--log-level", "(-h, --help)", "--version"]
      for (const command of ["import", "compact", "summarize", "sessions", "show", "context", "watch", "search", "serve"]) {
        const text = stripAnsi((yield* runCli([command, "--help"])).stdout)
        const options = text.slice(text.indexOf("\nOPTIONS\n") + "\nOPTIONS\n".length)
        // An entry is a line at the start of the column, then its indented paragraphs.
        const entries = options.trim().split(/\n(?=[^\s])/)
        assert.isAtLeast(entries.length, 3, command)
        for (const entry of entries) {
          const name = entry.split("\n")[0]!
          if (builtIns.some((b) => name.startsWith(b))) continue
          expect(entry, `${command} ${name}`).toMatch(/default/)
        }
      }
    }))

  it.live("--wizard is neither shown nor run: it is refused with one line", () =>
    Effect.gen(function*() {
      for (const args of [["--help"], ["compact", "--help"]]) {
        expect(stripAnsi((yield* runCli(args)).stdout)).not.toContain("--wizard")
      }
      for (const args of [["--wizard"], ["compact", "--wizard"], ["show", "--db", "x.db", "--wizard"]]) {
        assertOneLineFailure(yield* runCli(args), /^precis: --wizard is not supported: see precis --help$/)
      }
    }))

  it.live("no command prints the help; --version prints the version", () =>
    Effect.gen(function*() {
      const bare = yield* runCli([])
      assert.strictEqual(bare.code, 0, bare.stderr)
      expect(stripAnsi(bare.stdout)).toContain("- summarize ")
      expect(stripAnsi(bare.stdout)).toContain("- sessions ")
      const version = yield* runCli(["--version"])
      assert.strictEqual(version.code, 0)
      assert.strictEqual(version.stdout.trim(), "0.1.0")
    }))

  it.live("an unknown command fails with exit code 1", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["frobnicate"])
      assertOneLineFailure(result, /^precis: Invalid subcommand for precis - use one of 'import'/)
    }))

  it.live("the parser's errors share the precis: prefix and stay one line", () =>
    Effect.gen(function*() {
      assertOneLineFailure(
        yield* runCli(["compact", "--fresh-tail", "abc"]),
        /^precis: --fresh-tail must be an integer >= 0 \(got "abc"\)$/
      )
      assertOneLineFailure(yield* runCli(["import"]), /^precis: /)
    }))
})

const fixtures = path.resolve(repoRoot, "..", "shared", "fixtures", "transcripts")
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
      expect(header).toMatch(/^Session state \(from turns 1a2252ee-fde8-4a8f-a103-4028c39c47ce … [\w-]+, \d+ turns\):\n/)
      for (
        const entry of [
          "- first request: Implement spotter-gqc [1a2252ee-fde8-4a8f-a103-4028c39c47ce]",
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
      // Tests that failed and then passed leave no open error.
      assert.notInclude(header, "Open errors:")
    }), { timeout: 120_000 })
})

describe("stores that are not ours, read-only commands", () => {
  const siblings = (db: string) => fs.readdirSync(dir).filter((name) => name.startsWith(`${path.basename(db)}-`))

  it.live("show and context read a store without writing it: no -wal/-shm left, bytes identical", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "readonly.db")
      const file = write(dir, "readonly.jsonl", sessionJsonl(30, "r"))
      const compacted = yield* runCli(["compact", file, "--db", db, "--leaf-chunk-tokens", "300"])
      assert.strictEqual(compacted.code, 0, compacted.stderr)
      const before = fs.readFileSync(db)
      for (const command of ["show", "context"]) {
        const result = yield* runCli([command, "--db", db])
        assert.strictEqual(result.code, 0, result.stderr)
      }
      assert.deepStrictEqual(siblings(db), [])
      assert.isTrue(before.equals(fs.readFileSync(db)))
    }))

  it.live("show and context on a 0-byte file: one line naming it, the file unchanged", () =>
    Effect.gen(function*() {
      const zero = write(dir, "zero.db", "")
      for (const command of ["show", "context"]) {
        assertOneLineFailure(yield* runCli([command, "--db", zero]), `${zero}: not a precis store (it is empty)`)
      }
      assert.strictEqual(fs.statSync(zero).size, 0)
      assert.deepStrictEqual(siblings(zero), [])
    }))

  it.live("every command refuses a database with tables but no precis migrations, naming it, leaving it unchanged", () =>
    Effect.gen(function*() {
      const file = write(dir, "into-foreign.jsonl", sessionJsonl(5, "x"))
      const foreign = path.join(dir, "other.db")
      // Tables without precis's migration table: what another program's SQLite file looks like to precis.
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP TABLE precis_migrations`).pipe(
        Effect.provide(storeLayer(foreign))
      )
      const before = fs.readFileSync(foreign)
      for (const args of [["import", file], ["compact", file], ["show"], ["context"]]) {
        assertOneLineFailure(
          yield* runCli([...args, "--db", foreign]),
          `${foreign}: not a precis store (it has tables but no precis migrations)`
        )
      }
      assert.isTrue(before.equals(fs.readFileSync(foreign)))
      assert.deepStrictEqual(siblings(foreign), [])
    }))

  it.live("--db with an empty name is refused before anything is written", () =>
    Effect.gen(function*() {
      const file = write(dir, "nodb.jsonl", sessionJsonl(3, "n"))
      const result = yield* runCli(["import", file, "--db", ""])
      assert.strictEqual(result.code, 1)
      expect(result.stderr).toContain("--db must name a file")
    }))
})
