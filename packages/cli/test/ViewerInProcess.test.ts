/**
 * `precis serve` answers its searches and context pages in its own process:
 * run as the `precis` executable would be (an `Executable` in context, here
 * one that does not exist), no child process is started; and a query past
 * its time bound (a store whose summaries never come) is a 503 page saying
 * so, the server answering on. And how a page is laid out.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { DagStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, vi } from "vitest"
import { Executable } from "../src/internal/executable.js"
import * as Html from "../src/internal/html.js"
import * as Viewer from "../src/internal/viewer.js"
import * as Queries from "../src/internal/viewerQueries.js"
import { runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

// Every way to start a process, spied on (and still working).
vi.mock("node:child_process", async (original) => {
  const actual = await original<typeof import("node:child_process")>()
  return {
    ...actual,
    spawn: vi.fn(actual.spawn),
    fork: vi.fn(actual.fork),
    exec: vi.fn(actual.exec),
    execFile: vi.fn(actual.execFile)
  }
})

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const db = path.join(dir, "inprocess.db")

beforeAll(async () => {
  const result = await Effect.runPromise(runCli(["import", write(dir, "s.jsonl", sessionJsonl(400)), "--db", db]))
  assert.strictEqual(result.code, 0, result.stderr)
}, 60_000)

// The store, but a context never comes: its parentless summaries are never read (the session
// list and a search still answer). A context bound is then always passed, whatever the machine.
const stalled = Layer.effect(
  DagStore.DagStore,
  Effect.map(DagStore.DagStore, (dag) => DagStore.DagStore.of({ ...dag, parentless: () => Effect.never }))
).pipe(Layer.provideMerge(SqliteStore.layer({ filename: db, readonly: true })))

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: await response.text() }
  })

const started = () =>
  [childProcess.spawn, childProcess.fork, childProcess.exec, childProcess.execFile]
    .reduce((n, spy) => n + vi.mocked(spy).mock.calls.length, 0)

describe("the viewer's queries, in the server's process", () => {
  it.live("`precis serve` answers a search and a context page with no child process started", () =>
    Effect.gen(function*() {
      const stdout: Array<string> = []
      const serving = yield* Effect.fork(
        runCli(["serve", "--db", db, "--port", "0"], { stdout }).pipe(
          Effect.provideService(Executable, Option.some([process.execPath, path.join(dir, "no-such-precis.js")]))
        )
      )
      const url = yield* Effect.sync(() => stdout.join("\n").match(/at (http:\/\/[^/]+)\//)?.[1]).pipe(
        Effect.flatMap(Option.fromNullable),
        Effect.retry(Schedule.spaced("20 millis"))
      )
      const before = started()
      const found = yield* get(`${url}/search?q=module7`)
      assert.strictEqual(found.status, 200, found.body)
      expect(found.body).toContain("<mark>module7</mark>")
      const context = yield* get(`${url}/session/s/context?budget=2000`)
      assert.strictEqual(context.status, 200, context.body)
      expect(context.body).toContain("<h1>Context in 2000 tokens</h1>")
      assert.strictEqual(started() - before, 0)
      yield* Fiber.interrupt(serving)
    }))

  it.effect("a query past its bound stops with a QueryTimeoutError naming the bound (the clock decides, not the machine)", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.either(Queries.bounded(Effect.never, "1 second", (took) => `took longer than ${took}`)))
      yield* TestClock.adjust("999 millis")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("2 millis")
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result, Either.left(new Queries.QueryTimeoutError({ message: "took longer than 1s" })))
    }))

  it.live("a query past its time bound is a 503 page saying so, and the server answers on", () =>
    Effect.scoped(Effect.gen(function*() {
      const url = yield* Viewer.listen({ port: 0, host: "127.0.0.1", bounds: { search: "1 minute", context: "100 millis" } })
      const slow = yield* get(`${url}/session/s/context?budget=100000`)
      assert.strictEqual(slow.status, 503)
      expect(slow.body).toContain("<h1>Too slow</h1><p>Assembling the context took longer than 100ms.</p>")
      const found = yield* get(`${url}/search?q=module7`)
      assert.strictEqual(found.status, 200)
      expect(found.body).toContain("<mark>module7</mark>")
      assert.strictEqual((yield* get(`${url}/`)).status, 200)
    })).pipe(Effect.provide(stalled)))
})

describe("the viewer's pages", () => {
  it("a page is the header with its search box (the session and the query kept), then the body, its script under the nonce", () => {
    const html = Html.page(
      { title: "Too <slow>", nonce: "n0nce", query: "a \"b\"", session: "s&1" },
      Html.problemBody("Too <slow>", "took longer than 1ms & more")
    )
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/)
    expect(html).toContain("<title>Too &#60;slow&#62; · precis</title>")
    expect(html).toContain(`<input type="hidden" name="session" value="s&#38;1">`)
    expect(html).toContain(`value="a &#34;b&#34;" aria-label="search">`)
    expect(html).toContain("<main><h1>Too &#60;slow&#62;</h1><p>took longer than 1ms &#38; more</p></main>")
    expect(html).toContain(`<script nonce="n0nce">`)
    const bare = Html.page({ title: "Sessions", nonce: "n" }, "")
    assert.notInclude(bare, `name="session"`)
    expect(bare).toContain(`value="" aria-label="search">`)
  })
})
