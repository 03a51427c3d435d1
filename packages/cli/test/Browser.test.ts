/**
 * The viewer in a real headless browser (Debian's chromium, driven by
 * playwright-core): open the example session, expand a node, follow a
 * drill-down link, run a search, and check that no script from the store runs.
 * Skipped only when chromium is missing outside CI; in CI it must run.
 * With PRECIS_VIEWER_SCREENSHOT=FILE it saves a screenshot of the session page
 * (docs/viewer.png is made so: see the README).
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

describe.skipIf(skip)("the viewer in chromium", () => {
  it.live("expand a node, drill down to a leaf's turns, search; no stored script ever runs", () =>
    Effect.gen(function*() {
      const url = yield* Viewer.listen({ port: 0, host: "127.0.0.1" })
      const browser = yield* launch
      yield* Effect.promise(async () => {
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
        const dialogs: Array<string> = []
        page.on("dialog", (dialog) => {
          dialogs.push(dialog.message())
          void dialog.dismiss()
        })
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))

        await page.goto(`${url}/`)
        assert.deepStrictEqual(await page.locator("ul.sessions li a").allTextContents(), ["coding-session", "hostile"])
        await page.getByRole("link", { name: "coding-session" }).click()
        await page.waitForURL(/\/session\/coding-session$/)
        expect(await page.locator("h1").textContent()).toBe("Session coding-session")

        // Expand the first root: its children show.
        const root = page.locator(".tree > details.node").first()
        assert.isNull(await root.getAttribute("open"))
        const child = root.locator(":scope > details.node, :scope > .leaf").first()
        assert.isFalse(await child.isVisible())
        await root.locator(":scope > summary").click()
        assert.isNotNull(await root.getAttribute("open"))
        assert.isTrue(await child.isVisible())

        // The inline script (allowed by its nonce) expands every node.
        await page.getByRole("button", { name: "Expand all" }).click()
        assert.isAbove(await page.locator("details.node").count(), 1)
        assert.strictEqual(await page.locator("details.node:not([open])").count(), 0)
        const screenshot = process.env["PRECIS_VIEWER_SCREENSHOT"]
        if (screenshot !== undefined && screenshot.length > 0) {
          await page.getByRole("button", { name: "Collapse all" }).click()
          await root.locator(":scope > summary").click()
          await page.screenshot({ path: screenshot })
          await page.getByRole("button", { name: "Expand all" }).click()
        }

        // Drill down: a leaf's page shows its text and its source turns.
        const leafLink = page.locator(".leaf a").first()
        const leafId = await leafLink.textContent()
        await leafLink.click()
        await page.waitForURL(/\/summary\//)
        expect(await page.locator("h1").textContent()).toMatch(new RegExp(`^Summary ${leafId}`))
        expect(await page.locator("p.meta").nth(1).textContent()).toMatch(/^depth 0 · /)
        assert.isAbove(await page.locator("details.turns article").count(), 0)
        assert.isTrue(await page.locator("details.turns article").first().isVisible())

        // Search from the header: hits with marked matches, each a link.
        await page.getByRole("searchbox", { name: "search" }).fill("invoice pdf")
        await page.keyboard.press("Enter")
        await page.waitForURL(/\/search\?/)
        expect(await page.locator("h1").textContent()).toBe("Search: invoice pdf")
        const hits = page.locator("ol.hits li")
        assert.isAbove(await hits.count(), 0)
        expect((await page.locator("ol.hits mark").first().textContent())?.toLowerCase()).toMatch(/invoice|pdf/)
        await hits.first().locator("a").click()
        await page.waitForURL(/\/summary\//)

        // The hostile session renders as text; none of its scripts or handlers run.
        await page.goto(`${url}/session/hostile`)
        await page.locator("details.uncovered > summary").click()
        expect(await page.locator("details.uncovered article pre").first().textContent()).toBe(
          "<script>alert(1)</script><img src=x onerror=alert(2)>"
        )
        await page.locator("details.uncovered article pre").nth(1).hover()
        assert.deepStrictEqual(dialogs, [])
        assert.deepStrictEqual(errors, [])
      })
    }).pipe(
      Effect.scoped,
      Effect.provide(SqliteStore.layer({ filename: db, readonly: true }))
    ))
})

it.skipIf(!skip)("chromium is missing outside CI: the browser test is skipped", () => {
  assert.isFalse(available)
})
