/**
 * `precis watch PATH...`: follow transcript files as they grow, import their
 * new lines into the store (see `internal/follow.ts`: change notifications
 * and polling with backoff, the offsets kept in the store, one failing file
 * never stopping the others) and compact their sessions in idle time with
 * Sleep Mode. Runs until interrupted (Ctrl-C): each file's new turns and its
 * offset are written in one transaction and compaction is interrupt-safe, so
 * stopping leaves nothing half-written.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { CompactionManager, type CompactionOptions, SleepMode } from "@precis/compaction"
import { Escape, type Summarizer } from "@precis/core"
import type { Importer } from "@precis/importers"
import type { OpenAiProvider } from "@precis/provider-openai"
import type { StoreError } from "@precis/store"
import type * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { type CliError, inStore } from "../internal/errors.js"
import * as Follow from "../internal/follow.js"
import { formatList } from "../internal/input.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { withVerbosity } from "../internal/output.js"
import * as Progress from "../internal/progress.js"

/** What `watch` fails with: each is printed as one line. */
export type Failure =
  | CliError
  | ConfigError.ConfigError
  | CompactionOptions.InvalidOptionsError
  | SleepMode.InvalidSleepOptionsError
  | Summarizer.InvalidSummarizerOptionsError
  | OpenAiProvider.InvalidOpenAiOptionsError
  | Importer.ImportError
  | StoreError.StoreError

/** One event as a JSON object (`--json`: one per line). */
export const eventJson = (event: Follow.FollowEvent | SleepMode.Event): Record<string, unknown> => {
  switch (event._tag) {
    case "Imported":
      return { event: "imported", file: event.file, session: event.session, turns: event.turns, added: event.added, offset: event.offset }
    case "Restarted":
      return { event: "restarted", file: event.file, reason: event.reason }
    case "FileFailed":
      return { event: "file-failed", file: event.file, reason: event.reason }
    case "CycleStarted":
      return { event: "cycle-started", sessions: event.sessions }
    case "SessionCompacted":
      return {
        event: "session-compacted",
        session: event.sessionId,
        turnsCompacted: event.stats.turnsCompacted,
        leafSummariesCreated: event.stats.leafSummariesCreated,
        condensedSummariesCreated: event.stats.condensedSummariesCreated
      }
    case "CycleCompleted":
      return {
        event: "cycle-completed",
        turnsProcessed: event.turnsProcessed,
        summariesCreated: event.summariesCreated,
        ms: Duration.toMillis(event.duration)
      }
    case "CycleInterrupted":
      return { event: "cycle-interrupted", ms: Duration.toMillis(event.duration) }
    case "CycleFailed":
      return {
        event: "cycle-failed",
        session: event.sessionId ?? null,
        error: event.error,
        retryInMs: Duration.toMillis(event.retryIn)
      }
  }
}

/** One event as a line of text. */
export const eventLine = (event: Follow.FollowEvent | SleepMode.Event): string => {
  switch (event._tag) {
    case "Imported":
      return `${event.file}: ${event.added} new turns into ${event.session} (read up to byte ${event.offset})`
    case "Restarted":
      return `${event.file}: ${event.reason}, reading it again from the start`
    case "FileFailed":
      return `${event.file}: not followed: ${event.reason}`
    case "CycleStarted":
      return `idle: compacting ${event.sessions.length === 0 ? "nothing" : event.sessions.join(", ")}`
    case "SessionCompacted":
      return `compacted ${event.stats.turnsCompacted} turns of ${event.sessionId} into ` +
        `${event.stats.leafSummariesCreated} leaf and ${event.stats.condensedSummariesCreated} condensed summaries`
    case "CycleCompleted":
      return `idle cycle done in ${Duration.format(event.duration)}: ${event.turnsProcessed} turns, ` +
        `${event.summariesCreated} summaries`
    case "CycleInterrupted":
      return `idle cycle interrupted by new lines after ${Duration.format(event.duration)}`
    case "CycleFailed":
      return `idle cycle failed${event.sessionId === undefined ? "" : ` on ${event.sessionId}`}: ${event.error} ` +
        `(next try in ${Duration.format(event.retryIn)})`
  }
}

/** What `watch` does, in one line (the root page and the README list it). */
export const summary = "Follow transcript files as they grow and compact their sessions in idle time"

/** The `watch` command. */
export const command = Command.make(
  "watch",
  {
    paths: Opt.watchPaths,
    db: Opt.db,
    session: Opt.watchSession,
    format: Opt.format,
    provider: Opt.provider,
    timeout: Opt.timeout,
    ...Opt.compaction,
    ...Opt.watch,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      const options = yield* Opt.compactionOptions(args)
      yield* Follow.checkPaths(args.paths, args.session)
      const out = yield* Progress.StderrRef
      // On a terminal, a status line redrawn on stderr; otherwise a line (or JSON object) per event on stdout.
      const totals = { imported: 0, compacted: 0 }
      const print = (event: Follow.FollowEvent | SleepMode.Event) => {
        if (args.json) return Console.log(JSON.stringify(eventJson(event)))
        if (!out.isTTY) return Console.log(eventLine(event))
        return Effect.sync(() => {
          if (event._tag === "Imported") totals.imported += event.added
          if (event._tag === "SessionCompacted") totals.compacted += event.stats.turnsCompacted
          // Written past the console: its file names and session ids are escaped here (`Escape.line`).
          out.write(
            `\r\x1b[Kwatching: ${totals.imported} turns imported, ${totals.compacted} compacted · ${Escape.line(eventLine(event))}`
          )
        })
      }
      const endStatus = Effect.sync(() => {
        if (!args.json && out.isTTY) out.write("\n")
      })

      const manager = CompactionManager.layer(options).pipe(
        Layer.provideMerge(Layers.store(args.db)),
        Layer.provideMerge(Layers.summarizer(args.provider, args.timeout))
      )
      // Sleep Mode compacts the sessions of the followed files, which the follower learns as it reads.
      const sleepMode = (sessions: Effect.Effect<ReadonlyArray<string>>) =>
        SleepMode.layerConfig({
          sessions,
          budget: options.budget,
          idleThreshold: Option.getOrUndefined(args.idleThreshold),
          checkInterval: Option.getOrUndefined(args.checkInterval),
          minUnprocessedTurns: Option.getOrUndefined(args.minUnprocessedTurns),
          batchSize: Option.getOrUndefined(args.batchSize)
        })
      const pollInterval = Option.getOrElse(args.pollInterval, () => Opt.defaultPollInterval)

      const program = Effect.gen(function*() {
        const follower = yield* Follow.make({ paths: args.paths, session: args.session, format: args.format, onEvent: print })
        return yield* Effect.gen(function*() {
          const sleep = yield* SleepMode.SleepMode
          const events = yield* sleep.subscribe
          yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(events), print)))
          const tick = Effect.gen(function*() {
            // New lines are activity: they interrupt an idle cycle, and the idle clock starts again.
            if ((yield* follower.poll) > 0) yield* sleep.recordActivity
          })
          return yield* Effect.forever(Effect.zipRight(tick, Effect.sleep(pollInterval)))
        }).pipe(Effect.scoped, Effect.provide(sleepMode(follower.sessions)))
      })
      yield* Effect.provide(Effect.scoped(program), manager).pipe(inStore(args.db), Effect.ensuring(endStatus))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    `Follow transcript files read line by line (${formatList(true)}) as they grow, e.g. ~/.claude/projects: ` +
      "import their new lines into a session per file (named after it, or --session for a single file) and " +
      "compact the sessions in idle time (Sleep Mode: PRECIS_SLEEP_ENABLED, the idle and batch settings below, " +
      "the compaction flags). Directories are watched for changes and the files polled (an idle file less and " +
      "less often); links that loop, a file under several paths and anything but regular files (FIFOs) are " +
      "followed once or never; how far each file was read is kept in the store, so a restart goes on where it " +
      "stopped, and a truncated or replaced file (another inode) is read again. A file that fails is reported " +
      "and left alone until it changes; the others go on. On a terminal, a status line on stderr; otherwise one " +
      "line per event on stdout (a JSON object per line with --json). Stop with Ctrl-C."
  )
)
