/**
 * The viewer's long queries, run in the server's own process over its
 * read-only store: a full-text search and an assembled context (what
 * `precis context --budget N` prints: the context an agent would send,
 * `Layout.render` of the read-only `Assembler`, and the report of each stage).
 *
 * Each is bounded in time: past its bound it is interrupted and fails with a
 * {@link QueryTimeoutError}, and the server goes on answering. An assembled
 * context is many statements and much work between them; it runs on a
 * scheduler that gives the event loop a turn every few milliseconds
 * (`scheduler.ts`), so the other requests are answered meanwhile and its bound
 * interrupts it at the next statement. A search is one FTS statement that
 * better-sqlite3 runs to its end on this thread; the query's bounds
 * (`SearchIndex.maxQueryTerms`, `maxQueryLength`, repeats read once) keep it
 * short, and PostgreSQL cancels it past the bound (`statement_timeout`).
 *
 * @internal
 */
import { Assembler, AssemblerConfig, Layout } from "@precis/context"
import { type DagStore, SearchIndex, StoreError, type TurnStore } from "@precis/store"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Render from "./render.js"
import * as Scheduler from "./scheduler.js"

/** The largest budget the viewer assembles a context for: a page holds about four characters a token. */
export const MAX_BUDGET = 200_000

/** The budget the viewer offers first. */
export const DEFAULT_BUDGET = 8000

/** An assembled context as `precis context --budget N` prints it: the context, then the report's lines. */
export interface Printed {
  readonly text: string
  readonly report: ReadonlyArray<string>
}

/** How long each of the viewer's queries may take. */
export interface Bounds {
  readonly search: Duration.DurationInput
  readonly context: Duration.DurationInput
}

/** The viewer's bounds: the store's own for a search; a minute for a context, which reads every uncovered turn. */
export const defaultBounds: Bounds = { search: SearchIndex.defaultTimeout, context: Duration.seconds(60) }

/** A query of the viewer that took longer than its bound, stopped; `message` says which and what to do. */
export class QueryTimeoutError extends Data.TaggedError("QueryTimeoutError")<{ readonly message: string }> {}

/**
 * `self`, its event loop turns given, stopped past `bound` with `message`'s error.
 *
 * @internal
 */
export const bounded = <A, E, R>(self: Effect.Effect<A, E, R>, bound: Duration.DurationInput, message: (took: string) => string) =>
  self.pipe(
    Effect.withScheduler(Scheduler.make()),
    Effect.timeoutFail({
      duration: bound,
      onTimeout: () => new QueryTimeoutError({ message: message(Duration.format(Duration.decode(bound))) })
    })
  )

/**
 * The best `limit` hits of `query` (in session `sessionId`, or all), within `bound`.
 *
 * @internal
 */
export const search = (sessionId: string | undefined, query: string, limit: number, bound: Duration.DurationInput) =>
  bounded(
    Effect.flatMap(SearchIndex.SearchIndex, (index) => index.search(sessionId, query, { limit, timeout: bound })),
    bound,
    (took) => `The search took longer than ${took}: search for fewer or rarer words.`
  )

/**
 * The context of session `sessionId` in `budget` tokens (from 1 to
 * {@link MAX_BUDGET}), as `precis context --budget N` prints it, within `bound`.
 *
 * @internal
 */
export const assemble = (
  sessionId: string,
  budget: number,
  bound: Duration.DurationInput
): Effect.Effect<Printed, StoreError.StoreError | QueryTimeoutError, TurnStore.TurnStore | DagStore.DagStore> =>
  bounded(
    Effect.gen(function*() {
      const assembler = yield* Assembler.Assembler
      const assembled = yield* assembler.assemble(sessionId, { budget })
      return { text: Layout.render(assembled), report: Render.contextReport(assembled, budget) }
    }).pipe(
      Effect.provide(Assembler.layerReadOnly(AssemblerConfig.oneShot)),
      // The viewer checks the budget first: a refusal here is the store's to explain.
      Effect.catchTag("InvalidContextOptionsError", (e) =>
        Effect.fail(new StoreError.StoreError({ operation: "Assembler.assemble", reason: "InvalidInput", description: e.message })))
    ),
    bound,
    (took) => `Assembling the context took longer than ${took}.`
  )
