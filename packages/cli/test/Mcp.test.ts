/**
 * `precis mcp` as a real process, driven by the official MCP client
 * (`@modelcontextprotocol/sdk`'s `Client` over `StdioClientTransport`, which
 * checks every result against the MCP schema): the tools listed, each
 * called, an `expand` paged to its end, bad arguments and unknown ids as
 * tool errors after which the server still answers, the store left as it
 * was, and a missing store reported by every call.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { repoRoot, runCli, tempDir } from "./utils/run.js"

const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")
const example = path.join(repoRoot, "examples", "coding-session.jsonl")
const dir = tempDir()
const db = path.join(dir, "store.db")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

beforeAll(async () => {
  const compacted = await Effect.runPromise(
    runCli(["compact", example, "--db", db, "--session", "demo", "--leaf-chunk-tokens", "2000"])
  )
  assert.strictEqual(compacted.code, 0, compacted.stderr)
  // A session only imported: no session state was ever saved for it.
  const imported = await Effect.runPromise(runCli(["import", example, "--db", db, "--session", "plain"]))
  assert.strictEqual(imported.code, 0, imported.stderr)
}, 120_000)

const TIMEOUT = 120_000

interface Server {
  readonly client: Client
  readonly stderr: () => string
  readonly close: () => Promise<void>
}

/** `precis mcp --db FILE` started and connected; its stderr collected. */
const connect = async (store: string): Promise<Server> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "--db", store],
    cwd: dir,
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const client = new Client({ name: "precis-test", version: "1.0.0" })
  await client.connect(transport)
  return { client, stderr: () => stderr, close: () => client.close() }
}

type ToolResult = {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: Record<string, unknown>
}

const call = async (server: Server, name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  (await server.client.callTool({ name, arguments: args })) as ToolResult

const text = (result: ToolResult): string => result.content.map((part) => part.text ?? "").join("")

const sha = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex")

describe("precis mcp with the official MCP client", () => {
  it("lists the five read-only tools and answers each; an expand pages to its end", async () => {
    const before = sha(db)
    const server = await connect(db)
    try {
      const { tools } = await server.client.listTools()
      assert.deepStrictEqual(tools.map((t) => t.name).sort(), ["context", "describe", "expand", "read", "search"])
      for (const tool of tools) {
        assert.strictEqual(tool.annotations?.readOnlyHint, true, tool.name)
        assert.strictEqual(tool.inputSchema.type, "object")
      }
      assert.deepStrictEqual(tools.find((t) => t.name === "expand")!.inputSchema.required, ["summaryId"])

      const described = await call(server, "describe", { session: "demo" })
      assert.isNotTrue(described.isError)
      const outline = described.structuredContent as { turns: number; roots: Array<{ id: string; depth: number }> }
      assert.strictEqual(outline.turns, 245)
      assert.deepStrictEqual(JSON.parse(text(described)), outline)
      const root = outline.roots[0]!
      assert.strictEqual(root.depth, 1)

      // An array result: the JSON text only (structuredContent must be an object).
      const found = await call(server, "search", { query: "RangeError", session: "demo", limit: 3 })
      assert.isNotTrue(found.isError)
      assert.isUndefined(found.structuredContent)
      const hits = JSON.parse(text(found)) as Array<{ snippet: string; sessionId: string }>
      assert.isAtLeast(hits.length, 1)
      assert.isAtMost(hits.length, 3)
      expect(hits[0]!.snippet).toContain("«RangeError»")

      // Every source turn of the root, a page of at most 300 tokens at a time.
      const seen: Array<string> = []
      let offset: number | null = 0
      let pages = 0
      while (offset !== null) {
        const page = await call(server, "expand", { summaryId: root.id, of: "turns", offset, maxTokens: 300 })
        const expansion = page.structuredContent as {
          total: number
          tokens: number
          items: Array<{ id: string }>
          nextOffset: number | null
        }
        assert.isAtMost(expansion.tokens, 300)
        seen.push(...expansion.items.map((i) => i.id))
        offset = expansion.nextOffset
        if (offset !== null) assert.strictEqual(offset, seen.length)
        pages++
        assert.isBelow(pages, 500)
      }
      assert.isAbove(pages, 1)
      assert.strictEqual(new Set(seen).size, seen.length)
      assert.strictEqual(seen.length, (await call(server, "expand", { summaryId: root.id, of: "turns" })).structuredContent!.total)

      const context = await call(server, "context", { session: "demo", budget: 4000 })
      const assembled = context.structuredContent as { tokens: number; summaries: number; text: string }
      assert.isAtMost(assembled.tokens, 4000)
      assert.isAbove(assembled.summaries, 0)
      // Everything sent within the budget: the first request, the summaries and their recall note, the header, the turns.
      assert.strictEqual(Math.floor(Array.from(assembled.text).length / 4), assembled.tokens)
      expect(assembled.text).toMatch(/^\[[^\]]+\] user: /)
      expect(assembled.text).toMatch(/Summary ids: [^\n]+\n\nSession state/)
      // The header cites turns by short ids: read gives the cited turn back.
      const citation = /first request: .+ \[([^\]\s]+)\]/.exec(assembled.text)
      assert.isNotNull(citation, assembled.text.slice(0, 400))
      const cited = await call(server, "read", { session: "demo", id: citation![1], around: 0 })
      assert.isNotTrue(cited.isError, text(cited))
      const turn = cited.structuredContent as { turnId: string; items: Array<{ id: string; role: string }> }
      assert.deepStrictEqual(turn.items.map((i) => [i.id, i.role]), [[turn.turnId, "user"]])
      // A state folded from every turn is not saved (the store is read-only: a save would fail and warn).
      const plain = await call(server, "context", { session: "plain" })
      expect((plain.structuredContent as { text: string }).text).toMatch(/\n\nSession state \(from turns .+, 245 turns\)/)

      // Read-only: no byte of the store changed, and nothing was logged (no failed write).
      assert.strictEqual(sha(db), before)
      assert.strictEqual(server.stderr(), "")
    } finally {
      await server.close()
    }
  }, TIMEOUT)

  it("bad arguments and unknown ids are tool errors; the server goes on answering", async () => {
    const server = await connect(db)
    try {
      const bad = await call(server, "search", { query: 3 })
      assert.isTrue(bad.isError)
      assert.strictEqual(text(bad), "invalid arguments: \"query\" must be a string (got 3)")
      const outOfRange = await call(server, "expand", { summaryId: "x", maxTokens: 10 })
      assert.isTrue(outOfRange.isError)
      expect(text(outOfRange)).toContain("maxTokens")
      const unknown = await call(server, "expand", { summaryId: "nope" })
      assert.deepStrictEqual([unknown.isError, text(unknown)], [true, "no summary \"nope\""])
      const noSession = await call(server, "context", { session: "nobody" })
      assert.deepStrictEqual([noSession.isError, text(noSession)], [true, "no session \"nobody\""])
      // A tool the server does not have is a protocol error, not a crash.
      const missingTool = await server.client.callTool({ name: "frobnicate", arguments: {} }).then(
        (result) => JSON.stringify(result),
        (error: Error) => error.message
      )
      expect(missingTool).toContain("frobnicate")
      assert.isNotTrue((await call(server, "describe", { session: "demo" })).isError)
    } finally {
      await server.close()
    }
  }, TIMEOUT)

  it("a missing store: the server starts, every call says so, and no store is created", async () => {
    const missing = path.join(dir, "missing.db")
    const server = await connect(missing)
    try {
      assert.strictEqual((await server.client.listTools()).tools.length, 5)
      for (const [name, args] of [["search", { query: "x" }], ["context", { session: "s" }]] as const) {
        const result = await call(server, name, args)
        assert.isTrue(result.isError)
        expect(text(result)).toContain(`no precis store at ${missing} yet`)
      }
      expect(server.stderr()).toContain(`precis: no store at ${missing} yet`)
      assert.isFalse(fs.existsSync(missing))
    } finally {
      await server.close()
    }
  }, TIMEOUT)
})
