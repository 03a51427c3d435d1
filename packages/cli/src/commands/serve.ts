/**
 * `precis serve`: the local, read-only viewer of a store (see
 * `internal/viewer.ts`), on 127.0.0.1 unless `--host` says otherwise (another
 * machine's view of it only with `--allow-remote`, and a warning: see
 * `internal/bind.ts`). Run as the `precis` executable, its searches run as
 * `precis search` processes (`internal/searchProcess.ts`) and its assembled
 * contexts as `precis context` ones (`internal/contextProcess.ts`). Runs until
 * interrupted (Ctrl-C).
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { SearchIndex, type StoreError } from "@precis/store"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Bind from "../internal/bind.js"
import * as ContextProcess from "../internal/contextProcess.js"
import { CliError, inStore } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { withVerbosity } from "../internal/output.js"
import * as SearchProcess from "../internal/searchProcess.js"
import * as Session from "../internal/session.js"
import * as Viewer from "../internal/viewer.js"

/** What `serve` fails with: each is printed as one line. */
export type Failure = CliError | StoreError.StoreError

/** What `serve` does, in one line (the root page and the README list it). */
export const summary = "Serve a local, read-only web viewer of the store"

// A search process's own time: the store's limit, and the start of a process.
const searchTimeout = Duration.sum(SearchIndex.defaultTimeout, Duration.seconds(5))

// An assembled context's time: it reads the turns no summary covers yet.
const contextTimeout = Duration.seconds(60)

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
      const executable = yield* SearchProcess.Executable
      const search = Option.isNone(executable)
        ? undefined
        : SearchProcess.make(executable.value, args.db.path, searchTimeout)
      const assemble = Option.isNone(executable)
        ? undefined
        : ContextProcess.make(executable.value, args.db.path, contextTimeout)
      const cannotListen = (reason: string) => new CliError({ reason: `cannot listen on ${args.host}:${port}: ${reason}` })
      yield* Effect.scoped(Effect.gen(function*() {
        const url = yield* Viewer.listen({ port, host: args.host, search, assemble }).pipe(
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
  )
)
