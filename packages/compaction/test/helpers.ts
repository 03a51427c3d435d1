/**
 * Layers and small tools shared by the tests.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { ConversationTurn, type Provider, Summarizer, SummaryTask } from "@precis/core"
import type { Store } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { Fixtures, ScriptedProvider } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as CompactionManager from "../src/CompactionManager.js"
import * as CompactionOptions from "../src/CompactionOptions.js"

export { freshPgDatabase, pgClient, pgStoreLayer, pgUrl, skipPg } from "../../store-pg/test/helpers.js"

/** A store over SQLite, with its `SqlClient` exposed to the invariant checker. */
export const storeLayer = (filename = ":memory:"): Layer.Layer<Store.Store | SqlClient.SqlClient> =>
  SqliteStore.layer({ filename }).pipe(Layer.orDie)

/** A short reply derived from the request, always shorter than a chunk's material. */
export const shortReply = (request: Provider.ChatRequest): ScriptedProvider.Outcome =>
  ScriptedProvider.reply(`${request.task?.kind ?? "?"} of ${(request.task === undefined ? 0 : SummaryTask.material(request.task).length)} chars`)

/** The manager's requirements: a store, a Summarizer and a scripted provider. */
export const depsLayer = (
  provider: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider> = ScriptedProvider.respond(shortReply),
  filename?: string
) => depsOn(storeLayer(filename), provider)

/** The manager's requirements over the given store. */
export const depsOn = (
  store: Layer.Layer<Store.Store | SqlClient.SqlClient>,
  provider: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider> = ScriptedProvider.respond(shortReply)
) => Layer.mergeAll(store, Summarizer.layer().pipe(Layer.provideMerge(provider)))

/** Everything a compaction test needs, over the given store. */
export const managerOn = (
  store: Layer.Layer<Store.Store | SqlClient.SqlClient>,
  provider?: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>,
  options?: CompactionOptions.Options
) => CompactionManager.layer(options).pipe(Layer.provideMerge(depsOn(store, provider)))

/** Everything a compaction test needs, over an in-memory (or file) store. */
export const managerLayer = (
  provider?: Layer.Layer<Provider.Provider | ScriptedProvider.ScriptedProvider>,
  options?: CompactionOptions.Options,
  filename?: string
) => CompactionManager.layer(options).pipe(Layer.provideMerge(depsLayer(provider, filename)))

/** Yields until `condition` holds (everything here is in-process, so a few yields suffice). */
export const waitUntil = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 10_000; i++) {
      if (yield* condition) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage("waitUntil: condition never held")
  })

/** How many requests the scripted provider received. */
export const requestCount = Effect.map(
  ScriptedProvider.ScriptedProvider,
  (recorder) => recorder.requests.pipe(Effect.map((rs) => rs.length))
).pipe(Effect.flatten)

/**
 * Runs `effect` to its end under the TestClock, advancing the clock past any
 * provider timeout or delay whenever the fiber is stuck waiting on it.
 */
export const runPumped = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    for (let i = 0; i < 5_000; i++) {
      for (let j = 0; j < 20; j++) yield* Effect.yieldNow()
      const done = yield* Fiber.poll(fiber)
      if (Option.isSome(done)) return yield* Fiber.join(fiber)
      yield* TestClock.adjust("61 seconds")
    }
    return yield* Effect.dieMessage("runPumped: the effect never finished")
  })

const bash = (id: string, command: string, output: string) => {
  const args = JSON.stringify({ command })
  return [
    Fixtures.turn("assistant", `[tool_call Bash] ${args}`, { id, metadata: { toolCalls: [{ id: `c-${id}`, name: "Bash", arguments: args }] } }),
    Fixtures.turn("tool", output, { id: `${id}r`, metadata: { toolCallId: `c-${id}` } })
  ]
}

const toolTurns = [
  Fixtures.turn("user", "Implement the export feature", { id: "u1", metadata: { cwd: "/repo", gitBranch: "feat-export" } }),
  ...bash("b1", "pnpm test", " Tests  1 failed | 9 passed (10)"),
  ...bash("b2", "bd update proj-7 --status in_progress", "ok"),
  ...bash("b3", "git commit -m \"feat: csv export\"", "[feat-export 1a2b] feat: csv export"),
  ...bash("b4", "pnpm test", " Tests  10 passed (10)"),
  ...bash("b5", "git checkout -b feat-export-tsv", "Switched to a new branch 'feat-export-tsv'"),
  ...bash("b6", "bd update proj-8 --status in_progress && bd close proj-7", "ok"),
  ...bash("b7", "pnpm exec eslint src/csv.ts src/tsv.ts", "✖ 2 problems (2 errors, 0 warnings)"),
  ...bash("b8", "git push -u origin feat-export-tsv", "To github.com:o/r.git"),
  Fixtures.turn("user", "also support TSV", { id: "u2" })
]

/**
 * A session with tool traffic as the Claude Code importer records it (Bash calls and their results: tests,
 * issues, commits, a branch, lint, a push), between two user requests, a minute apart.
 */
export const toolSession = toolTurns.map((t, i) =>
  ConversationTurn.make({ ...t, timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString() })
)
