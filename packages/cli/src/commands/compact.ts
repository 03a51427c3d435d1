/**
 * `precis compact [FILE]`: import FILE when given, then compact the session
 * (each of its sessions, for a file of several conversations) into a DAG of
 * summaries and print it with the tier counts. `precis compact --all`: compact
 * every session with work, as one worker among any number of processes.
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { CompactionManager, CompactionProgress } from "@precis/compaction"
import { Escape, Summarizer } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { CliError, inStore, reported } from "../internal/errors.js"
import { readConversations } from "../internal/input.js"
import * as SkippedLines from "../internal/skippedLines.js"
import * as Layers from "../internal/layers.js"
import * as CompactionFlags from "../internal/compactionFlags.js"
import * as Opt from "../internal/options.js"
import { printJson, timed, withVerbosity } from "../internal/output.js"
import * as Progress from "../internal/progress.js"
import * as Render from "../internal/render.js"
import * as Session from "../internal/session.js"

/** What a compaction did, in one line. */
const statsLine = (stats: CompactionManager.CompactionStats): string =>
  `compacted ${stats.turnsCompacted} turns into ${stats.leafSummariesCreated} leaf and ` +
  `${stats.condensedSummariesCreated} condensed summaries`

/** What `compact` does, in one line (the root page and the README list it). */
export const summary = "Import FILE if given, then compact the session into a DAG of summaries"

/** The `compact` command. */
export const command = Command.make(
  "compact",
  {
    file: Args.optional(Opt.file),
    db: Opt.db,
    session: Opt.importSession,
    format: Opt.format,
    strict: Opt.strict,
    provider: Opt.provider,
    timeout: Opt.timeout,
    ...CompactionFlags.compaction,
    all: Opt.all,
    redoFallbacks: Opt.redoFallbacks,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      // The options are checked and the input parsed in full (and the store checked) before
      // anything is opened or written.
      const options = yield* CompactionFlags.compactionOptions(args)
      if (args.all && (Option.isSome(args.file) || Option.isSome(args.session) || args.redoFallbacks)) {
        return yield* new CliError({
          reason: "--all compacts the sessions already in the store: it takes no FILE, --session or --redo-fallbacks"
        })
      }
      const input = Option.isSome(args.file)
        ? yield* Effect.gen(function*() {
          const file = args.file.pipe(Option.getOrThrow)
          const prefix = Option.getOrElse(args.session, () => Importer.sessionIdFromPath(file))
          const imported = yield* timed("parsed input")(readConversations(file, args.format, args.strict))
          return Option.some({ prefix, imported })
        })
        : Option.none()
      if (Option.isNone(input)) yield* Session.requireStore(args.db)
      const reporter = args.json && !args.verbose ? Progress.silent : yield* Progress.stderr

      // Compacts one session and prints what it did (in text mode; JSON is printed once at the end).
      const compactSession = (sessionId: string, imported: Session.Imported | undefined) =>
        Effect.gen(function*() {
          const manager = yield* CompactionManager.CompactionManager
          const stats = yield* manager.compact(sessionId).pipe(
            CompactionProgress.reporting(reporter.onProgress),
            timed("compacted"),
            Effect.ensuring(reporter.finish)
          )
          const redo = args.redoFallbacks
            ? yield* timed("redid fallbacks")(manager.redoFallbacks(sessionId))
            : undefined
          if (!args.json) {
            if (imported !== undefined) yield* Console.log(Session.importedLine([imported]))
            yield* Console.log(statsLine(stats))
            if (redo !== undefined) {
              yield* Console.log(
                `redid ${redo.redone} fallback summaries` +
                  (redo.stillFallback === 0 ? "" : ` (${redo.stillFallback} fell back again and were kept)`)
              )
            }
            const dag = yield* Session.dagLines(sessionId)
            yield* Console.log(["", ...dag.lines, ""].join("\n"))
          }
          return {
            session: sessionId,
            ...(imported === undefined ? {} : { imported: Session.totals([imported]) }),
            ...stats,
            ...(redo === undefined ? {} : { redo })
          }
        })

      // Every session with work, as one worker among others: a line per session, then the totals.
      const compactAll = Effect.gen(function*() {
        const manager = yield* CompactionManager.CompactionManager
        const result = yield* timed("compacted")(manager.compactAll())
        const tierCounts = yield* Effect.flatMap(Summarizer.Summarizer, (s) => s.tierCounts)
        if (args.json) return yield* printJson({ ...result, tierCounts })
        for (const { sessionId, ...stats } of result.sessions) {
          yield* Console.log(`${Escape.line(sessionId)}: ${statsLine(stats)}`)
        }
        yield* Console.log(`${result.sessions.length} sessions: ${statsLine(result.totals)}`)
        yield* Console.log(`tiers this run: ${Render.tierCountsLine(tierCounts)}`)
      })

      const program = Effect.gen(function*() {
        // A file of several conversations (OpenAssistant trees) is imported into a session per
        // conversation, and each session is compacted in turn.
        const targets: ReadonlyArray<readonly [string, Session.Imported | undefined]> = Option.isSome(input)
          ? (yield* Session.importConversations(input.value.imported, input.value.prefix)).map((r) => [r.session, r])
          : [[yield* Session.resolve(args.db, args.session), undefined]]
        // The lines of FILE that could not be read (not `imported.skipped`: the turns already present).
        const skipped = Option.isSome(input) ? { skippedLines: yield* SkippedLines.keep(input.value.imported, args.db) } : {}
        const results = yield* Effect.forEach(targets, ([sessionId, imported]) => compactSession(sessionId, imported))
        const tierCounts = yield* Effect.flatMap(Summarizer.Summarizer, (s) => s.tierCounts)
        if (args.json) {
          return yield* printJson(
            results.length === 1 ? { ...results[0]!, ...skipped, tierCounts } : { sessions: results, ...skipped, tierCounts }
          )
        }
        yield* Console.log(`tiers this run: ${Render.tierCountsLine(tierCounts)}`)
      })

      // The summarizer (and its provider configuration) is checked before the store is opened.
      // Only an import creates a store: compacting what a store holds refuses a missing or empty one.
      // The options, checked above, are the manager's: decoded once, when its layer is built.
      const live = CompactionManager.layer(options).pipe(
        Layer.provideMerge(Layers.store(args.db, { create: Option.isSome(input) })),
        Layer.provideMerge(Layers.summarizer(args.provider, args.timeout))
      )
      yield* Effect.provide(args.all ? compactAll : program, live).pipe(inStore(args.db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Compact a session into a DAG of summaries: leaf summaries of the turns outside the fresh tail, then " +
      "condensed summaries of summaries. Given FILE, import it first (a file of several conversations, such as " +
      "OpenAssistant trees, gives a session per conversation, each compacted in turn). Prints the DAG and the tier " +
      "counts. With --all, compact every session of the store that has work instead, one worker among any number of " +
      "precis processes over the same store (each session is taken by one at a time). Each compaction option " +
      "not given by a flag is read from its PRECIS_COMPACTION_* variable (all thirteen: PRECIS_COMPACTION_THRESHOLD, " +
      "_LOW_WATER, _MAX_TURNS, _FRESH_TAIL_TOKENS, _LEAF_TARGET_TOKENS, _CONDENSE_TARGET_TOKENS as well), else " +
      "it is the library's default."
  ),
  reported
)
