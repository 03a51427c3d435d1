/**
 * `precis serve`: the local, read-only viewer of a store (see
 * `internal/viewer.ts`), on 127.0.0.1 unless `--host` says otherwise. Runs
 * until interrupted (Ctrl-C).
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import type { StoreError } from "@precis/store"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliError, inStore } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { withVerbosity } from "../internal/output.js"
import * as Session from "../internal/session.js"
import * as Viewer from "../internal/viewer.js"

/** What `serve` fails with: each is printed as one line. */
export type Failure = CliError | StoreError.StoreError

/** What `serve` does, in one line (the root page and the README list it). */
export const summary = "Serve a local, read-only web viewer of the store"

/** The `serve` command. */
export const command = Command.make(
  "serve",
  { db: Opt.db, port: Opt.port, host: Opt.host, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      yield* Session.requireStore(args.db)
      const port = Option.getOrElse(args.port, () => Opt.defaultPort)
      yield* Effect.scoped(Effect.gen(function*() {
        const url = yield* Viewer.listen({ port, host: args.host }).pipe(
          Effect.mapError((e) => new CliError({ reason: `cannot listen on ${args.host}:${port}: ${String(e.cause)}` }))
        )
        yield* Console.log(`precis: viewing ${args.db} at ${url}/ (read-only; Ctrl-C stops)`)
        return yield* Effect.never
      })).pipe(Effect.provide(Layers.readStore(args.db)), inStore(args.db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Serve a local, read-only web viewer of the store: the sessions, each session's DAG as a collapsible " +
      "tree, each summary with its text, children and source turns, and full-text search. Runs until Ctrl-C."
  )
)
