/**
 * `precis serve`'s viewer over plain HTTP: every route, 404s, escaping of
 * what the store holds, and the command's own checks.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as Html from "../src/internal/html.js"
import * as HtmlSearch from "../src/internal/htmlSearch.js"
import * as Viewer from "../src/internal/viewer.js"
import { assertOneLineFailure, claudeCodeJsonl, runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const db = path.join(dir, "viewer.db")

const hostile = "<script>alert(1)</script> & \"quotes\" 'single' <img src=x onerror=alert(2)>"

beforeAll(async () => {
  const turns = sessionJsonl(30, "t").trimEnd().split("\n")
  turns[2] = JSON.stringify({ id: "evil<id>", role: "user", content: `hostile turn ${hostile}`, timestamp: "2025-01-01T00:02:00.000Z" })
  turns.push(JSON.stringify({ id: "tail", role: "user", content: `fresh tail ${hostile}`, timestamp: "2025-01-01T01:00:00.000Z" }))
  // A call as the Claude Code importer stores it (its JSON in the text too), and its answer.
  const call = { id: "c1", name: "Bash", arguments: JSON.stringify({ command: "pnpm test --filter viewer", description: "Run <the> tests" }) }
  turns.push(JSON.stringify({
    id: "call",
    role: "assistant",
    content: `Running the tests.\n[tool_call Bash] ${call.arguments}`,
    timestamp: "2025-01-01T01:01:00.000Z",
    metadata: { toolCalls: [call] }
  }))
  turns.push(JSON.stringify({
    id: "answer",
    role: "tool",
    content: `Exit code 1\n${"noise line\n".repeat(40)}Error: <b>boom</b> in viewer.test.ts`,
    timestamp: "2025-01-01T01:02:00.000Z",
    metadata: { toolCallId: "c1", toolName: "Bash" }
  }))
  const file = write(dir, "s<1>.jsonl", `${turns.join("\n")}\n`)
  const flags = ["--leaf-chunk-tokens", "150", "--fresh-tail", "4", "--min-fan-in", "2", "--max-fan-in", "3", "--json"]
  const result = await Effect.runPromise(runCli(["compact", file, "--db", db, ...flags]))
  assert.strictEqual(result.code, 0, result.stderr)
})

/** Runs `use` with the viewer of `store` (default: the one of `beforeAll`) listening on a free loopback port. */
const withViewer = <A, E>(use: (url: string) => Effect.Effect<A, E>, store = db) =>
  Effect.scoped(Effect.flatMap(Viewer.listen({ port: 0, host: "127.0.0.1" }), use)).pipe(
    Effect.provide(SqliteStore.layer({ filename: store, readonly: true }))
  )

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, type: response.headers.get("content-type"), csp: response.headers.get("content-security-policy"), body: await response.text() }
  })

/** The hrefs of a page's links matching `pattern`. */
const links = (body: string, pattern: RegExp) =>
  [...body.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll("&#38;", "&")).filter((href) => pattern.test(href))

describe("the viewer over HTTP", () => {
  it.live("/ names the sessions by their first request with their dates; /session/:id its state, a tree read in place", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const home = yield* get(`${url}/`)
        assert.strictEqual(home.status, 200)
        assert.strictEqual(home.type, "text/html; charset=utf-8")
        expect(home.csp).toMatch(/script-src 'nonce-[^']+'/)
        expect(home.body).toContain(`<a href="/session/s%3C1%3E">Step 0: edited src/module0.ts and ran \`pnpm test --filter pkg0\`; `)
        // The first and last turns' times, not the import's; the id after them.
        expect(home.body).toMatch(/2025-01-01 00:00 → 01:02 · 33 turns · \d+ summaries · s&#60;1&#62;<\/span>/)

        const session = yield* get(`${url}/session/${encodeURIComponent("s<1>")}`)
        assert.strictEqual(session.status, 200)
        expect(session.body).toContain("<h1>Session s&#60;1&#62;</h1>")
        expect(session.body).toContain("2025-01-01 00:00 → 01:02 · 33 turns")
        // The session-state header, shown without a click, escaped.
        expect(session.body).toContain(
          `<details class="state" open><summary>Session state</summary><pre>Session state (from turns t0 … answer, 33 turns):\nTask:\n- first request: Step 0: `
        )
        expect(session.body).toMatch(/<pre>Session state [^]*- latest request: fresh tail &#60;script&#62;alert\(1\)/)
        // The top summaries open, the others closed, each with its headline and its whole text.
        expect(session.body).toMatch(/<details class="node" data-id="[\w-]+" open><summary><span class="head">[^<]+<\/span> <span class="meta">2025-01-01 00:\d\d → 00:\d\d · depth [1-9] · /)
        expect(session.body).toMatch(/<details class="node" data-id="[\w-]+"><summary><span class="head">[^<]*<\/span> <span class="meta">[^<]* · depth 0 · /)
        const nodes = [...session.body.matchAll(/<details class="node"/g)].length
        assert.isAbove(nodes, 3)
        assert.strictEqual([...session.body.matchAll(/<div class="text">/g)].length, nodes)
        expect(session.body).toContain(`<div class="text">[2025-01-01T00:04] user: Step 4: edited src/module4.ts and ran`)
        expect(session.body).toContain("4 turns not summarized yet")
        expect(session.body).toContain(`fresh tail ${Html.escape(hostile)}`)
        expect(session.body).toContain(`<form class="context" action="/session/s%3C1%3E/context" method="get">`)
        assert.notInclude(session.body, "<script>alert(1)")
        assert.notInclude(session.body, "<img src=x")
        // The nonce of the CSP is the nonce of the page's only script.
        const nonce = /'nonce-([^']+)'/.exec(session.csp!)![1]!
        assert.deepStrictEqual([...session.body.matchAll(/<script[^>]*>/g)].map((m) => m[0]), [`<script nonce="${nonce}">`])
      })))

  it.live("a turn's tool call reads as the material's action line, its output as the short form, the stored text a click away", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const session = yield* get(`${url}/session/${encodeURIComponent("s<1>")}`)
        const article = (id: string) => new RegExp(`<article class="[^"]*" id="turn-${id}">(.*?)</article>`, "s").exec(session.body)?.[1] ?? ""
        const call = article("call")
        expect(call).toContain(`<div class="said">Running the tests.</div>`)
        expect(call).toContain(`<div class="said actions">$ pnpm test --filter viewer  # Run &#60;the&#62; tests</div>`)
        // The JSON only in the stored text, closed.
        expect(call).toMatch(/<details class="raw"><summary>as stored \(\d+ characters\)<\/summary><pre>Running the tests.\n\[tool_call Bash\] \{&#34;command&#34;/)
        assert.notInclude(call.split("<details")[0], "{&#34;command")
        const answer = article("answer")
        expect(answer).toContain(`<div class="said">exit 1`)
        expect(answer).toContain("Error: &#60;b&#62;boom&#60;/b&#62; in viewer.test.ts")
        assert.isBelow(answer.split("<details")[0]!.split("noise line").length - 1, 40)
        expect(session.body).toContain(`<article class="turn tool" id="turn-answer">`)
      })))

  it.live("/summary/:id shows the text, the children and the source turns, escaped", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const session = yield* get(`${url}/session/${encodeURIComponent("s<1>")}`)
        const summaries = [...new Set(links(session.body, /^\/summary\//))]
        assert.isAbove(summaries.length, 2)
        const pages = yield* Effect.forEach(summaries, (href) => get(`${url}${href}`))
        assert.isTrue(pages.every((p) => p.status === 200))
        const condensed = pages.find((p) => p.body.includes("<h2>Children</h2>"))!
        expect(condensed.body).toMatch(/<ul class="children"><li><a href="\/summary\/[\w-]+">/)
        const hostileLeaf = pages.find((p) => p.body.includes("hostile turn") && /<p class="meta">[^<]+ · depth 0 · /.test(p.body))!
        expect(hostileLeaf.body).toContain(`<div class="text content">`)
        expect(hostileLeaf.body).toContain(`<details class="turns" open><summary>Source turns (`)
        expect(hostileLeaf.body).toContain(`<article class="turn" id="turn-evil%3Cid%3E"><div class="meta">#2 · 2025-01-01 00:02 · <strong>user</strong></div>`)
        expect(hostileLeaf.body).toContain(`hostile turn ${Html.escape(hostile)}`)
        for (const page of pages) {
          assert.notInclude(page.body, "<script>alert(1)")
          assert.notInclude(page.body, "evil<id>")
        }
        expect(hostileLeaf.body).toMatch(/<a href="\/session\/s%3C1%3E">session s&#60;1&#62;<\/a> · <a href="\/summary\/[\w-]+">the summary above it<\/a>/)
      })))

  it.live("/search labels hits by role and time; a hit opens its page on the turn, the query carried and marked", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const found = yield* get(`${url}/search?q=${encodeURIComponent("hostile")}`)
        assert.strictEqual(found.status, 200)
        expect(found.body).toContain("<h1>Search: hostile</h1>")
        expect(found.body).toContain("<mark>hostile</mark> turn &#60;script&#62;alert(1)&#60;/script&#62;")
        const [turnLink] = links(found.body, /#turn-evil%3Cid%3E$/)
        expect(turnLink).toMatch(/^\/summary\/[\w-]+\?q=hostile#turn-evil%3Cid%3E$/)
        expect(found.body).toContain(`">user · 2025-01-01 00:02</a> <span class="meta">s&#60;1&#62; · turn #2</span>`)
        const leaf = yield* get(`${url}${turnLink!.split("#")[0]}`)
        expect(leaf.body).toContain(`<mark>hostile</mark> turn ${Html.escape(hostile)}`)
        expect(leaf.body).toContain(`value="hostile" aria-label="search"`)
        // An uncovered turn opens its session's page, the tail open and marked; the session filter is kept.
        const tail = yield* get(`${url}/search?q=fresh&session=${encodeURIComponent("s<1>")}`)
        assert.deepStrictEqual(links(tail.body, /#turn-tail$/), ["/session/s%3C1%3E?q=fresh#turn-tail"])
        expect(tail.body).toContain(`<input type="hidden" name="session" value="s&#60;1&#62;">`)
        const opened = yield* get(`${url}/session/s%3C1%3E?q=fresh`)
        expect(opened.body).toContain(`<details class="uncovered" open>`)
        expect(opened.body).toContain(`<mark>fresh</mark> tail ${Html.escape(hostile)}`)
        // A summary hit is labelled by its time range.
        const step = yield* get(`${url}/search?q=retry`)
        expect(step.body).toMatch(/">summary · 2025-01-01 00:\d\d → 00:\d\d<\/a> <span class="meta">s&#60;1&#62; · depth \d<\/span>/)
        const odd = yield* get(`${url}/search?q=${encodeURIComponent("\"NEAR( -* <b>")}`)
        assert.strictEqual(odd.status, 200)
        expect(odd.body).toContain("No match.")
        expect(odd.body).toContain("<h1>Search: &#34;NEAR( -* &#60;b&#62;</h1>")
        expect((yield* get(`${url}/search`)).body).toContain("Type words to find")
      })))

  it.live("/ shows each session's folder, first request and time span; the session page its folder", () =>
    Effect.gen(function*() {
      const store = path.join(dir, "projects.db")
      for (const [session, cwd, minute] of [["p1", "/w/app", 0], ["p2", "/w/lib", 90]] as const) {
        const file = write(dir, `${session}.jsonl`, claudeCodeJsonl(session, cwd, minute))
        assert.strictEqual((yield* runCli(["import", file, "--db", store, "--session", session])).code, 0)
      }
      yield* withViewer((url) =>
        Effect.gen(function*() {
          const home = (yield* get(`${url}/`)).body
          expect(home).toContain(
            `<li><a href="/session/p1">p1 says 0</a> <span class="meta">/w/app · 2025-01-01 00:00 → 00:01 · 2 turns · 0 summaries · p1</span></li>`
          )
          expect(home).toContain(`<a href="/session/p2">p2 says 0</a> <span class="meta">/w/lib · 2025-01-01 01:30 → 01:31 · 2 turns`)
          const session = (yield* get(`${url}/session/p2`)).body
          expect(session).toContain(`<p class="meta">/w/lib · 2025-01-01 01:30 → 01:31 · 2 turns (2 not summarized) · 0 summaries</p>`)
          expect(session).toContain(`<pre>Session state (from turns p2-0 … p2-1, 2 turns):`)
        }), store)
    }))

  it("a search snippet reads the escapes of JSON text (a tool call's arguments) as text", () => {
    const snippet = `[tool_call Bash] {"command":"git commit -m \\"«fix» it\\"\\ngit push","path":"C:\\\\tmp"}`
    assert.strictEqual(
      HtmlSearch.snippetHtml(snippet),
      `[tool_call Bash] {&#34;command&#34;:&#34;git commit -m &#34;<mark>fix</mark> it&#34;\ngit push&#34;,&#34;path&#34;:&#34;C:\\tmp&#34;}`
    )
  })

  it.live("/session/:id/context shows what `precis context --budget N` prints; a bad budget is a 400 page", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const cli = yield* runCli(["context", "--db", db, "--session", "s<1>", "--budget", "3000"])
        assert.strictEqual(cli.code, 0, cli.stderr)
        const page = yield* get(`${url}/session/${encodeURIComponent("s<1>")}/context?budget=3000`)
        assert.strictEqual(page.status, 200)
        expect(page.body).toContain("<h1>Context in 3000 tokens</h1>")
        expect(page.body).toContain(`<pre class="context">${Html.escape(cli.stdout.trimEnd())}</pre>`)
        for (const line of cli.stderr.trim().split("\n")) {
          expect(page.body).toContain(`<li>${Html.escape(line.replace(/^precis: /, ""))}</li>`)
        }
        assert.notInclude(page.body, "<script>alert(1)")
        expect((yield* get(`${url}/session/${encodeURIComponent("s<1>")}/context`)).body).toContain("<h1>Context in 8000 tokens</h1>")
        for (const bad of ["0", "-1", "abc", "1e3", "200001", "99999999999"]) {
          const refused = yield* get(`${url}/session/${encodeURIComponent("s<1>")}/context?budget=${bad}`)
          assert.strictEqual(refused.status, 400, bad)
          expect(refused.body).toContain(`A budget is a whole number of tokens from 1 to 200000 (got &#34;${bad}&#34;).`)
        }
        assert.strictEqual((yield* get(`${url}/session/nope/context?budget=10`)).status, 404)
      })))

  it.live("unknown sessions, summaries and routes are 404 pages; other methods are refused", () =>
    withViewer((url) =>
      Effect.gen(function*() {
        const session = yield* get(`${url}/session/${encodeURIComponent("<nope>")}`)
        assert.strictEqual(session.status, 404)
        expect(session.body).toContain("No session &#34;&#60;nope&#62;&#34; in this store.")
        const summary = yield* get(`${url}/summary/nope`)
        assert.strictEqual(summary.status, 404)
        expect(summary.body).toContain("No summary &#34;nope&#34;")
        const route = yield* get(`${url}/nowhere/<x>`)
        assert.strictEqual(route.status, 404)
        assert.notInclude(route.body, "<x>")
        const post = yield* Effect.promise(() => fetch(`${url}/`, { method: "POST" }))
        assert.strictEqual(post.status, 404)
      })))
})

describe("precis serve", () => {
  it.live("needs an existing store, and a free port", () =>
    Effect.gen(function*() {
      const missing = path.join(dir, "missing.db")
      assertOneLineFailure(yield* runCli(["serve", "--db", missing]), /no such store/)
      assert.isFalse(fs.existsSync(missing))
      yield* withViewer((url) =>
        Effect.gen(function*() {
          const port = new URL(url).port
          assertOneLineFailure(
            yield* runCli(["serve", "--db", db, "--port", port]),
            new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`)
          )
        }))
    }))

  it.live("a port out of range, or no port, is one line naming --port, before anything listens", () =>
    Effect.gen(function*() {
      for (const port of ["70000", "99999", "65536", "-1", "1.5", "abc", "0x50", ""]) {
        const result = yield* runCli(["serve", "--db", db, "--port", port])
        assert.strictEqual(result.code, 1, port)
        expect(result.stderr).toMatch(/^precis: --port must be an integer in \[0, 65535\]/)
        expect(result.stderr).not.toMatch(/\n\s+at |unexpected error/)
      }
    }))

  it.live("an empty --host is refused; another machine's view needs --allow-remote", () =>
    Effect.gen(function*() {
      for (const host of ["", " "]) {
        assertOneLineFailure(
          yield* runCli(["serve", "--db", db, "--host", host]),
          /--host must name an address \(an empty one would serve every interface\)/
        )
      }
      for (const host of ["0.0.0.0", "::", "0", "192.0.2.7"]) {
        assertOneLineFailure(yield* runCli(["serve", "--db", db, "--host", host]), /give --allow-remote to mean it$/)
      }
      assertOneLineFailure(
        yield* runCli(["serve", "--db", db, "--host", "192.0.2.7", "--allow-remote", "--port", "0"]),
        /^precis: cannot listen on 192\.0\.2\.7:0: /
      )
    }))
})

describe("Html.marker", () => {
  it("escapes everything and marks whole words, any case, and a prefix term's words", () => {
    const mark = Html.marker([{ text: "pdf", prefix: false }, { text: "inv", prefix: true }, { text: "a.b", prefix: false }])
    expect(mark("<b>PDF</b> pdfs invoice's a.b ab")).toBe(
      "&#60;b&#62;<mark>PDF</mark>&#60;/b&#62; pdfs <mark>invoice</mark>&#39;s <mark>a.b</mark> ab"
    )
    expect(Html.marker([])("<i>")).toBe("&#60;i&#62;")
    expect(Html.marker([{ text: "(x)*", prefix: false }])("(x)* x")).toBe("(<mark>x</mark>)* <mark>x</mark>")
  })
})
