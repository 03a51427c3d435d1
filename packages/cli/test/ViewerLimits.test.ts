/**
 * The viewer's limits over HTTP, in-process: requests naming another host
 * or holding control characters are refused, refused queries are the user's
 * 400, and every page stays one page whatever the store holds (uncovered
 * turns, a summary's source turns, the top summaries of a tree too large to
 * draw, the sessions, a turn of megabytes).
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Fixtures } from "@precis/testing"
import { Store } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as HtmlTurns from "../src/internal/htmlTurns.js"
import * as Viewer from "../src/internal/viewer.js"
import { tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const db = path.join(dir, "limits.db")

// Past MAX_TREE leaves, each of one turn; then 250 turns no leaf covers, one of them huge.
const LEAVES = Viewer.MAX_TREE + 5
const UNCOVERED = 250
const HUGE = 3 * HtmlTurns.MAX_TURN_CHARS

beforeAll(async () => {
  await Effect.runPromise(Effect.gen(function*() {
    const store = yield* Store.all
    const ids = Array.from({ length: LEAVES + UNCOVERED }, (_, i) => `t${i}`)
    yield* store.appendTurns("big", ids.map((id, i) =>
      Fixtures.turn("user", i === LEAVES + 3 ? `huge ${"x".repeat(HUGE)}` : `turn ${id} about invoices`, { id })))
    yield* store.withTransaction(Effect.forEach(ids.slice(0, LEAVES), (id) => store.insertLeaf(Fixtures.leaf("big", [id], `leaf of ${id}`))))
    // One leaf of 250 turns, under a condensed summary with a second leaf.
    const tall = Array.from({ length: 260 }, (_, i) => `u${i}`)
    yield* store.appendTurns("tall", tall.map((id) => Fixtures.turn("assistant", `tall ${id}`, { id })))
    const leaves = [
      yield* store.insertLeaf(Fixtures.leaf("tall", tall.slice(0, 250), "the long leaf")),
      yield* store.insertLeaf(Fixtures.leaf("tall", tall.slice(250), "the short leaf"))
    ]
    yield* store.insertCondensed({ sessionId: "tall", content: "the top", tier: "normal", tokenEstimate: 2, childIds: leaves.map((l) => l.id) })
    for (let i = 0; i < 449; i++) yield* store.appendTurns(`s${String(i).padStart(3, "0")}`, [Fixtures.turn("user", "hi", { id: "a" })])
    yield* store.indexSearch
  }).pipe(Effect.provide(SqliteStore.layer({ filename: db }))))
}, 120_000)

const withViewer = <A, E>(use: (url: string) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(Viewer.listen({ port: 0, host: "127.0.0.1" }), use)).pipe(
    Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))
  )

/** Sends `request` as it is, bytes on a socket, and returns the status and body of the answer. */
const raw = (url: string, request: string) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(url)
      // Written, not ended: a server may drop a request whose sender has closed its side.
      const socket = net.connect(Number(port), hostname, () => socket.write(request))
      let text = ""
      socket.setEncoding("utf8").on("data", (data: string) => (text += data))
      socket.on("error", reject)
      socket.on("end", () => resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), body: text }))
    })
  )

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: await response.text() }
  })

describe("the viewer's guard", () => {
  it.live("answers only requests naming its own host; a forged or missing Host is refused", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const port = new URL(url).port
        const ask = (host: string | undefined, target = "/") =>
          Effect.map(raw(url, `GET ${target} HTTP/1.1\r\n${host === undefined ? "" : `Host: ${host}\r\n`}Connection: close\r\n\r\n`), (r) => r.status)
        for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
          assert.strictEqual(yield* ask(host), 200, host)
        }
        for (
          const host of [
            `attacker.example:${port}`,
            "attacker.example",
            `127.0.0.1.nip.io:${port}`,
            `localhost.attacker.example:${port}`,
            `localhost:${port}@attacker.example`
          ]
        ) {
          assert.strictEqual(yield* ask(host), 421, host)
          assert.strictEqual(yield* ask(host, "/session/big"), 421, host)
          assert.strictEqual(yield* ask(host, "/search?q=invoices"), 421, host)
        }
        assert.strictEqual(yield* ask(undefined), 400)
        assert.strictEqual(yield* ask("a b"), 400)
        // HTTP/1.0 may leave Host out: still refused.
        assert.strictEqual((yield* raw(url, "GET / HTTP/1.0\r\n\r\n")).status, 400)
        // The page of a refusal says nothing of the store.
        const refused = yield* raw(url, `GET /session/big HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`)
        assert.notInclude(refused.body, "invoices")
      })))

  it.live("refuses control characters and malformed encodings in the address; a NUL never reaches the store", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        for (
          const target of [
            "/search?q=pdf%00x",
            "/search?q=%00",
            "/search?q=pdf&session=%00",
            "/session/%00",
            "/summary/a%00b",
            "/session/big%1b%5b31m",
            "/search?q=%7f",
            "/search?q=%c2%85",
            "/session/%E0%A4%A",
            "/search?q=%ff",
            "/%"
          ]
        ) {
          const answer = yield* get(`${url}${target}`)
          assert.strictEqual(answer.status, 400, target)
          expect(answer.body).toMatch(/<h1>Bad request<\/h1>/)
        }
        // Tab and line breaks are whitespace a search box may hold.
        assert.strictEqual((yield* get(`${url}/search?q=turn%09invoices%0d%0a`)).status, 200)
      })))

  it.live("a refused query is the user's 400 with its reason; a good one finds", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const long = yield* get(`${url}/search?q=${Array.from({ length: 3000 }, () => "pdf").join("+")}`)
        assert.strictEqual(long.status, 400)
        expect(long.body).toContain("<h1>Search refused</h1><p>a search query is at most 1000 characters (got 11999)</p>")
        const many = yield* get(`${url}/search?q=${Array.from({ length: 17 }, (_, i) => `w${i}`).join("+")}`)
        assert.strictEqual(many.status, 400)
        expect(many.body).toContain("a search takes at most 16 different words (got 17)")
        // 100 repeats of one word are one word.
        const repeated = yield* get(`${url}/search?q=${Array.from({ length: 100 }, () => "invoices").join("+")}`)
        assert.strictEqual(repeated.status, 200)
        expect(repeated.body).toContain("<mark>invoices</mark>")
      })))
})

describe("the viewer's pages", () => {
  it.live("a session's uncovered turns come a page at a time, a huge turn cut, the pages linked", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const first = yield* get(`${url}/session/big`)
        assert.strictEqual(first.status, 200)
        expect(first.body).toContain(`${LEAVES + UNCOVERED} turns (${UNCOVERED} not summarized)`)
        assert.strictEqual([...first.body.matchAll(/<article /g)].length, Viewer.TURNS_PER_PAGE)
        expect(first.body).toContain(`… ${HUGE + 5 - HtmlTurns.MAX_TURN_CHARS} more characters not shown`)
        assert.isBelow(first.body.length, 200_000)
        expect(first.body).toContain(`page 1 of 3 · <a href="/session/big?turns=2" rel="next">`)
        const last = yield* get(`${url}/session/big?turns=3`)
        assert.strictEqual([...last.body.matchAll(/<article /g)].length, UNCOVERED - 2 * Viewer.TURNS_PER_PAGE)
        expect(last.body).toContain(`id="turn-t${LEAVES + UNCOVERED - 1}">`)
        assert.notInclude(last.body, "?turns=4")
        // Past the end, or not a page number: an empty page, or the first.
        assert.strictEqual([...(yield* get(`${url}/session/big?turns=99`)).body.matchAll(/<article /g)].length, 0)
        for (const bad of ["0", "-1", "x", "1e3", "99999999999"]) {
          expect((yield* get(`${url}/session/big?turns=${bad}`)).body).toContain("page 1 of 3")
        }
      })))

  it.live("past MAX_TREE summaries, the top ones a page at a time instead of the tree", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const first = yield* get(`${url}/session/big`)
        expect(first.body).toContain("Too many summaries for one tree")
        assert.notInclude(first.body, `<div class="tree">`)
        assert.strictEqual([...first.body.matchAll(/<details class="node"/g)].length, Viewer.ITEMS_PER_PAGE)
        const pages = Math.ceil(LEAVES / Viewer.ITEMS_PER_PAGE)
        const last = yield* get(`${url}/session/big?roots=${pages}`)
        assert.strictEqual([...last.body.matchAll(/<details class="node"/g)].length, LEAVES - (pages - 1) * Viewer.ITEMS_PER_PAGE)
      })))

  it.live("a summary's source turns come a page at a time, a leaf's counted, a condensed summary's paged through", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const session = yield* get(`${url}/session/tall`)
        const hrefs = [...new Set([...session.body.matchAll(/href="(\/summary\/[^"]+)"/g)].map((m) => m[1]!))]
        const pages = yield* Effect.forEach(hrefs, (href) => Effect.map(get(`${url}${href}`), (page) => ({ href, ...page })))
        const leaf = pages.find((p) => p.body.includes("the long leaf</div>"))!
        const top = pages.find((p) => p.body.includes("the top</div>"))!
        expect(leaf.body).toContain("Source turns (250)")
        assert.strictEqual([...leaf.body.matchAll(/<article /g)].length, Viewer.TURNS_PER_PAGE)
        expect(leaf.body).toContain(`page 1 of 3 · <a href="${leaf.href}?turns=2" rel="next">`)
        const third = yield* get(`${url}${leaf.href}?turns=3`)
        assert.strictEqual([...third.body.matchAll(/<article /g)].length, 50)
        expect(third.body).toContain(`id="turn-u249">`)
        // A condensed summary's turns are not counted: each page says whether another follows.
        expect(top.body).toContain("<summary>Source turns</summary>")
        expect(top.body).toContain(`page 1 · <a href="${top.href}?turns=2" rel="next">`)
        const end = yield* get(`${url}${top.href}?turns=3`)
        assert.strictEqual([...end.body.matchAll(/<article /g)].length, 60)
        assert.notInclude(end.body, "rel=\"next\"")
      })))

  it.live("a search hit on a turn deep in a long leaf opens the page of its turns that holds it", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const found = yield* get(`${url}/search?q=u230`)
        const [href] = [...found.body.matchAll(/href="([^"]+#turn-u230)"/g)].map((m) => m[1]!.replaceAll("&#38;", "&"))
        expect(href).toMatch(/^\/summary\/[\w-]+\?q=u230&turns=3#turn-u230$/)
        const page = yield* get(`${url}${href!.split("#")[0]}`)
        expect(page.body).toContain(`id="turn-u230"><div class="meta">#230 · no date · <strong>assistant</strong></div><div class="said">tall <mark>u230</mark></div>`)
      })))

  it.live("the sessions come a page at a time", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const home = yield* get(`${url}/`)
        assert.strictEqual([...home.body.matchAll(/<li><a href="\/session\//g)].length, Viewer.ITEMS_PER_PAGE)
        expect(home.body).toContain("page 1 of 3")
        const last = yield* get(`${url}/?page=3`)
        assert.strictEqual([...last.body.matchAll(/<li><a href="\/session\//g)].length, 451 - 2 * Viewer.ITEMS_PER_PAGE)
      })))
})
