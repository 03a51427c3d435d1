/**
 * `precis context`: the context an agent would send: the session-state header
 * first (unless `--no-state`), then the parentless summaries in time order and
 * the fresh tail; with `--budget N`, fitted into N tokens by the stages of
 * `Condenser.fit` (the header within `ActiveContext.defaultStateShare` of
 * them), then filled from the summary DAG (`Expansion`) unless `--no-expand`.
 * Read-only: the session state is carried forward from the stored one, never saved.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { ActiveContext, Condenser, Expansion } from "@precis/compaction"
import { TokenEstimator } from "@precis/core"
import type { StoreError } from "@precis/store"
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
export type Failure = CliError | StoreError.StoreError

/** What `context` does, in one line (the root page and the README list it). */
export const summary = "Print the context an agent would send, within --budget N tokens if given"

/** The `context` command. */
export const command = Command.make(
  "context",
  {
    db: Opt.db,
    session: Opt.storeSession,
    budget: Opt.budget,
    noState: Opt.noState,
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
        const estimator = yield* TokenEstimator.TokenEstimator
        const context = yield* ActiveContext.load(sessionId)
        const budget = Option.getOrUndefined(args.budget)
        const header = args.noState
          ? ""
          : ActiveContext.header(estimator, (yield* ActiveContext.loadState(sessionId, context.turns)).state, budget)
        const headerTokens = header.length === 0 ? 0 : estimator.estimate(header)
        if (budget !== undefined) {
          // Read-only: mask, forget and window, then expansion from the DAG; summarizing is `compact`'s job.
          // The header counts against the budget: the rest is the summaries' and turns'.
          const rest = Math.max(1, budget - headerTokens)
          const fitted = yield* Condenser.pipeline([
            ...Condenser.fitStages({ budget: rest }),
            ...(args.noExpand ? [] : [Expansion.stage({ budget: rest })])
          ])(context)
          if (args.json) {
            return yield* printJson({
              session: sessionId,
              budget,
              tokens: fitted.tokens + headerTokens,
              header,
              headerTokens,
              report: fitted.report,
              summaries: fitted.summaries.map((s) => ({ ...Render.dagNode(s), content: s.content })),
              turns: fitted.turns.map(Render.contextTurn)
            })
          }
          yield* Console.log(ActiveContext.render({ ...fitted, header }))
          const lines = [
            ...(headerTokens > 0 ? [`session state: ${headerTokens} tokens`] : []),
            ...Render.condenserReport(fitted.report, budget - headerTokens)
          ]
          return yield* Effect.forEach(lines, (line) => Console.error(line), { discard: true })
        }
        if (args.json) {
          return yield* printJson({
            session: sessionId,
            tokens: context.tokens + headerTokens,
            header,
            headerTokens,
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
        yield* Console.log(ActiveContext.render({ ...context, header }))
      }).pipe(Effect.provide(Layers.readStore(args.db)), inStore(args.db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Print the context an agent would send: the session-state header (task, directory and branch, files, last " +
      "checks, open errors, issues, git, plan; each entry citing its turn; --no-state leaves it out), the " +
      "parentless summaries in time order, then the turns not yet summarized (the fresh tail). With --budget N, " +
      "fit it into N tokens (the header within 15% of them, old tool output masked, low-value turns forgotten, " +
      "then a hard window), fill what the budget leaves from the summary DAG (summaries shown as their children, " +
      "the newest as their turns; not with --no-expand) and report each stage on stderr (in the JSON with --json)."
  )
)
