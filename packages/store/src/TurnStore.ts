/**
 * Sessions and their turns: the part of the store port that records a
 * conversation as it happens (`appendTurns`), reads it back, and caches each
 * session's folded session state.
 *
 * @since 0.1.0
 */
import { ConversationTurn } from "@precis/core"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { StoreError, TurnConflictError } from "./StoreError.js"

/**
 * A turn as stored: its `id` (the source id, or a generated one), its session
 * and its `seq` (0-based position in the session).
 *
 * @since 0.1.0
 */
export class StoredTurn extends Schema.Class<StoredTurn>("@precis/store/StoredTurn")({
  ...ConversationTurn.ConversationTurn.fields,
  id: Schema.String,
  sessionId: Schema.String,
  seq: Schema.Int
}) {}

/**
 * Where a session was held and by whom: the first working directory its turns
 * carry (`ToolMetadata`'s `cwd`), the repository's root when a source names
 * one (`gitRoot`), and the agent that wrote it (the importer's
 * `sourceFormat`). Set by the first `appendTurns` that brings one, then kept.
 *
 * @since 0.1.0
 */
export interface Project {
  readonly directory: string
  readonly gitRoot?: string | undefined
  readonly agent?: string | undefined
}

/**
 * A session and its sizes, with its project when its turns name one and the
 * time span of its turns (the first and last timestamps they carry).
 *
 * @since 0.1.0
 */
export interface SessionInfo {
  readonly id: string
  readonly createdAt: string
  readonly turnCount: number
  readonly summaryCount: number
  readonly project?: Project | undefined
  readonly startedAt?: string | undefined
  readonly endedAt?: string | undefined
}

/**
 * An inclusive range of `seq`; a missing end is open.
 *
 * @since 0.1.0
 */
export interface SeqRange {
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/**
 * A session's folded session state as stored: the state encoded as JSON
 * (`SessionState.StateFromJson`) and the `seq` of the last turn folded into
 * it. A cache: the turns are the truth, and a state that cannot be read is
 * folded again from them.
 *
 * @since 0.1.0
 */
export interface StoredSessionState {
  readonly sessionId: string
  readonly state: string
  readonly lastSeq: number
}

/**
 * A page of a read that can return many rows: at most `limit` of them, after
 * the first `offset` (default 0), in the read's order. A value that is not a
 * whole number counts as 0.
 *
 * @since 0.1.0
 */
export interface Page {
  readonly limit: number
  readonly offset?: number | undefined
}

/**
 * @since 0.1.0
 */
export interface Service {
  /**
   * Appends turns to a session (created on first use), in order. Idempotent: a
   * turn whose `id` already exists in the session with the same role and
   * content is skipped (as is an identical repeat within `turns`); a same-id
   * turn with a different role or content fails the whole append with a
   * {@link TurnConflictError}, writing nothing. Turns without an `id` get a
   * generated one. Returns the turns actually added, with their ids and seqs.
   * One transaction, which also queues the session for the workers
   * (`WorkQueue.claimWork`).
   */
  readonly appendTurns: (
    sessionId: string,
    turns: Iterable<ConversationTurn.ConversationTurn>
  ) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError | TurnConflictError>
  /**
   * Runs `self` in one transaction: every store write inside it (several
   * `appendTurns`, say, or statements of the store's `SqlClient`) is committed
   * together, or none is when `self` fails. Writes inside it that are
   * transactions of their own nest within it.
   */
  readonly withTransaction: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
  /** A session's turns in seq order, optionally within a seq range. */
  readonly turns: (sessionId: string, range?: SeqRange) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /**
   * The turns of a session whose id starts with `prefix` (a whole id, or the
   * start a short citation gives: `SessionState.citedPrefix`), in seq order,
   * at most `limit` (default 20).
   */
  readonly turnsWithIdPrefix: (
    sessionId: string,
    prefix: string,
    limit?: number
  ) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /**
   * The first `count` turns of each of `sessionIds` (a session the store does
   * not hold has none), in the order of `sessionIds`, each session's in seq
   * order: one read for the openings of many sessions (a list of them by
   * their first requests).
   */
  readonly openingTurns: (
    sessionIds: ReadonlyArray<string>,
    count: number
  ) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** The turns no leaf summary covers yet, in seq order (one page of them with `page`). */
  readonly uncoveredTurns: (sessionId: string, page?: Page) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** Every session, oldest first. */
  readonly sessions: Effect.Effect<ReadonlyArray<SessionInfo>, StoreError>
  /**
   * The sessions of the project at `directory` (those whose working directory
   * or git root it is, the same string), the most recent first (by the last
   * timestamp of their turns, else by when they were stored).
   */
  readonly projectSessions: (directory: string) => Effect.Effect<ReadonlyArray<SessionInfo>, StoreError>
  /** The stored session state of a session, if one was saved (see {@link StoredSessionState}). */
  readonly sessionState: (sessionId: string) => Effect.Effect<Option.Option<StoredSessionState>, StoreError>
  /**
   * Saves a session's state (one statement). A state folded over fewer turns
   * than the one stored (`lastSeq` smaller) is not saved: of two writers, the
   * one that folded further wins. Fails when the session does not exist.
   */
  readonly saveSessionState: (state: StoredSessionState) => Effect.Effect<void, StoreError>
}

/**
 * The sessions and turns of the store. A driver layer
 * (`SqliteStore.layer({ filename })`) provides it with the other parts of the
 * port (`Store.Store`).
 *
 * @since 0.1.0
 */
export class TurnStore extends Context.Tag("@precis/store/TurnStore")<TurnStore, Service>() {}
