/**
 * What a new session in a project starts with: a deterministic digest of the
 * project's earlier sessions, read from the store (never waiting on a
 * compaction). The most recent one in full (what was asked, what was done:
 * commits, issues closed, checks passing, errors fixed; what was left: the
 * next step, open errors, open issues and plan items; the files changed), the
 * four before it in a line each (date, request, outcome), older ones as an
 * index (date, session id, first request in a few words), and a line saying
 * how to look any of it up with precis's recall tools, citing real ids. A
 * session belongs to the project at a folder when that folder is its working
 * directory or its git root (`TurnStore.Project`).
 *
 * Bounded: within `maxTokens` (default 2,500) and `maxChars` (default 10,000,
 * Claude Code's cap on a hook's added context), the least important lines
 * dropped first (the oldest of the index, the files, the sessions before the
 * last, what was done); the same store always gives the same text.
 *
 * @example
 * ```ts
 * import { ProjectDigest } from "@precis/context"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Effect } from "effect"
 * const digest = ProjectDigest.make("/home/me/app").pipe(
 *   Effect.provide(SqliteStore.layer({ filename: "precis.db", readonly: true }))
 * ) // Effect<ProjectDigest.Digest, StoreError>: digest.text is "" for a folder precis has not seen
 * ```
 * @since 0.1.0
 */
import { ActiveContext } from "@precis/compaction"
import { SessionState, TokenEstimator } from "@precis/core"
import { type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import { type Earlier, outcome, render } from "./internal/digestText.js"

/**
 * The default token cap of a digest.
 *
 * @since 0.1.0
 */
export const defaultMaxTokens = 2500

/**
 * The default character cap of a digest: Claude Code's cap on the context a
 * hook adds (a longer one is cut).
 *
 * @since 0.1.0
 */
export const defaultMaxChars = 10_000

/** The sessions shown in a line or two each, after the most recent. */
const BEFORE = 4
/** The turns read for an index entry's first request, and those read first. */
const FIRST_TURNS = 50
const FIRST_READ = 4

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The token cap (default {@link defaultMaxTokens}); a value below 1 counts as 1. */
  readonly maxTokens?: number | undefined
  /** The character cap (default {@link defaultMaxChars}). */
  readonly maxChars?: number | undefined
  /** A session to leave out: the one starting now, when the store already holds some of it. */
  readonly exclude?: string | undefined
}

/**
 * A digest: its text (`""` when the store holds no earlier session of the
 * project), the project's folder as looked up, and the ids of the earlier
 * sessions, the most recent first (all of them, shown or left out).
 *
 * @since 0.1.0
 */
export interface Digest {
  readonly directory: string
  readonly text: string
  readonly sessions: ReadonlyArray<string>
}

/**
 * A folder as sessions record it: without the trailing slashes a user may
 * type (`/` stays).
 *
 * @since 0.1.0
 */
export const normalize = (directory: string): string => directory.length > 1 ? directory.replace(/\/+$/, "") || "/" : directory

/**
 * A session's first real request (`SessionState.requestOf`) among its first
 * 50 turns, without folding its state: what a list of sessions shows.
 *
 * @since 0.1.0
 */
export const firstRequest = (
  sessionId: string
): Effect.Effect<string | undefined, StoreError.StoreError, TurnStore.TurnStore> =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    // Most sessions ask in their first turns: those are read first, the rest only when they do not.
    for (const [from, to] of [[0, FIRST_READ - 1], [FIRST_READ, FIRST_TURNS - 1]] as const) {
      for (const turn of yield* store.turns(sessionId, { from, to })) {
        const request = SessionState.requestOf(turn)
        if (request !== undefined) return request
      }
    }
    return undefined
  })

/**
 * The first requests of many sessions, in their order ({@link firstRequest}
 * of each): their openings read at once, the few that ask later each on its own.
 *
 * @since 0.1.0
 */
export const firstRequests = (
  sessionIds: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string | undefined>, StoreError.StoreError, TurnStore.TurnStore> =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const found = new Map<string, string>()
    for (const turn of yield* store.openingTurns(sessionIds, FIRST_READ)) {
      const request = found.has(turn.sessionId) ? undefined : SessionState.requestOf(turn)
      if (request !== undefined) found.set(turn.sessionId, request)
    }
    return yield* Effect.forEach(sessionIds, (id) => {
      const request = found.get(id)
      return request !== undefined ? Effect.succeed(request) : firstRequest(id)
    })
  })

// A session with its hand-over: its state as stored, carried forward over the turns since.
const withOutline = (info: TurnStore.SessionInfo) =>
  Effect.map(ActiveContext.loadState(info.id), (loaded): Earlier => ({ info, outline: SessionState.outline(loaded.state) }))

/**
 * The digest of the project at `directory` from the store in context.
 * Reads only (a read-only store is enough).
 *
 * @since 0.1.0
 */
export const make = (
  directory: string,
  options: Options = {}
): Effect.Effect<Digest, StoreError.StoreError, TurnStore.TurnStore> =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const estimator = yield* TokenEstimator.TokenEstimator
    const folder = normalize(directory)
    const sessions = (yield* store.projectSessions(folder)).filter((s) => s.id !== options.exclude)
    const ids = sessions.map((s) => s.id)
    if (sessions.length === 0) return { directory: folder, text: "", sessions: ids }
    const [last, ...rest] = sessions
    const shown = yield* Effect.forEach([last!, ...rest.slice(0, BEFORE)], withOutline)
    const olderInfo = rest.slice(BEFORE)
    const requests = yield* firstRequests(olderInfo.map((info) => info.id))
    const older = olderInfo.map((info, i): Earlier => ({ info, request: requests[i] }))
    const maxTokens = Math.max(1, Math.floor(options.maxTokens ?? defaultMaxTokens))
    const maxChars = Math.max(1, Math.floor(options.maxChars ?? defaultMaxChars))
    const text = render({ directory: folder, last: shown[0]!, before: shown.slice(1), older }, maxTokens, maxChars, estimator)
    return { directory: folder, text, sessions: ids }
  }).pipe(Effect.withSpan("ProjectDigest.make", { attributes: { "precis.directory": directory } }))

/**
 * One session of a project as {@link recent} lists it: its id, time span,
 * size and agent, its first request and its outcome in a line (its last
 * commit, else its next step, else what it left open, else its files).
 *
 * @since 0.1.0
 */
export interface RecentSession {
  readonly id: string
  readonly startedAt?: string | undefined
  readonly endedAt?: string | undefined
  readonly turns: number
  readonly agent?: string | undefined
  readonly request?: string | undefined
  readonly outcome: string
}

/**
 * The sessions of the project at `directory`, the most recent first, at most
 * `limit` (default 10) from `offset` (default 0), each with its outcome line;
 * `total` counts them all. What the MCP `recent` tool gives.
 *
 * @since 0.1.0
 */
export const recent = (
  directory: string,
  options: { readonly limit?: number | undefined; readonly offset?: number | undefined } = {}
): Effect.Effect<
  { readonly directory: string; readonly total: number; readonly sessions: ReadonlyArray<RecentSession> },
  StoreError.StoreError,
  TurnStore.TurnStore
> =>
  Effect.gen(function*() {
    const folder = normalize(directory)
    const all = yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.projectSessions(folder))
    const start = Math.max(0, Math.floor(options.offset ?? 0))
    const page = all.slice(start, start + Math.max(1, Math.floor(options.limit ?? 10)))
    const sessions = yield* Effect.forEach(page, (info) =>
      Effect.map(withOutline(info), (earlier): RecentSession => ({
        id: info.id,
        startedAt: info.startedAt,
        endedAt: info.endedAt,
        turns: info.turnCount,
        agent: info.project?.agent,
        request: earlier.outline?.asked?.text,
        outcome: outcome(earlier)
      })))
    return { directory: folder, total: all.length, sessions }
  })
