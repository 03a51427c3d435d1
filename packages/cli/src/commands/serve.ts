/**
 * `precis serve`: the local, read-only viewer of a store (see
 * `internal/viewer.ts`), on 127.0.0.1 unless `--host` says otherwise (another
 * machine's view of it only with `--allow-remote`, and a warning: see
 * `internal/bind.ts`). Its searches and assembled contexts run in this process
 * over the read-only store, each bounded in time (`internal/viewerQueries.ts`).
 * Runs until interrupted (Ctrl-C).
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Bind from "../internal/bind.js"
import { CliError, inStore, reported } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { withVerbosity } from "../internal/output.js"
import * as Session from "../internal/session.js"
import * as Viewer from "../internal/viewer.js"

/** What `serve` does, in one line (the root page and the README list it). */
export const summary = "Serve a local, read-only web viewer of the store"

/** The `serve` command. */
export const command = Command.make(
  "serve",
  { db: Opt.db, port: Opt.port, host: Opt.host, allowRemote: Opt.allowRemote, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      const bind = Bind.checkBind(args.host, args.allowRemote)
      if (Either.isLeft(bind)) return yield* new CliError({ reason: bind.left })
      yield* Session.requireStore(args.db)
      const port = Option.getOrElse(args.port, () => Opt.defaultPort)
      const cannotListen = (reason: string) => new CliError({ reason: `cannot listen on ${args.host}:${port}: ${reason}` })
      yield* Effect.scoped(Effect.gen(function*() {
        const url = yield* Viewer.listen({ port, host: args.host }).pipe(
          Effect.mapError((e) => cannotListen(String(e.cause))),
          // Node throws some refusals (a port out of its range) instead of reporting them.
          Effect.catchAllDefect((defect) => Effect.fail(cannotListen(Cause.pretty(Cause.die(defect)).split("\n")[0]!)))
        )
        if (bind.right.warning !== undefined) yield* Console.error(`precis: warning: ${bind.right.warning}`)
        yield* Console.log(`precis: viewing ${args.db} at ${url}/ (read-only; Ctrl-C stops)`)
        return yield* Effect.never
      })).pipe(Effect.provide(Layers.readStore(args.db)), inStore(args.db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Serve a local, read-only web viewer of the store: the sessions with their dates, each session's DAG as a " +
      "tree of summaries readable in place, each summary with its text, children and source turns (tool calls as " +
      "action lines), the context `precis context --budget N` assembles, and full-text search whose hits open " +
      "with the matches marked; long lists a page at a time. Answers only requests addressed to the names it " +
      "listens on (and localhost). Runs until Ctrl-C."
  ),
  reported
)
