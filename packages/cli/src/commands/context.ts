/**
 * `precis context`: the context an agent would send, the parentless summaries
 * in time order and then the fresh tail.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { ActiveContext, type MemoryStore } from "@precis/compaction"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
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
  { db: Opt.db, session: Opt.storeSession, json: Opt.json, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      yield* Session.requireStore(args.db)
      // Assembling the context needs the store and the token estimator, never a model.
      yield* Effect.gen(function*() {
        const sessionId = yield* Session.resolve(args.db, args.session)
        const context = yield* ActiveContext.load(sessionId)
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
      "summarized (the fresh tail)."
  )
)
