/**
 * `precis sessions`: the sessions of a store, with their sizes and time
 * ranges, grouped by project (the folder they were held in) when their turns
 * name one. Reads the store, never creates or changes it.
 *
 * @internal
 */
import * as Command from "@effect/cli/Command"
import { Escape, Transcript } from "@precis/core"
import { TurnStore } from "@precis/store"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { inStore, reported } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, withVerbosity } from "../internal/output.js"
import * as Session from "../internal/session.js"
import { timeRange } from "../internal/sessionTimes.js"

/** One session of `precis sessions --json`; `null` stands for a missing timestamp. */
export interface SessionRow {
  readonly id: string
  readonly turns: number
  readonly uncoveredTurns: number
  readonly summaries: number
  readonly timeRangeStart: string | null
  readonly timeRangeEnd: string | null
  readonly project: TurnStore.Project | null
}

/** The row of a session: the time range comes from its first and last turns only. */
const row = (session: TurnStore.SessionInfo) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const [range, uncovered] = yield* Effect.all([timeRange(session), store.uncoveredTurns(session.id)])
    return {
      id: session.id,
      turns: session.turnCount,
      uncoveredTurns: uncovered.length,
      summaries: session.summaryCount,
      timeRangeStart: range.start ?? null,
      timeRangeEnd: range.end ?? null,
      project: session.project ?? null
    } satisfies SessionRow
  })

/** `coding-session · 245 turns (17 not summarized) · 11 summaries · 2025-03-14T09:02:11 → 2025-03-14T11:33:59`. */
const line = (s: SessionRow): string =>
  `${Escape.line(s.id)} · ${s.turns} turns (${s.uncoveredTurns} not summarized) · ${s.summaries} summaries · ` +
  (s.timeRangeStart === null && s.timeRangeEnd === null
    ? "no time range"
    : `${Transcript.shortTimestamp(s.timeRangeStart ?? undefined)} → ${
      Transcript.shortTimestamp(s.timeRangeEnd ?? undefined)
    }`)

/** A project's heading: `/work/app (claude-code; git root /work)`. */
const heading = (project: TurnStore.Project): string => {
  const about = [project.agent, project.gitRoot === undefined ? undefined : `git root ${project.gitRoot}`]
    .filter((part) => part !== undefined)
  return Escape.line(about.length === 0 ? project.directory : `${project.directory} (${about.join("; ")})`)
}

/**
 * The list: one line per session; when some name a project, under a heading
 * per project (in the order their first session comes), those without one last.
 */
const listing = (rows: ReadonlyArray<SessionRow>): string => {
  if (rows.every((r) => r.project === null)) return rows.map(line).join("\n")
  const groups = new Map<string, { readonly title: string; readonly rows: Array<SessionRow> }>()
  for (const r of rows) {
    const key = r.project === null ? "" : JSON.stringify([r.project.directory, r.project.gitRoot, r.project.agent])
    const group = groups.get(key) ?? { title: r.project === null ? "(no project)" : heading(r.project), rows: [] }
    groups.set(key, group)
    group.rows.push(r)
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => (a === "" ? 1 : 0) - (b === "" ? 1 : 0))
  return ordered.map(([, g]) => [g.title, ...g.rows.map((r) => `  ${line(r)}`)].join("\n")).join("\n")
}

/** What `sessions` does, in one line (the root page and the README list it). */
export const summary = "List the sessions of a store by project, with their sizes and time ranges"

/** The `sessions` command. */
export const command = Command.make(
  "sessions",
  { db: Opt.db, json: Opt.json, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      yield* Session.requireStore(args.db)
      yield* Effect.gen(function*() {
        const store = yield* TurnStore.TurnStore
        const rows = yield* Effect.forEach(yield* store.sessions, row)
        if (args.json) return yield* printJson({ db: args.db, sessions: rows })
        yield* Console.log(rows.length === 0 ? `${args.db} holds no session yet (import a file first)` : listing(rows))
      }).pipe(Effect.provide(Layers.readStore(args.db)), inStore(args.db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "List the sessions of a store: id, turns, turns not yet summarized, summaries and time range, " +
      "under the folder (project) they were held in when their turns name one. " +
      "--json gives { db, sessions: [{ id, turns, uncoveredTurns, summaries, timeRangeStart, timeRangeEnd, " +
      "project: { directory, gitRoot?, agent? } | null }] }."
  ),
  reported
)
