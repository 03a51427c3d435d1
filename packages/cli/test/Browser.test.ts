/**
 * The viewer in a real headless browser (Debian's chromium, driven by
 * playwright-core): open the example session, read a summary in place,
 * expand a node, follow a drill-down link to turns that read as action
 * lines, run a search and open a hit with its matches marked, and check that
 * no script from the store runs. Then every page at 1280×800 and at 390×844
 * (a phone): nothing wider than the window, the search button inside it, and
 * a full-page screenshot exactly the window's width.
 * Skipped only when chromium is missing outside CI; in CI it must run.
 * With PRECIS_VIEWER_SCREENSHOTS=DIR it keeps a screenshot of every page at
 * both widths there (`scripts/viewer-screenshots.sh` makes docs/viewer.png so).
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { chromium } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import * as Viewer from "../src/internal/viewer.js"
import { repoRoot, runCli, tempDir, write } from "./utils/run.js"

const executablePath = "/usr/bin/chromium"
const available = fs.existsSync(executablePath)
const skip = !available && process.env["CI"] === undefined

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const db = path.join(dir, "browser.db")

beforeAll(async () => {
  if (skip) return
  const example = path.join(repoRoot, "examples", "coding-session.jsonl")
  const hostile = write(dir, "hostile.jsonl", [
    JSON.stringify({ role: "user", content: "<script>alert(1)</script><img src=x onerror=alert(2)>" }),
    JSON.stringify({ role: "assistant", content: "<b onmouseover=alert(3)>bold</b>" })
  ].join("\n") + "\n")
  for (const file of [example, hostile]) {
    // Leaves of 2000 tokens, as `pnpm demo` makes them: a DAG with condensed nodes to expand.
    const result = await Effect.runPromise(runCli(["compact", file, "--db", db, "--json", "--leaf-chunk-tokens", "2000"]))
    assert.strictEqual(result.code, 0, result.stderr)
  }
})

const launch = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
  ),
  (browser) => Effect.promise(() => browser.close())
)

/** The width of a PNG, from its header. */
const pngWidth = (png: Buffer): number => png.readUInt32BE(16)

/** Where screenshots are kept: PRECIS_VIEWER_SCREENSHOTS, else a folder removed after the tests. */
const shots = (() => {
  const asked = process.env["PRECIS_VIEWER_SCREENSHOTS"]
  if (asked !== undefined && asked.length > 0) return fs.mkdirSync(asked, { recursive: true }) ?? asked
  return fs.mkdirSync(path.join(dir, "shots"), { recursive: true }) ?? path.join(dir, "shots")
})()

describe.skipIf(skip)("the viewer in chromium", () => {
  it.live("read a summary in place, expand a node, drill down to a leaf's turns, search and open a hit; no stored script ever runs", () =>
    Effect.gen(function*() {
      const url = yield* Viewer.listen({ port: 0, host: "127.0.0.1" })
      const browser = yield* launch
      yield* Effect.promise(async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
        const dialogs: Array<string> = []
        page.on("dialog", (dialog) => {
          dialogs.push(dialog.message())
          void dialog.dismiss()
        })
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))

        await page.goto(`${url}/`)
        // Each session named by its first request (the store's text, shown as text), its id after its dates.
        const names = await page.locator("ul.sessions li a").allTextContents()
        expect(names[0]).toMatch(/^Hi! Two things on ledgerline-api today: 1\. Bug: /)
        assert.strictEqual(names[1], "<script>alert(1)</script><img src=x onerror=alert(2)>")
        // The session's own dates, from its turns.
        expect(await page.locator("ul.sessions li .meta").first().textContent()).toMatch(/^2025-03-14 09:02 → 12:04 · 245 turns/)
        expect(await page.locator("ul.sessions li .meta").first().textContent()).toMatch(/ · coding-session$/)
        await page.locator("ul.sessions li a").first().click()
        await page.waitForURL(/\/session\/coding-session$/)
        expect(await page.locator("h1").textContent()).toBe("Session coding-session")
        // The session-state header reads without a click.
        assert.isTrue(await page.locator("details.state > pre").isVisible())
        expect(await page.locator("details.state > pre").textContent()).toMatch(/^Session state \(from turns /)

        // A top summary reads in place: open, its text shown; its children closed, their text hidden.
        const root = page.locator(".tree > details.node").first()
        assert.isNotNull(await root.getAttribute("open"))
        expect(await root.locator(":scope > .text").textContent()).toMatch(/^\[2025-03-14T09:02\] user: Hi! Two things on ledgerline-api today:/)
        assert.isTrue(await root.locator(":scope > .text").isVisible())
        const child = root.locator(":scope > details.node").first()
        assert.isNull(await child.getAttribute("open"))
        assert.isFalse(await child.locator(":scope > .text").isVisible())
        await child.locator(":scope > summary").click()
        assert.isTrue(await child.locator(":scope > .text").isVisible())

        // The inline script (allowed by its nonce) expands every node.
        await page.getByRole("button", { name: "Expand all" }).click()
        assert.isAbove(await page.locator("details.node").count(), 1)
        assert.strictEqual(await page.locator("details.node:not([open])").count(), 0)

        // Drill down: a leaf's page shows its text and its source turns, tool calls as action lines.
        const leafLink = page.locator(".tree details.node:not(:has(details.node)) > p.meta a").first()
        const leafHref = await leafLink.getAttribute("href")
        await leafLink.click()
        await page.waitForURL(/\/summary\//)
        expect(await page.locator("h1").textContent()).toBe(`Summary ${decodeURIComponent(leafHref!.slice("/summary/".length))}`)
        expect(await page.locator("p.meta").nth(1).textContent()).toMatch(/ · depth 0 · /)
        assert.isTrue(await page.locator("details.turns article").first().isVisible())
        expect(await page.locator("details.turns .said.actions").first().textContent()).toBe("$ ls -la && ls src src/* test")
        for (const said of await page.locator("details.turns .said").allTextContents()) assert.notInclude(said, "{\"command\"")

        // Search from the header: hits labelled by role and time, each opening its page with the matches marked.
        await page.getByRole("searchbox", { name: "search" }).fill("invoice pdf")
        await page.keyboard.press("Enter")
        await page.waitForURL(/\/search\?/)
        expect(await page.locator("h1").textContent()).toBe("Search: invoice pdf")
        const hits = page.locator("ol.hits li")
        assert.isAbove(await hits.count(), 0)
        expect(await hits.first().locator("a").textContent()).toMatch(/^(user|assistant|tool|summary) · 2025-03-14 \d\d:\d\d/)
        expect((await page.locator("ol.hits mark").first().textContent())?.toLowerCase()).toMatch(/invoice|pdf/)
        await hits.first().locator("a").click()
        await page.waitForURL(/[?&]q=invoice\+pdf/)
        const target = page.locator(`[id="${new URL(page.url()).hash.slice(1)}"]`)
        assert.isAbove(await target.locator("mark").count(), 0)
        assert.isTrue(await target.locator("mark").first().isVisible())
        expect(await page.getByRole("searchbox", { name: "search" }).inputValue()).toBe("invoice pdf")

        // The hostile session renders as text; none of its scripts or handlers run.
        await page.goto(`${url}/session/hostile`)
        await page.locator("details.uncovered > summary").click()
        expect(await page.locator("details.uncovered article .said").first().textContent()).toBe(
          "<script>alert(1)</script><img src=x onerror=alert(2)>"
        )
        await page.locator("details.uncovered article .said").nth(1).hover()
        assert.deepStrictEqual(dialogs, [])
        assert.deepStrictEqual(errors, [])
      })
    }).pipe(
      Effect.scoped,
      Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))
    ))

  it.live("every page fits 1280×800 and a 390×844 phone: no sideways scroll, the search button inside the window", () =>
    Effect.gen(function*() {
      const url = yield* Viewer.listen({ port: 0, host: "127.0.0.1" })
      const browser = yield* launch
      yield* Effect.promise(async () => {
        const session = await (await fetch(`${url}/session/coding-session`)).text()
        const leaf = /<details class="node" data-id="([\w-]+)"><summary>[^]*?depth 0 · /.exec(session)![1]!
        const pages: ReadonlyArray<readonly [string, string]> = [
          ["home", "/"],
          ["session", "/session/coding-session"],
          ["summary", `/summary/${leaf}`],
          ["turns", "/session/hostile?q=script"],
          ["search", "/search?q=invoice+pdf"],
          ["context", "/session/coding-session/context?budget=4000"],
          ["bad-budget", "/session/coding-session/context?budget=lots"]
        ]
        for (const [width, height] of [[1280, 800], [390, 844]] as const) {
          const page = await browser.newPage({ viewport: { width, height } })
          for (const [name, address] of pages) {
            await page.goto(`${url}${address}`)
            await page.screenshot({ path: path.join(shots, `${name}-${width}.png`) })
            // Everything open: the longest lines (a turn as stored, the context) are on the page.
            // (Expressions in the page, written as text: this package's types know no DOM.)
            await page.evaluate(`document.querySelectorAll("details").forEach((d) => { d.open = true })`)
            const fit = await page.evaluate<{ scroll: number; client: number; button: number }>(`({
              scroll: document.documentElement.scrollWidth,
              client: document.documentElement.clientWidth,
              button: document.querySelector("header button").getBoundingClientRect().right
            })`)
            assert.isAtMost(fit.scroll, fit.client, `${name} at ${width}: the page is wider than the window`)
            assert.isAtMost(fit.button, fit.client, `${name} at ${width}: the search button is cut off`)
            assert.strictEqual(pngWidth(await page.screenshot({ fullPage: true })), width, `${name} at ${width}`)
          }
          await page.close()
        }
      })
    }).pipe(
      Effect.scoped,
      Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))
    ))
})

it.skipIf(!skip)("chromium is missing outside CI: the browser test is skipped", () => {
  assert.isFalse(available)
})
