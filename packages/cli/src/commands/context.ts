/**
 * `precis context`: the context an agent would send, the parentless summaries
 * in time order and then the fresh tail; with `--budget N`, fitted into N
 * tokens by the stages of `Condenser.fit`, then filled from the summary DAG
 * (`Expansion`) unless `--no-expand`.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { ActiveContext, Condenser, Expansion, type MemoryStore } from "@precis/compaction"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type CliError, inStore } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, withVerbosity } from "../internal/output.js"
import * as Render from "../internal/render.js"
import * as Session from "../internal/session.js"

/** What `context` fails with: each is printed as one line. */
export type Failure = CliError | MemoryStore.StoreError

/** The `context` command. */
export const command = Command.make(
  "context",
  {
    db: Opt.db,
    session: Opt.storeSession,
    budget: Opt.budget,
    noExpand: Opt.noExpand,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      yield* Session.requireStore(args.db)
      // Assembling the context needs the store and the token estimator, never a model.
      yield* Effect.gen(function*() {
        const sessionId = yield* Session.resolve(args.db, args.session)
        const context = yield* ActiveContext.load(sessionId)
        if (Option.isSome(args.budget)) {
          // Read-only: mask, forget and window, then expansion from the DAG; summarizing is `compact`'s job.
          const budget = args.budget.value
          const fitted = yield* Condenser.pipeline([
            ...Condenser.fitStages({ budget }),
            ...(args.noExpand ? [] : [Expansion.stage({ budget })])
          ])(context)
          if (args.json) {
            return yield* printJson({
              session: sessionId,
              budget,
              tokens: fitted.tokens,
              report: fitted.report,
              summaries: fitted.summaries.map((s) => ({ ...Render.dagNode(s), content: s.content })),
              turns: fitted.turns.map(Render.contextTurn)
            })
          }
          yield* Console.log(ActiveContext.render(fitted))
          return yield* Effect.forEach(Render.condenserReport(fitted.report, budget), (line) => Console.error(line), { discard: true })
        }
        if (args.json) {
          return yield* printJson({
            session: sessionId,
            tokens: context.tokens,
            summaries: context.summaries.map((s) => ({ ...Render.dagNode(s), content: s.content })),
            turns: context.turns.map((t) => ({
              id: t.id,
              seq: t.seq,
              role: t.role,
              content: t.content,
              timestamp: t.timestamp ?? null
            }))
          })
        }
        yield* Console.log(ActiveContext.render(context))
      }).pipe(Effect.provide(Layers.readStore(args.db)), inStore(args.db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Print the context an agent would send: the parentless summaries in time order, then the turns not yet " +
      "summarized (the fresh tail). With --budget N, fit it into N tokens (old tool output masked, low-value " +
      "turns forgotten, then a hard window), fill what the budget leaves (all but 15%) from the summary DAG " +
      "(summaries shown as their children, the newest as their turns; not with --no-expand) and report each " +
      "stage on stderr (in the JSON with --json)."
  )
)
