/**
 * `precis import FILE`: parse a conversation file in full, then append its
 * turns to a session.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { type CliError, inStore } from "../internal/errors.js"
import type { MemoryStore } from "@precis/compaction"
import type { Importer } from "@precis/importers"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readTurns } from "../internal/input.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, timed, withVerbosity } from "../internal/output.js"
import * as Render from "../internal/render.js"
import * as Session from "../internal/session.js"

/** What `import` fails with: each is printed as one line. */
export type Failure = CliError | Importer.ImportError | MemoryStore.StoreError

/** The `import` command. */
export const command = Command.make(
  "import",
  {
    file: Opt.file,
    db: Opt.db,
    session: Opt.importSession,
    format: Opt.format,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      const sessionId = Option.getOrElse(args.session, () => Render.sessionIdFromPath(args.file))
      const turns = yield* timed("parsed input")(readTurns(args.file, args.format))
      const result = yield* Effect.provide(Session.importTurns(sessionId, turns), Layers.store(args.db)).pipe(
        inStore(args.db)
      )
      if (args.json) {
        return yield* printJson({ session: sessionId, file: args.file, db: args.db, ...result })
      }
      const skipped = result.skipped === 0 ? "" : ` (${result.skipped} already present)`
      yield* Console.log(
        `imported ${result.added} of ${result.turns} turns from ${args.file} into session ${sessionId} in ${args.db}${skipped}`
      )
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Read a conversation file (precis JSONL, OpenAI chat JSON, Claude Code JSONL, SWE-agent .traj, OpenHands " +
      "events, OpenAssistant trees) and append its turns to a session. The whole file is parsed first: a bad line writes nothing. " +
      "Importing the same file again adds nothing."
  )
)
