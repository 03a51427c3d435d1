/**
 * The first run of `precis watch` on every core. The extractive provider is
 * CPU-bound on one thread, so sessions compacted at once in one process
 * (Sleep Mode's `parallelSessions`) overlap waits on a model, never the work
 * itself. When `watch` finds a backlog on start, it compacts it at once in
 * several processes: this one (`CompactionManager.compactAll`, in process)
 * and `workers` child processes `precis compact --all` over the same store,
 * named to them through `PRECIS_DB` (never on their command line), as are
 * the compaction options (`PRECIS_COMPACTION_*`, the library's own `Config`)
 * and the summarizer's deadline (`PRECIS_SUMMARIZER_TIMEOUT`). Each takes
 * sessions from the store's work queue under their lease, so every session is
 * compacted by one process at a time, and ends when no session has work left.
 * They compact as `precis compact` does (leaves of `leafChunkTokens`), not in
 * Sleep Mode's batches of `batchSize` turns: a batch is what lets new lines
 * interrupt a cycle, and no cycle runs meanwhile (`watch` holds Sleep Mode
 * busy); one compaction per session is the cheaper run (2.4 s against 5.3 s
 * in batches of 20 turns, 16 sessions of 40,000 tokens, one process).
 * A worker that fails is reported, never fatal; closing the scope (Ctrl-C)
 * stops the children (SIGTERM, so they release their leases; SIGKILL after
 * {@link gracePeriod}).
 *
 * @internal
 */
import { CompactionManager, CompactionOptions } from "@precis/compaction"
import { OptionConfig } from "@precis/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type ChildProcess, spawn } from "node:child_process"
import { dbEnv, type Ended, childFailure } from "./executable.js"

/** What the backlog's workers report. */
export type Event = Data.TaggedEnum<{
  /** The workers started: this process and the children, by pid. */
  WorkersStarted: { readonly pids: ReadonlyArray<number> }
  /** A worker ended with no session left with work: what it compacted. `self` is this process. */
  WorkerDone: {
    readonly pid: number
    readonly self: boolean
    readonly sessions: number
    readonly stats: Totals
    readonly duration: Duration.Duration
  }
  /** A worker failed (`pid` undefined: the child never started); the others go on. */
  WorkerFailed: { readonly pid: number | undefined; readonly self: boolean; readonly reason: string }
}>

/** Constructors of {@link Event}. */
export const Event = Data.taggedEnum<Event>()

const Totals = Schema.Struct({
  turnsCompacted: Schema.Number,
  leafSummariesCreated: Schema.Number,
  condensedSummariesCreated: Schema.Number
})

/** What a worker compacted in all. */
export type Totals = typeof Totals.Type

// What `precis compact --all --json` prints (the parts reported).
const Output = Schema.parseJson(Schema.Struct({ sessions: Schema.Array(Schema.Struct({})), totals: Totals }))

/** How long a child has to end after SIGTERM before it is killed. */
export const gracePeriod = Duration.seconds(5)

/** What the workers are given. */
export interface Settings {
  /** Child processes to start (besides this one). */
  readonly workers: number
  /** How to start `precis` (the executable, then its script). */
  readonly executable: ReadonlyArray<string>
  /** The store, given to the children through `PRECIS_DB`. */
  readonly db: string
  /** Who writes summaries (the children's `--provider`). */
  readonly provider: string
  /** The deadline of each model tier, when `watch` was given one (the children's `PRECIS_SUMMARIZER_TIMEOUT`). */
  readonly timeout: Option.Option<Duration.Duration>
  /** The compaction options of the manager in context, given to the children as `PRECIS_COMPACTION_*` variables. */
  readonly options: CompactionOptions.Options
}

// How a child ended: its exit code and output, the signal that killed it, or why it could not start.
interface ChildEnded extends Ended {
  readonly signal: NodeJS.Signals | null
  readonly error: string | undefined
}

interface Child {
  readonly process: ChildProcess
  readonly ended: Promise<ChildEnded>
}

// Starts a child: its output read as it comes, `ended` when it is gone (or could not start).
const spawnChild = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Child => {
  const [executable = "precis", ...args] = argv
  // Its own process group: a terminal's Ctrl-C reaches this process, which stops the children itself.
  const child = spawn(executable, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env }, detached: true })
  const out = { stdout: "", stderr: "" }
  child.stdout.setEncoding("utf8").on("data", (data: string) => (out.stdout += data))
  child.stderr.setEncoding("utf8").on("data", (data: string) => (out.stderr += data))
  const ended = new Promise<ChildEnded>((resolve) => {
    child.on("error", (cause) => resolve({ code: null, ...out, signal: null, error: cause.message }))
    child.on("close", (code, signal) => resolve({ code, ...out, signal, error: undefined }))
  })
  return { process: child, ended }
}

// Stops a child still running: SIGTERM (it releases its leases), SIGKILL past the grace period.
const stop = (child: Child) =>
  Effect.suspend(() => {
    const { exitCode, pid, signalCode } = child.process
    if (pid === undefined || exitCode !== null || signalCode !== null) return Effect.void
    const ended = Effect.promise(() => child.ended)
    child.process.kill("SIGTERM")
    return ended.pipe(
      Effect.timeout(gracePeriod),
      Effect.catchAll(() => Effect.zipRight(Effect.sync(() => child.process.kill("SIGKILL")), ended)),
      Effect.asVoid
    )
  })

// Why a child failed, in one line: it could not start, a signal killed it, else what it said.
const failure = (ended: ChildEnded): string =>
  ended.error ?? (ended.signal === null
    ? childFailure(ended, "precis compact --all")
    : `precis compact --all was killed (${ended.signal})`)

// Waits for a child to end and reports it.
const awaitChild = (child: Child, started: number, report: (event: Event) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const ended = yield* Effect.promise(() => child.ended)
    const pid = child.process.pid
    const decoded = Schema.decodeEither(Output)(ended.stdout)
    if (ended.code !== 0 || pid === undefined || Either.isLeft(decoded)) {
      return yield* report(Event.WorkerFailed({ pid, self: false, reason: failure(ended) }))
    }
    const duration = Duration.millis((yield* Clock.currentTimeMillis) - started)
    const { sessions, totals } = decoded.right
    yield* report(Event.WorkerDone({ pid, self: false, sessions: sessions.length, stats: totals, duration }))
  })

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

// This process's own worker: the manager's worker loop, reported; a failure (or a defect) is a line.
const ownWorker = (started: number, report: (event: Event) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const manager = yield* CompactionManager.CompactionManager
    const result = yield* manager.compactAll()
    const duration = Duration.millis((yield* Clock.currentTimeMillis) - started)
    const stats = result.totals
    yield* report(Event.WorkerDone({ pid: process.pid, self: true, sessions: result.sessions.length, stats, duration }))
  }).pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.interrupt
        : report(Event.WorkerFailed({ pid: process.pid, self: true, reason: messageOf(Cause.squash(cause)) }))
    )
  )

// The children's settings as the library's variables: each compaction option (`PRECIS_COMPACTION_*`),
// and the summarizer's deadline when one was given.
const childEnv = (settings: Settings): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(settings.options).flatMap(([option, value]) =>
      value === undefined ? [] : [[OptionConfig.variable(CompactionOptions.prefix, option), String(value)]]
    )
  ),
  ...Option.match(settings.timeout, {
    onNone: () => ({}),
    onSome: (timeout) => ({ PRECIS_SUMMARIZER_TIMEOUT: `${Duration.toMillis(timeout)} millis` })
  })
})

/**
 * Compacts the store's backlog in this process and `settings.workers`
 * children at once, until no session has work left, reporting each worker's
 * start and end; the children are stopped if it is interrupted.
 */
export const run = (
  settings: Settings,
  report: (event: Event) => Effect.Effect<void>
): Effect.Effect<void, never, CompactionManager.CompactionManager> =>
  Effect.scoped(Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const argv = [...settings.executable, "compact", "--all", "--json", `--provider=${settings.provider}`]
    const env = { ...dbEnv(settings.db), ...childEnv(settings) }
    const children = yield* Effect.forEach(
      Array.from({ length: settings.workers }),
      () => Effect.acquireRelease(Effect.sync(() => spawnChild(argv, env)), stop)
    )
    const pids = children.flatMap((child) => (child.process.pid === undefined ? [] : [child.process.pid]))
    yield* report(Event.WorkersStarted({ pids }))
    yield* Effect.all(
      [ownWorker(started, report), ...children.map((child) => awaitChild(child, started, report))],
      { concurrency: "unbounded", discard: true }
    )
  })).pipe(Effect.withSpan("watch.backlogWorkers", { attributes: { "precis.workers": settings.workers } }))
