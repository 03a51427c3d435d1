/**
 * `precis context`: the context an agent would send, the parentless summaries
 * in time order and then the fresh tail.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { CompactionManager, type MemoryStore } from "@precis/compaction"
import { Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { CliError } from "../internal/errors.js"
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
      const live = CompactionManager.layer().pipe(
        Layer.provideMerge(Layers.store(args.db)),
        // Assembling the context calls no model: the offline provider stands in.
        Layer.provide(Summarizer.layer().pipe(Layer.provide(ExtractiveProvider.layer())))
      )
      yield* Effect.gen(function*() {
        const sessionId = yield* Session.resolve(args.db, args.session)
        const context = yield* Effect.flatMap(CompactionManager.CompactionManager, (m) => m.context(sessionId))
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
        yield* Console.log(CompactionManager.render(context))
      }).pipe(Effect.provide(live))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Print the context an agent would send: the parentless summaries in time order, then the turns not yet " +
      "summarized (the fresh tail)."
  )
)
