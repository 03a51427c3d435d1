/**
 * `precis serve` as a real process, asked with raw HTTP: forged `Host`
 * headers (DNS rebinding) are refused on every route, another machine's view
 * needs --allow-remote and says so, a search and an assembled context are
 * answered (in the server's process: see ViewerInProcess.test.ts), and Ctrl-C
 * stops it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as Html from "../src/internal/html.js"
import { runCli, sessionJsonl, tempDir, write } from "./utils/run.js"
import { type Running, start } from "./utils/spawn.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const db = path.join(dir, "serve.db")
const TIMEOUT = 90_000

beforeAll(async () => {
  const result = await Effect.runPromise(runCli(["import", write(dir, "s.jsonl", sessionJsonl(3000)), "--db", db]))
  assert.strictEqual(result.code, 0, result.stderr)
}, TIMEOUT)

/** Starts `precis serve` on a free port and returns it with its port, once it listens. */
const serve = async (extra: ReadonlyArray<string> = []): Promise<{ precis: Running; port: number }> => {
  const precis = start(["serve", "--db", db, "--port", "0", ...extra], { cwd: dir })
  const [, port] = await precis.waitFor("stdout", /viewing .* at http:\/\/[^/]+:(\d+)\//)
  return { precis, port: Number(port) }
}

/** The status of `GET target` sent as raw bytes with `host` (none when undefined). */
const ask = (port: number, target: string, host: string | undefined) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    // Written, not ended: a server may drop a request whose sender has closed its side.
    const socket = net.connect(port, "127.0.0.1", () =>
      socket.write(`GET ${target} HTTP/1.1\r\n${host === undefined ? "" : `Host: ${host}\r\n`}Connection: close\r\n\r\n`))
    let text = ""
    socket.setEncoding("utf8").on("data", (data: string) => (text += data))
    socket.on("error", reject)
    socket.on("end", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text }))
  })

/** Asks `first`, then `second` at once: their answers. */
const both = (port: number, host: string, first: string, second: string) =>
  Promise.all([ask(port, first, host), ask(port, second, host)])

const stop = async (precis: Running) => {
  precis.child.kill("SIGINT")
  assert.strictEqual(await precis.exited, 130, precis.stderr())
}

describe("precis serve, a real process", () => {
  it("refuses forged and missing Host headers on every route, answers its own names, stops on Ctrl-C", async () => {
    const { port, precis } = await serve()
    try {
      for (const target of ["/", "/session/s", "/session/s/context?budget=100", "/search?q=module7", "/summary/x", "/nowhere"]) {
        for (const host of ["attacker.example", `attacker.example:${port}`, `127.0.0.1.nip.io:${port}`, `localhost.attacker.example:${port}`]) {
          const answer = await ask(port, target, host)
          assert.strictEqual(answer.status, 421, `${host} ${target}`)
          assert.notInclude(answer.body, "module7")
        }
        assert.strictEqual((await ask(port, target, undefined)).status, 400, target)
      }
      // An absolute address in the request line does not change whose name it is.
      assert.strictEqual((await ask(port, `http://127.0.0.1:${port}/`, "attacker.example")).status, 421)
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) assert.strictEqual((await ask(port, "/", host)).status, 200)
      assert.strictEqual((await ask(port, "/search?q=pdf%00x", `localhost:${port}`)).status, 400)
    } finally {
      await stop(precis)
    }
  }, TIMEOUT)

  it("searches: a page asked with a search is answered too, and the search finds", async () => {
    const { port, precis } = await serve()
    try {
      const host = `127.0.0.1:${port}`
      const [found, home] = await both(port, host, "/search?q=module2999+pkg2999", "/")
      assert.strictEqual(home.status, 200)
      assert.strictEqual(found.status, 200)
      assert.include(found.body, "<mark>module2999</mark>")
      // A refused query is refused by the server itself, as a 400 with its reason.
      const many = await ask(port, `/search?q=${Array.from({ length: 20 }, (_, i) => `w${i}`).join("+")}`, host)
      assert.strictEqual(many.status, 400)
      assert.include(many.body, "at most 16 different words")
    } finally {
      await stop(precis)
    }
  }, TIMEOUT)

  it("assembles a context: what `precis context --budget N` prints, a page asked with it answered too", async () => {
    const cli = await Effect.runPromise(runCli(["context", "--db", db, "--session", "s", "--budget", "2000"]))
    assert.strictEqual(cli.code, 0, cli.stderr)
    const { port, precis } = await serve()
    try {
      const host = `127.0.0.1:${port}`
      const [assembled, home] = await both(port, host, "/session/s/context?budget=2000", "/")
      assert.strictEqual(home.status, 200)
      assert.strictEqual(assembled.status, 200)
      assert.include(assembled.body, `<pre class="context">${Html.escape(cli.stdout.trimEnd())}</pre>`)
      for (const line of cli.stderr.trim().split("\n")) {
        assert.include(assembled.body, `<li>${Html.escape(line.replace(/^precis: /, ""))}</li>`)
      }
      assert.strictEqual((await ask(port, "/session/s/context?budget=0", host)).status, 400)
    } finally {
      await stop(precis)
    }
  }, TIMEOUT)

  it("--host 0.0.0.0 needs --allow-remote; with it, a warning, and still only its own names", async () => {
    const refused = start(["serve", "--db", db, "--port", "0", "--host", "0.0.0.0"], { cwd: dir })
    assert.strictEqual(await refused.exited, 1)
    assert.match(refused.stderr(), /^precis: --host 0\.0\.0\.0 serves every network interface, .*--allow-remote/)
    const { port, precis } = await serve(["--host", "0.0.0.0", "--allow-remote"])
    try {
      assert.match(precis.stderr(), /^precis: warning: serving every network interface: anyone who can reach this machine/m)
      assert.strictEqual((await ask(port, "/", `127.0.0.1:${port}`)).status, 200)
      assert.strictEqual((await ask(port, "/", `attacker.example:${port}`)).status, 421)
    } finally {
      await stop(precis)
    }
  }, TIMEOUT)
})
