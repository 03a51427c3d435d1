/**
 * What `precis watch` says, as a line of text or a JSON object, each with the
 * time it happened: the watcher's own events (what it follows, the backlog
 * and when the next cycle is due, idle), the follower's (`Follower.Event`) and
 * Sleep Mode's.
 *
 * @internal
 */
import type { SleepMode } from "@precis/compaction"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import type { TranscriptFolder } from "./agentFolders.js"
import type * as BacklogWorkers from "./backlogWorkers.js"
import { type Follower, SkipReport } from "@precis/importers"

/** What the watcher itself reports. */
export type WatcherEvent = Data.TaggedEnum<{
  /** On start: the paths it follows; with no path given, the agents' folders of sessions they are (`agentFolders.ts`). */
  Started: { readonly paths: ReadonlyArray<string>; readonly agents: ReadonlyArray<TranscriptFolder> }
  /**
   * After the files' first read, and after a cycle that left work: the sessions followed, those due
   * and their turns not yet compacted (outside the fresh tail), and when the next cycle may start.
   */
  Backlog: {
    readonly sessions: number
    readonly due: number
    readonly turns: number
    readonly nextCycleAt: number | undefined
  }
  /** Nothing left to compact: it waits for new lines. */
  Idle: { readonly sessions: number }
}>

/** Constructors of {@link WatcherEvent}. */
export const WatcherEvent = Data.taggedEnum<WatcherEvent>()

/** Anything `watch` reports. */
export type Event = WatcherEvent | Follower.Event | SleepMode.Event | BacklogWorkers.Event

/** A time as ISO 8601 (UTC), to the second in text, to the millisecond in JSON. */
const stamp = (at: number, precise: boolean): string => {
  const iso = new Date(at).toISOString()
  return precise ? iso : `${iso.slice(0, 19)}Z`
}

// Sessions named in a line: a few, then how many more (a projects folder holds thousands).
const SHOWN = 5
const sessionList = (sessions: ReadonlyArray<string>) =>
  sessions.length <= SHOWN
    ? sessions.join(", ")
    : `${sessions.slice(0, SHOWN).join(", ")} and ${sessions.length - SHOWN} more`

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : word.endsWith("s") ? "es" : "s"}`

const worker = (pid: number, self: boolean) => (self ? `this process (${pid})` : `worker ${pid}`)

/** One event as a JSON object (`--json`: one per line), `at` first. */
export const json = (at: number, event: Event): Record<string, unknown> => ({ at: stamp(at, true), ...fields(event) })

/** What a compaction made, as the JSON events carry it. */
const statsFields = (stats: {
  readonly turnsCompacted: number
  readonly leafSummariesCreated: number
  readonly condensedSummariesCreated: number
}) => ({
  turnsCompacted: stats.turnsCompacted,
  leafSummariesCreated: stats.leafSummariesCreated,
  condensedSummariesCreated: stats.condensedSummariesCreated
})

const fields = (event: Event): Record<string, unknown> => {
  switch (event._tag) {
    case "Started":
      return {
        event: "started",
        paths: event.paths,
        claudeCode: event.agents.some((folder) => folder.agent === "Claude Code"),
        ...(event.agents.length === 0 ? {} : { agents: event.agents.map((folder) => folder.agent) })
      }
    case "Backlog":
      return {
        event: "backlog",
        sessions: event.sessions,
        due: event.due,
        turns: event.turns,
        nextCycleAt: event.nextCycleAt === undefined ? null : stamp(event.nextCycleAt, true)
      }
    case "Idle":
      return { event: "idle", sessions: event.sessions }
    case "Imported":
      return { event: "imported", file: event.file, session: event.session, turns: event.turns, added: event.added, offset: event.offset }
    case "Restarted":
      return { event: "restarted", file: event.file, reason: event.reason }
    case "LineSkipped":
      return { event: "line-skipped", file: event.file, line: event.line, reason: event.reason }
    case "LineMended":
      return { event: "line-mended", file: event.file, line: event.line, reason: event.reason }
    case "FileFailed":
      return { event: "file-failed", file: event.file, reason: event.reason }
    case "CycleStarted":
      return { event: "cycle-started", sessions: event.sessions }
    case "SessionCompacted":
      return {
        event: "session-compacted",
        session: event.sessionId,
        ...statsFields(event.stats)
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
    case "WorkersStarted":
      return { event: "workers-started", pids: event.pids }
    case "WorkerDone":
      return {
        event: "worker-done",
        pid: event.pid,
        self: event.self,
        sessions: event.sessions,
        ...statsFields(event.stats),
        ms: Duration.toMillis(event.duration)
      }
    case "WorkerFailed":
      return { event: "worker-failed", pid: event.pid ?? null, self: event.self, error: event.reason }
  }
}

/** One event as text, without its time (the status line of a terminal shows it so). */
export const text = (event: Event): string => {
  switch (event._tag) {
    case "Started":
      return event.agents.length > 0
        ? `following ${event.agents.map((f) => `${f.agent}'s ${f.path}`).join(", ")} (no PATH given); reading what ${
          event.agents.length === 1 ? "it holds" : "they hold"
        }`
        : `following ${event.paths.join(", ")}; reading what ${event.paths.length === 1 ? "it holds" : "they hold"}`
    case "Backlog": {
      const backlog = event.due === 0
        ? "nothing to compact"
        : `${plural(event.due, "session")} with ${plural(event.turns, "turn")} not yet compacted`
      const next = event.nextCycleAt === undefined
        ? "idle-time compaction is off (PRECIS_SLEEP_ENABLED)"
        : `next idle cycle at ${stamp(event.nextCycleAt, false)} if no new lines come`
      return `${plural(event.sessions, "session")} followed; backlog: ${backlog}; ${next}`
    }
    case "Idle":
      return `idle: ${plural(event.sessions, "session")} up to date, waiting for new lines`
    case "Imported":
      return `${event.file}: ${event.added} new turns into ${event.session} (read up to byte ${event.offset})`
    case "Restarted":
      return `${event.file}: ${event.reason}, reading it again from the start`
    case "LineSkipped":
      return SkipReport.skippedLine(event.file, event)
    case "LineMended":
      return SkipReport.mendedLine(event.file, event)
    case "FileFailed":
      return `${event.file}: not followed: ${event.reason}`
    case "CycleStarted":
      return `idle cycle: compacting ${plural(event.sessions.length, "session")} (${sessionList(event.sessions)})`
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
    case "WorkersStarted":
      return `compacting the backlog now, not in idle time, in ${plural(event.pids.length + 1, "process")}: this one` +
        `${event.pids.map((pid) => ` and worker ${pid}`).join("")} (precis compact --all), each session in one at a time`
    case "WorkerDone":
      return `${worker(event.pid, event.self)} done in ${Duration.format(event.duration)}: ` +
        `compacted ${plural(event.sessions, "session")}, ${event.stats.turnsCompacted} turns into ` +
        `${event.stats.leafSummariesCreated} leaf and ${event.stats.condensedSummariesCreated} condensed summaries`
    case "WorkerFailed":
      return `${event.pid === undefined ? "a worker" : worker(event.pid, event.self)} failed: ${event.reason}` +
        `${event.self ? "" : "; the others go on"}`
  }
}

/** A time as a line shows it. */
export const time = (at: number): string => stamp(at, false)

/** One event as a line of text, its time first. */
export const line = (at: number, event: Event): string => `${stamp(at, false)} ${text(event)}`
