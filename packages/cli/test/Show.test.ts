/**
 * `precis show`: a session's DAG as a tree, as JSON, as a diagram.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { assertOneLineFailure, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"
import { compactedStore, JSON_NODE_KEYS, type Node } from "./utils/store.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("show", () => {
  const { compacted, db } = compactedStore(dir)

  it.live("show --json gives the nodes of a consistent DAG", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["show", "--db", db, "--json"])
      assert.strictEqual(result.code, 0, result.stderr)
      const { session, nodes } = JSON.parse(result.stdout) as { session: string; nodes: Array<Node> }
      assert.strictEqual(session, "dag")
      const stats = JSON.parse(compacted().stdout)
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

  it.live("mermaid and dot print the session's DAG; --json wins", () =>
    Effect.gen(function*() {
      const nodes = JSON.parse((yield* runCli(["show", "--db", db, "--json"])).stdout).nodes as Array<
        { id: string; children: Array<string> }
      >
      const edges = nodes.reduce((n, node) => n + node.children.length, 0)
      const mermaid = yield* runCli(["show", "--db", db, "--format", "mermaid"])
      assert.strictEqual(mermaid.code, 0, mermaid.stderr)
      const lines = mermaid.stdout.split("\n")
      assert.deepStrictEqual(lines.slice(0, 4), ["---", "title: \"session dag\"", "---", "flowchart TD"])
      assert.strictEqual(lines.filter((l) => /^ {2}n\d+\["depth \d · \w+<br\/>\d+ tokens<br\/>2025-/.test(l)).length, nodes.length)
      assert.strictEqual(lines.filter((l) => /^ {2}n\d+ --> n\d+$/.test(l)).length, edges)
      const dot = yield* runCli(["show", "--db", db, "--format", "dot"])
      assert.strictEqual(dot.code, 0, dot.stderr)
      for (const node of nodes) expect(dot.stdout).toContain(`"${node.id}" [label="depth `)
      assert.strictEqual(dot.stdout.split("\n").filter((l) => l.includes(" -> ")).length, edges)
      const json = yield* runCli(["show", "--db", db, "--format", "dot", "--json"])
      assert.strictEqual(JSON.parse(json.stdout).nodes.length, nodes.length)
    }))
})
