/**
 * `precis import FILE`: parse a conversation file in full, then append its
 * turns to a session (a session per conversation when the file holds several),
 * all in one transaction.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { inStore, reported } from "../internal/errors.js"
import { Importer } from "@precis/importers"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { formatList, readConversations } from "../internal/input.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, timed, withVerbosity } from "../internal/output.js"
import * as Session from "../internal/session.js"
import * as SkippedLines from "../internal/skippedLines.js"

/** What `import` does, in one line (the root page and the README list it). */
export const summary = "Append the turns of a conversation file to a session"

/** The `import` command. */
export const command = Command.make(
  "import",
  {
    file: Opt.file,
    db: Opt.db,
    session: Opt.importSession,
    format: Opt.format,
    strict: Opt.strict,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      const prefix = Option.getOrElse(args.session, () => Importer.sessionIdFromPath(args.file))
      const imported = yield* timed("parsed input")(readConversations(args.file, args.format, args.strict))
      const results = yield* Effect.provide(Session.importConversations(imported, prefix), Layers.store(args.db)).pipe(
        inStore(args.db)
      )
      // `skipped` counts the turns already present; `skippedLines` the lines that could not be read.
      const skippedLines = yield* SkippedLines.keep(imported, args.db)
      if (args.json) {
        // One session: its id and counts, as ever; several: the totals and each session's counts.
        return yield* printJson(
          results.length === 1
            ? { session: results[0]!.session, file: args.file, db: args.db, ...Session.totals(results), skippedLines }
            : { file: args.file, db: args.db, ...Session.totals(results), skippedLines, sessions: results }
        )
      }
      yield* Console.log(Session.importedLine(results, { file: args.file, db: args.db }))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    `Read a conversation file (${formatList()}) and append its turns to a session. ` +
      "The whole file is parsed first: a bad line writes nothing (another program's JSONL log skips it instead, " +
      "unless --strict). " +
      "Importing the same file again adds nothing. A file of several conversations (OpenAssistant trees) gives a session " +
      "per conversation, named --session (or the file's base name) followed by -TREE-ID."
  ),
  reported
)
