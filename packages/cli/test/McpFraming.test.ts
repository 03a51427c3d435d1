/**
 * `precis mcp` as a real process spoken to in raw lines (what a client that
 * errs, or a corrupted pipe, sends): every line is answered with a JSON-RPC
 * result or error (parse error, invalid request, invalid params, unknown
 * method), a notification never, and the next line is still read; nothing
 * reaches stderr. A store created after the server started is found by the
 * next call; a store that cannot be opened keeps the server up, each call
 * answering why.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { repoRoot, run, tempDir } from "./utils/run.js"

const bin = path.join(repoRoot, "packages", "cli", "bin", "precis.js")
const example = path.join(repoRoot, "examples", "coding-session.jsonl")
const dir = tempDir()
const db = path.join(dir, "store.db")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

beforeAll(async () => {
  const imported = await run(["import", example, "--db", db, "--session", "demo"])
  assert.strictEqual(imported.code, 0, imported.stderr)
}, 120_000)

const TIMEOUT = 120_000

interface Answer {
  readonly id: unknown
  readonly result?: Record<string, unknown> & { isError?: boolean; content?: Array<{ text: string }> }
  readonly error?: { readonly code: number; readonly message: string }
}

/** `precis mcp --db store` over pipes: lines written raw, answers read one line at a time. */
class Server {
  readonly child: ChildProcessWithoutNullStreams
  private readonly lines: Array<string> = []
  private waiting: ((line: string) => void) | undefined
  private buffered = ""
  stderr = ""
  constructor(store: string) {
    this.child = spawn(process.execPath, [bin, "mcp", "--db", store], { cwd: dir })
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffered += chunk
      for (let at = this.buffered.indexOf("\n"); at !== -1; at = this.buffered.indexOf("\n")) {
        const line = this.buffered.slice(0, at)
        this.buffered = this.buffered.slice(at + 1)
        // The server's own notifications (`notifications/tools/list_changed`, sent whenever the tools
        // are registered, before or after a call) answer nothing: left out.
        if (/^\{"jsonrpc":"2\.0","method":"notifications\//.test(line)) continue
        const waiting = this.waiting
        this.waiting = undefined
        if (waiting === undefined) this.lines.push(line)
        else waiting(line)
      }
    })
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk
    })
  }
  write(text: string): void {
    this.child.stdin.write(text)
  }
  next(): Promise<Answer> {
    const line = this.lines.shift()
    if (line !== undefined) return Promise.resolve(JSON.parse(line) as Answer)
    return new Promise((resolve) => {
      this.waiting = (text) => resolve(JSON.parse(text) as Answer)
    })
  }
  /** Sends `line` and returns the answer. */
  async ask(line: string): Promise<Answer> {
    this.write(`${line}\n`)
    return this.next()
  }
  /** A ping answered: the server still reads. */
  async alive(id: number): Promise<void> {
    assert.deepStrictEqual(await this.ask(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })), {
      jsonrpc: "2.0",
      id,
      result: {}
    } as never)
  }
  /** Closes stdin; the exit code once the server is done. */
  close(): Promise<number | null> {
    return new Promise((resolve) => {
      this.child.on("exit", (code) => resolve(code))
      this.child.stdin.end()
    })
  }
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
})

const callTool = (id: number | string, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })

describe("precis mcp over raw lines", () => {
  it("answers every bad line with a JSON-RPC error and reads the next; a notification gets no answer", async () => {
    const server = new Server(db)
    try {
      const init = await server.ask(initialize)
      expect(String(init.result?.instructions)).toContain("describe")
      server.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)
      const cases: ReadonlyArray<readonly [string, number, unknown]> = [
        ["", -32700, null],
        ["   \r", -32700, null],
        ["not json", -32700, null],
        ["{\"jsonrpc\":\"2.0\",\"id\":1,", -32700, null],
        ["[1,2]", -32600, null],
        ["[]", -32600, null],
        ["42", -32600, null],
        ["\"ping\"", -32600, null],
        ["null", -32600, null],
        ["{}", -32600, null],
        [JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }), -32600, null],
        [JSON.stringify({ jsonrpc: "2.0", id: [1], method: "ping" }), -32600, null],
        [JSON.stringify({ jsonrpc: "2.0", id: true, method: "ping" }), -32600, null],
        [JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "ping" }), -32600, null],
        [JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" }), -32600, null],
        [JSON.stringify({ jsonrpc: "1.0", id: 7, method: "ping" }), -32600, 7],
        [JSON.stringify({ jsonrpc: "2.0", id: 8, method: 3 }), -32600, 8],
        [JSON.stringify({ jsonrpc: "2.0", id: 9, method: "frobnicate" }), -32601, 9],
        [JSON.stringify({ jsonrpc: "2.0", id: "m", method: "tools/frob", params: {} }), -32601, "m"],
        [JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tools/call", params: [1] }), -32602, 10],
        [JSON.stringify({ jsonrpc: "2.0", id: 11, method: "tools/call", params: "x" }), -32602, 11],
        [JSON.stringify({ jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: 3, arguments: {} } }), -32602, 12]
      ]
      for (const [line, code, id] of cases) {
        const answer = await server.ask(line)
        assert.strictEqual(answer.error?.code, code, line)
        assert.deepStrictEqual(answer.id, id, line)
        expect(answer.error?.message, line).not.toMatch(/\n|readonly|└─/)
        await server.alive(100)
      }
      // Notifications, known or not, well formed or not, are never answered: the next answer is the ping's.
      for (
        const line of [
          { jsonrpc: "2.0", method: "notifications/frob" },
          { jsonrpc: "2.0", method: "notifications/initialized", params: [1] },
          { jsonrpc: "2.0", method: "@effect/rpc/Eof" },
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 404 } },
          { jsonrpc: "2.0", id: 5, result: {} }
        ]
      ) {
        server.write(`${JSON.stringify(line)}\n`)
        await server.alive(101)
      }
      // A line over 16 MiB is dropped as it comes, answered, and the line after it read.
      const huge = await server.ask(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${"x".repeat(17 * 1024 * 1024)}"}}`)
      assert.deepStrictEqual([huge.id, huge.error?.code], [null, -32700])
      expect(huge.error?.message).toContain("longer than the 16777216 bytes")
      await server.alive(102)
      // String ids and id 0 come back as sent.
      assert.strictEqual((await server.ask(JSON.stringify({ jsonrpc: "2.0", id: "a-b", method: "ping" }))).id, "a-b")
      assert.strictEqual((await server.ask(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }))).id, 0)
      const listed = await server.ask(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }))
      const tools = listed.result?.tools as Array<{ name: string; annotations: Record<string, boolean> }>
      assert.strictEqual(tools.length, 6)
      for (const tool of tools) {
        assert.deepStrictEqual([tool.annotations.readOnlyHint, tool.annotations.openWorldHint], [true, false], tool.name)
      }
      // Arguments out of bounds: one sentence naming the field, the bound and the value.
      const bad = await server.ask(callTool("s", "search", { query: "x", limit: 500 }))
      assert.deepStrictEqual([bad.result?.isError, bad.result?.content?.[0]?.text], [
        true,
        "invalid arguments: \"limit\" must be at most 50 (got 500)"
      ])
      assert.strictEqual(await server.close(), 0)
      assert.strictEqual(server.stderr, "")
    } finally {
      server.child.kill()
    }
  }, TIMEOUT)

  it("a store created after the server started is found by the next call", async () => {
    const late = path.join(dir, "late.db")
    const server = new Server(late)
    try {
      await server.ask(initialize)
      const before = await server.ask(callTool(1, "describe", { session: "demo" }))
      assert.isTrue(before.result?.isError)
      expect(before.result?.content?.[0]?.text).toContain(`no precis store at ${late} yet`)
      fs.copyFileSync(db, late)
      const after = await server.ask(callTool(2, "describe", { session: "demo" }))
      assert.isNotTrue(after.result?.isError, JSON.stringify(after))
      assert.strictEqual((after.result?.structuredContent as { turns: number }).turns, 245)
      assert.strictEqual(await server.close(), 0)
    } finally {
      server.child.kill()
    }
  }, TIMEOUT)

  it("a store that does not open: the server stays up and each call says why", async () => {
    const empty = path.join(dir, "empty.db")
    fs.writeFileSync(empty, "")
    const text = path.join(dir, "text.db")
    fs.writeFileSync(text, "not a database at all, but long enough to be read as a header by SQLite\n".repeat(4))
    const folder = path.join(dir, "folder.db")
    fs.mkdirSync(folder)
    const cases: ReadonlyArray<readonly [string, RegExp]> = [
      [empty, /not a precis store \(it is empty\)/],
      [text, /not a database/],
      [folder, /not a regular file|directory/],
      ["postgres://precis:s3cret@127.0.0.1:1/precis", /127\.0\.0\.1:1.*ECONNREFUSED/]
    ]
    for (const [store, reason] of cases) {
      const server = new Server(store)
      try {
        await server.ask(initialize)
        for (const id of [1, 2]) {
          const answer = await server.ask(callTool(id, "search", { query: "x" }))
          assert.isTrue(answer.result?.isError, store)
          const said = answer.result?.content?.[0]?.text ?? ""
          expect(said, store).toMatch(reason)
          expect(said).not.toContain("s3cret")
        }
        await server.alive(3)
        assert.strictEqual(await server.close(), 0, store)
        expect(server.stderr).not.toMatch(/\bat .*\(|s3cret/)
      } finally {
        server.child.kill()
      }
    }
  }, TIMEOUT)
})
