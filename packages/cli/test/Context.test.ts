/**
 * `precis context`: the context an agent would send, whole or within a budget.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { afterAll } from "vitest"
import { runCli, tempDir } from "./utils/run.js"
import { compactedStore, type Node } from "./utils/store.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("context", () => {
  const { db } = compactedStore(dir)

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
      assert.isTrue(text.stdout.startsWith("Summary of the earlier conversation, oldest first:\n\n[Summary 1, depth "))
      assert.include(text.stdout, `\n\n${context.header}\n\n[2025-01-01T00:34:00] `)
      // The date once, on the first turn; the next turns of the same day by their time.
      expect(text.stdout.trimEnd()).toMatch(/\n\[00:38:00\] user: Step 38: .*\n\[00:39:00\] assistant: Step 39: .*$/)
      // --no-state leaves it out.
      const bare = yield* runCli(["context", "--db", db, "--no-state"])
      assert.strictEqual(bare.code, 0, bare.stderr)
      expect(bare.stdout).toMatch(/^Summary of the earlier conversation, oldest first:\n\n\[Summary 1, depth \d/)
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
      // What is printed is what the JSON counts (the captured stdout has no trailing newline).
      assert.strictEqual(Math.floor(Array.from(text.stdout).length / 4), fitted.tokens)
      // The first request pinned first.
      assert.deepStrictEqual(fitted.pinned.map((t: { id: string }) => t.id), ["t0"])
      assert.isTrue(text.stdout.startsWith("[2025-01-01T00:00:00] user: "))
      assert.include(text.stdout, `\n\n${fitted.header}\n\n`)
      expect(text.stderr).toMatch(
        new RegExp(
          `^precis: session state: ${fitted.headerTokens} tokens\nprecis: condenser: ${fitted.report.tokensBefore} -> ` +
            `${fitted.report.tokensAfter} tokens \\(budget ${budget}\\)`
        )
      )
      expect(text.stderr.split("\n").every((line) => line.startsWith("precis: "))).toBe(true)
      expect(text.stderr).toMatch(new RegExp(`^precis: printed: ${fitted.tokens} of ${budget} tokens$`, "m"))
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

})
