/**
 * `precis watch [PATH...]`: follow transcript files as they grow (with no
 * PATH, the folders of sessions of every agent that has one: Claude Code,
 * Codex, Gemini CLI, opencode, `agentFolders.ts`), import their new lines into the
 * store (`@precis/importers`' `Follower`: change notifications and polling
 * with backoff, the offsets kept in the store, one failing file never
 * stopping the others) and compact their sessions in idle time with Sleep Mode,
 * saying what it does with the time of each line (`watchEvents.ts`). Runs
 * until interrupted (Ctrl-C): each file's new turns and its offset are
 * written in one transaction and compaction is interrupt-safe, so stopping
 * leaves nothing half-written.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import type * as Options from "@effect/cli/Options"
import { CompactionManager, type CompactionOptions, SleepMode } from "@precis/compaction"
import { Escape } from "@precis/core"
import { Follower, type Importer } from "@precis/importers"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Deferred from "effect/Deferred"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as BacklogWorkers from "../internal/backlogWorkers.js"
import * as AgentFolders from "../internal/agentFolders.js"
import { CliError, inStore, reported } from "../internal/errors.js"
import { formatList } from "../internal/input.js"
import * as Layers from "../internal/layers.js"
import * as CompactionFlags from "../internal/compactionFlags.js"
import * as Opt from "../internal/options.js"
import * as SkippedLines from "../internal/skippedLines.js"
import { withVerbosity } from "../internal/output.js"
import * as Progress from "../internal/progress.js"
import { Executable } from "../internal/executable.js"
import * as WatchEvents from "../internal/watchEvents.js"
import * as WatchOpt from "../internal/watchOptions.js"

// The paths given, else every agent's folder of sessions that exists (`agentFolders.ts`), said on stderr.
const pathsToFollow = (paths: ReadonlyArray<string>) =>
  paths.length > 0 ? Effect.succeed({ paths, agents: [] }) : Effect.gen(function*() {
    const noPath = (why: string) =>
      new CliError({ reason: `no PATH given, and ${why}: give a transcript file or a directory of them (precis watch PATH)` })
    const all = yield* Effect.mapError(AgentFolders.transcriptFolders, () => noPath("HOME is not set (the agents' folders are under it)"))
    const agents = yield* AgentFolders.existingTranscriptFolders
    if (agents.length === 0) return yield* noPath(`no agent's folder of sessions exists (${all.map((f) => f.path).join(", ")})`)
    yield* Console.error(`precis: no PATH given; following ${agents.map((f) => `${f.agent}'s ${f.path}`).join(", ")}`)
    return { paths: agents.map((f) => f.path), agents }
  })

/** Fails unless every path is a regular file or a directory, and unless `--session` goes with a single file. */
const checkPaths = (paths: ReadonlyArray<string>, session: Option.Option<string>) =>
  Effect.forEach(paths, (file) =>
    Effect.gen(function*() {
      const stats = yield* Effect.promise(() => fsp.stat(file).catch(() => undefined))
      if (stats === undefined) return yield* new CliError({ reason: `${file}: no such file or directory` })
      if (!stats.isFile() && !stats.isDirectory()) {
        return yield* new CliError({ reason: `${file}: not a regular file or a directory: never read` })
      }
      if (Option.isSome(session) && (paths.length > 1 || !stats.isFile())) {
        return yield* new CliError({ reason: "--session names the session of a single file: give one FILE" })
      }
    }), { discard: true })

// Sleep Mode's options from its variables; sessions compacted at once default to the cores.
const sleepConfig = Config.map(SleepMode.config, (read) => ({ parallelSessions: os.availableParallelism(), ...read }))

// The worker processes of a backlog found on start, with the provider, deadline and compaction options
// given to `watch`: none when this process is not the `precis` executable (a library, the tests), when
// Sleep Mode is off (import only) or with --workers 0.
const workerSettings = (
  args: {
    readonly db: Layers.Db
    readonly provider: Layers.ProviderName
    readonly timeout: Option.Option<Duration.Duration>
    readonly workers: Option.Option<number>
  },
  options: CompactionOptions.Options,
  enabled: boolean
) =>
  Effect.map(Executable, (executable): Option.Option<BacklogWorkers.Settings> => {
    const workers = Option.getOrElse(args.workers, WatchOpt.defaultWorkers)
    if (Option.isNone(executable) || !enabled || workers === 0) return Option.none()
    return Option.some({
      workers,
      executable: executable.value,
      db: args.db.path,
      provider: args.provider,
      timeout: args.timeout,
      options
    })
  })

/** What `watch` does, in one line (the root page and the README list it). */
export const summary = "Follow transcript files as they grow and compact their sessions in idle time"

// `--format`, its type named here, where the declaration of `command` can refer to it.
const format: Options.Options<Importer.Format> = Opt.format

/** The `watch` command. */
export const command = Command.make(
  "watch",
  {
    paths: WatchOpt.paths,
    db: Opt.db,
    session: WatchOpt.sessionOption,
    format,
    provider: Opt.provider,
    timeout: Opt.timeout,
    ...CompactionFlags.compaction,
    ...WatchOpt.options,
    json: Opt.json,
    verbose: Opt.verbose
  },
  (args) =>
    Effect.gen(function*() {
      const options = yield* CompactionFlags.compactionOptions(args)
      // Read before anything is printed: a bad PRECIS_SLEEP_* variable is the one line printed.
      const sleepSettings = yield* sleepConfig
      const followed = yield* pathsToFollow(args.paths)
      yield* checkPaths(followed.paths, args.session)
      const out = yield* Progress.StderrRef
      // On a terminal, a status line redrawn on stderr; otherwise a line (or JSON object) per event on stdout.
      const totals = { imported: 0, compacted: 0, skipped: 0 }
      const print = (event: WatchEvents.Event) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) => {
          if (args.json) return Console.log(JSON.stringify(WatchEvents.json(at, event)))
          if (!out.isTTY) return Console.log(WatchEvents.line(at, event))
          return Effect.sync(() => {
            if (event._tag === "Imported") totals.imported += event.added
            if (event._tag === "SessionCompacted") totals.compacted += event.stats.turnsCompacted
            if (event._tag === "LineSkipped") totals.skipped++
            const skipped = totals.skipped === 0 ? "" : `, ${totals.skipped} lines skipped`
            // Written past the console: its file names and session ids are escaped here (`Escape.line`).
            out.write(
              `\r\x1b[K${WatchEvents.time(at)} watching: ${totals.imported} turns imported, ${totals.compacted} compacted${skipped} · ` +
                Escape.line(WatchEvents.text(event))
            )
          })
        })
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
          batchSize: Option.getOrUndefined(args.batchSize),
          parallelSessions: Option.getOrUndefined(args.parallelSessions)
        }, Config.succeed(sleepSettings))
      const pollInterval = Option.getOrElse(args.pollInterval, () => WatchOpt.defaultPollInterval)
      const workers = yield* workerSettings(args, options, sleepSettings.enabled !== false)

      const program = Effect.gen(function*() {
        yield* print(WatchEvents.WatcherEvent.Started(followed))
        const follower = yield* Effect.flatMap(Follower.Follower, (f) =>
          f.start({ paths: followed.paths, session: Option.getOrUndefined(args.session), format: args.format }))
        // One poll, each event printed as it comes: the turns it added.
        const poll = follower.poll.pipe(
          Stream.tap(print),
          // A skipped line's bytes are kept beside the store, as `import` keeps them.
          Stream.tap((event) => event._tag === "LineSkipped" ? SkippedLines.keepLines(event.file, [event], args.db) : Effect.void),
          Stream.runFold(0, (added, event) => (event._tag === "Imported" ? added + event.added : added))
        )
        return yield* Effect.gen(function*() {
          const sleep = yield* SleepMode.SleepMode
          // What is left to compact and when the next cycle is due (always on start); "idle" when nothing is.
          const report = (start: boolean) =>
            Effect.gen(function*() {
              const backlog = yield* sleep.backlog
              const sessions = (yield* follower.sessions).length
              if (start || backlog.sessions > 0) {
                const nextCycleAt = yield* sleep.nextCycleAt
                yield* print(WatchEvents.WatcherEvent.Backlog({ sessions, due: backlog.sessions, turns: backlog.turns, nextCycleAt }))
              }
              if (backlog.sessions === 0) yield* print(WatchEvents.WatcherEvent.Idle({ sessions }))
              return backlog.sessions
            })
          const events = yield* sleep.subscribe
          // After a cycle: what it left. A store that fails here is a warning; the cycles go on.
          const afterCycle = Effect.catchAll(report(false), (error) => Effect.logWarning("watch: no backlog", error.message))
          // The first read is work: no cycle starts during it, and the idle clock starts when it ends. A backlog
          // goes to the workers (with at least one child): no cycle starts until they are done.
          yield* sleep.busy(Effect.gen(function*() {
            yield* poll
            const due = yield* report(true)
            if (due === 0 || Option.isNone(workers)) return
            const held = yield* Deferred.make<void>()
            const backlog = Effect.zipRight(Deferred.succeed(held, undefined), BacklogWorkers.run(workers.value, print))
            yield* Effect.forkScoped(Effect.zipRight(sleep.busy(backlog), afterCycle))
            yield* Deferred.await(held)
          }))
          const onEvent = (event: SleepMode.Event) =>
            Effect.zipRight(print(event), event._tag === "CycleCompleted" ? afterCycle : Effect.void)
          yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(events), onEvent)))
          const tick = Effect.gen(function*() {
            // New lines are activity: they interrupt an idle cycle, and the idle clock starts again.
            if ((yield* poll) > 0) yield* sleep.recordActivity
          })
          return yield* Effect.forever(Effect.zipRight(Effect.sleep(pollInterval), tick))
        }).pipe(Effect.scoped, Effect.provide(sleepMode(follower.sessions)))
      })
      yield* Effect.provide(Effect.scoped(program), Layer.provideMerge(Follower.layer, manager)).pipe(inStore(args.db), Effect.ensuring(endStatus))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    `Follow transcript files read line by line (${formatList(true)}) as they grow, e.g. ~/.claude/projects: ` +
      "import their new lines into a session per file (named after it, or --session for a single file) and " +
      "sessions kept whole (Gemini CLI's chats/session-*.json, opencode's storage/session/*/ses_*.json with its " +
      "messages and parts), read again when they change, only their turns not yet stored added (a last message " +
      "once a poll finds it unchanged), and " +
      "compact the sessions in idle time (Sleep Mode: PRECIS_SLEEP_ENABLED, the idle and batch settings below, " +
      "the compaction flags). Directories are watched for changes and the files polled (an idle file less and " +
      "less often); links that loop, a file under several paths and anything but regular files (FIFOs) are " +
      "followed once or never; how far each file was read is kept in the store, so a restart goes on where it " +
      "stopped, and a truncated, replaced (another inode) or rewritten file (a checksum of what was read) is read " +
      "again. Another program's log is read as import reads it: a bad line is reported (FILE:LINE: skipped: reason), " +
      "kept in <db>.skipped.jsonl and skipped, a NUL shown as ␀; a file that fails is reported and left alone until it changes; " +
      "the others go on. Each line says when (UTC): on start what it follows, " +
      "then the backlog (sessions and turns not yet compacted) and when the next idle cycle is due, what each " +
      "cycle did (sessions in parallel, each until done), and when it goes idle. A backlog found on start is " +
      "compacted at once on every core: by this process and --workers child processes (precis compact --all over the " +
      "same store, each session by one process at a time), a line when each is done; Ctrl-C stops them too. " +
      "With no PATH, every agent's folder of sessions that exists (Claude Code's ~/.claude/projects, Codex's " +
      "~/.codex/sessions, Gemini CLI's ~/.gemini/tmp, opencode's ~/.local/share/opencode/storage), named on stderr. On a terminal, a status line on stderr; otherwise one " +
      "line per event on stdout (a JSON object per line with --json, its time in \"at\"). Stop with Ctrl-C."
  ),
  reported
)
