/**
 * The viewer's assembled contexts: what `precis context --budget N` prints,
 * the context an agent would send (`Layout.render` of the read-only
 * `Assembler`) and the report of each stage. Assembling reads every turn no
 * summary covers yet, so `precis serve` runs it as a `precis context` process
 * of its own, killed once past its time (as its searches: see
 * `searchProcess.ts`); in-process (tests, a library) it runs over the store
 * in context.
 *
 * @internal
 */
import { Assembler, Layout } from "@precis/context"
import { type DagStore, StoreError, type TurnStore } from "@precis/store"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Render from "./render.js"
import { dbEnv, run } from "./searchProcess.js"

/** The largest budget the viewer assembles a context for: a page holds about four characters a token. */
export const MAX_BUDGET = 200_000

/** The budget the viewer offers first. */
export const DEFAULT_BUDGET = 8000

/** An assembled context as `precis context --budget N` prints it: the context, then the report's lines. */
export interface Printed {
  readonly text: string
  readonly report: ReadonlyArray<string>
}

/** Assembles the context of a session within a budget (an integer from 1 to {@link MAX_BUDGET}). */
export type Assemble = (sessionId: string, budget: number) => Effect.Effect<Printed, StoreError.StoreError>

const operation = "Assembler.assemble"

/**
 * The in-process {@link Assemble}, over the stores of `context`: the read-only
 * `Assembler`, as `precis context` runs it.
 *
 * @internal
 */
export const inProcess = (
  context: Context.Context<TurnStore.TurnStore | DagStore.DagStore>
): Assemble =>
(sessionId, budget) =>
  Effect.gen(function*() {
    const assembler = yield* Assembler.Assembler
    const assembled = yield* assembler.assemble(sessionId, { budget, ...Assembler.oneShot })
    return { text: Layout.render(assembled), report: Render.contextReport(assembled, budget) }
  }).pipe(
    Effect.provide(Assembler.layerReadOnly),
    Effect.provide(context),
    // The viewer checks the budget first: a refusal here is the store's to explain.
    Effect.catchTag("InvalidOptionsError", (e) => Effect.fail(new StoreError.StoreError({ operation, reason: e.message })))
  )

/**
 * The {@link Assemble} of `db` by `precis context --budget N`, started with
 * `argv` (the executable and its script), ended (the child killed) past
 * `timeout`.
 *
 * @internal
 */
export const make = (argv: ReadonlyArray<string>, db: string, timeout: Duration.DurationInput): Assemble =>
(sessionId, budget) =>
  run([...argv, "context", `--session=${sessionId}`, "--budget", String(budget)], operation, dbEnv(db)).pipe(
    Effect.flatMap(({ code, stderr, stdout }) =>
      code === 0
        ? Effect.succeed({ text: stdout.replace(/\n$/, ""), report: stderr.split("\n").filter((l) => l.length > 0).map((l) => l.replace(/^precis: /, "")) })
        : Effect.fail(
          new StoreError.StoreError({
            operation,
            reason: stderr.trim().split("\n")[0]?.replace(/^precis: /, "") || `precis context exited with code ${code}`
          })
        )
    ),
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new StoreError.StoreError({
          operation,
          reason: `assembling the context took longer than ${Duration.format(Duration.decode(timeout))}`
        })
    })
  )
