/**
 * The store port: sessions, turns and the summary DAG. This module holds the
 * service tag, its interface, the models it speaks in and its error; the
 * drivers are `SqliteMemoryStore` (one file) and `PgMemoryStore` (a PostgreSQL
 * database shared by many processes and machines).
 *
 * @since 0.1.0
 */
import { ConversationTurn, type Summary, type SummaryRecord } from "@precis/core"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * A turn as stored: its `id` (the source id, or a generated one), its session
 * and its `seq` (0-based position in the session).
 *
 * @since 0.1.0
 */
export class StoredTurn extends Schema.Class<StoredTurn>("@precis/compaction/StoredTurn")({
  ...ConversationTurn.ConversationTurn.fields,
  id: Schema.String,
  sessionId: Schema.String,
  seq: Schema.Int
}) {}

/**
 * A session and its sizes.
 *
 * @since 0.1.0
 */
export interface SessionInfo {
  readonly id: string
  readonly createdAt: string
  readonly turnCount: number
  readonly summaryCount: number
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
 * A leaf summary to insert: its text and the ids of the (uncovered) turns it summarizes.
 *
 * @since 0.1.0
 */
export interface NewLeaf {
  readonly sessionId: string
  readonly content: string
  readonly tier: Summary.Tier
  readonly tokenEstimate: number
  readonly turnIds: ReadonlyArray<string>
}

/**
 * A condensed summary to insert: its text and the ids of its (parentless,
 * same-depth) children, in order.
 *
 * @since 0.1.0
 */
export interface NewCondensed {
  readonly sessionId: string
  readonly content: string
  readonly tier: Summary.Tier
  readonly tokenEstimate: number
  readonly childIds: ReadonlyArray<string>
}

/**
 * The new text of a summary (see `rewriteSummary`).
 *
 * @since 0.2.0
 */
export interface SummaryText {
  readonly content: string
  readonly tier: Summary.Tier
  readonly tokenEstimate: number
}

/**
 * How far a followed transcript file was read (`precis watch`): the bytes and
 * lines read (complete lines only), its format and the session it goes to,
 * and the hash of its first bytes (up to `byteOffset`, at most 1 KiB), which
 * tells a file that was replaced or rewritten from one that only grew.
 *
 * @since 0.3.0
 */
export interface FollowedFile {
  readonly path: string
  readonly sessionId: string
  readonly format: string
  readonly byteOffset: number
  readonly lineCount: number
  readonly headHash: string
}

/**
 * A session's folded session state as stored: the state encoded as JSON
 * (`SessionState.StateFromJson`) and the `seq` of the last turn folded into
 * it. A cache: the turns are the truth, and a state that cannot be read is
 * folded again from them.
 *
 * @since 0.3.0
 */
export interface StoredSessionState {
  readonly sessionId: string
  readonly state: string
  readonly lastSeq: number
}

/**
 * A session taken from the work queue by {@link Service.claimWork}: its id,
 * and its `stamp` at the claim (it moves with every append to the session),
 * which {@link Service.settleWork} compares to tell whether turns came in since.
 *
 * @since 0.3.0
 */
export interface WorkClaim {
  readonly sessionId: string
  readonly stamp: number
}

/**
 * One hit of {@link Service.search}: a turn or a summary whose text matches,
 * with a `snippet` of the text around the matched words (marked `«like this»`)
 * and its `rank` (FTS5's bm25: lower is better). A turn's hit names its
 * `seq` and the leaf summary covering it (`leafId`, absent while uncovered); a
 * summary's hit its `depth`.
 *
 * @since 0.3.0
 */
export class SearchHit extends Schema.Class<SearchHit>("@precis/compaction/SearchHit")({
  kind: Schema.Literal("turn", "summary"),
  id: Schema.String,
  sessionId: Schema.String,
  snippet: Schema.String,
  rank: Schema.Number,
  seq: Schema.optional(Schema.Int),
  depth: Schema.optional(Schema.Int),
  leafId: Schema.optional(Schema.String)
}) {}

/**
 * Options of {@link Service.search}.
 *
 * @since 0.3.0
 */
export interface SearchOptions {
  /** At most this many hits (default 20). */
  readonly limit?: number | undefined
}

/**
 * A store operation failed; `cause` is the underlying `SqlError` when there is
 * one. A store opened on a file names it in `filename`; the message then starts
 * with the file (`other.db: not a precis store ...`), else with the operation
 * (`MemoryStore.insertLeaf: ...`).
 *
 * @since 0.1.0
 */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly reason: string
  readonly cause?: unknown
  readonly filename?: string
}> {
  /** @since 0.1.0 */
  override get message(): string {
    return this.filename === undefined
      ? `MemoryStore.${this.operation}: ${this.reason}`
      : `${this.filename}: ${this.reason}`
  }
}

/**
 * A turn to append has the `id` of a turn already in the session (or of an
 * earlier turn of the same append) but a different role or content. Skipping
 * it, as an identical repeat is skipped, would lose it silently.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@precis/compaction"
 * new MemoryStore.TurnConflictError({ sessionId: "s", turnId: "t7", field: "content" }).message
 * // 'turn "t7" is already in session s with a different content'
 * ```
 * @since 0.1.0
 */
export class TurnConflictError extends Data.TaggedError("TurnConflictError")<{
  readonly sessionId: string
  readonly turnId: string
  /** What differs: the role, or (with the same role) the content. */
  readonly field: "role" | "content"
}> {
  /** @since 0.1.0 */
  override get message(): string {
    return `turn ${JSON.stringify(this.turnId)} is already in session ${this.sessionId} with a different ${this.field}`
  }
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
   * One transaction.
   */
  readonly appendTurns: (
    sessionId: string,
    turns: Iterable<ConversationTurn.ConversationTurn>
  ) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError | TurnConflictError>
  /**
   * Runs `self` in one transaction: every store write inside it (several
   * `appendTurns`, say) is committed together, or none is when `self` fails.
   * Writes inside it that are transactions of their own nest within it.
   */
  readonly withTransaction: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
  /** A session's turns in seq order, optionally within a seq range. */
  readonly turns: (sessionId: string, range?: SeqRange) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** The turns no leaf summary covers yet, in seq order. */
  readonly uncoveredTurns: (sessionId: string) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** One summary by id. */
  readonly summary: (id: string) => Effect.Effect<Option.Option<SummaryRecord.SummaryRecord>, StoreError>
  /** A session's summaries in conversation order, all or those of one depth. */
  readonly summaries: (
    sessionId: string,
    options?: { readonly depth?: number | undefined }
  ) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** The summaries without a parent in conversation order, all or those of one depth. */
  readonly parentless: (
    sessionId: string,
    options?: { readonly depth?: number | undefined }
  ) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** The children of a condensed summary, in order (none for a leaf). */
  readonly children: (summaryId: string) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** Drill-down: the raw turns below a summary (of any depth), in seq order. */
  readonly sourceTurns: (summaryId: string) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** The leaf covering the newest turns, if any. */
  readonly latestLeaf: (sessionId: string) => Effect.Effect<Option.Option<SummaryRecord.SummaryRecord>, StoreError>
  /**
   * Full-text search over turns and summaries, of one session or (`undefined`)
   * all: the best hits first. Every whitespace-separated term of `query` must
   * match (a term ending in `*` as a prefix); any other character is plain
   * text, never query syntax. A query without a word has no hits.
   */
  readonly search: (
    sessionId: string | undefined,
    query: string,
    options?: SearchOptions
  ) => Effect.Effect<ReadonlyArray<SearchHit>, StoreError>
  /**
   * Brings the full-text index of the turns up to date, returning how many
   * turns it indexed. SQLite indexes turns after `appendTurns` (which does not,
   * to keep appends fast): a writing store's `search` calls this first, and
   * Sleep Mode in idle time; call it after a bulk import so that a read-only
   * store (which cannot write the index) finds the new turns too. One write
   * transaction, and no write at all when nothing is left to index. A
   * read-only store, and PostgreSQL (whose indexes follow every write), index
   * nothing.
   *
   * @since 0.3.0
   */
  readonly indexSearch: Effect.Effect<number, StoreError>
  /** Every session, oldest first. */
  readonly sessions: Effect.Effect<ReadonlyArray<SessionInfo>, StoreError>
  /**
   * Inserts a leaf and its source links in one transaction. Leaves cover a
   * session's turns in order: `turnIds` must be the oldest uncovered turns, in
   * seq order; otherwise (a turn unknown, repeated, already covered or skipped)
   * it fails and writes nothing.
   */
  readonly insertLeaf: (leaf: NewLeaf) => Effect.Effect<SummaryRecord.SummaryRecord, StoreError>
  /**
   * Inserts a condensed summary, its source links and its children's
   * `parent_id` in one transaction. Depth, time range, seq range and
   * `descendant_count` (the number of summaries below it) come from the
   * children. Fails (writing nothing) unless every child exists in the session,
   * has no parent and all share one depth.
   */
  readonly insertCondensed: (node: NewCondensed) => Effect.Effect<SummaryRecord.SummaryRecord, StoreError>
  /**
   * Replaces the text, tier and token estimate of a summary in place (one
   * statement, so atomically): its place in the DAG (sources, parent,
   * children, ranges) is unchanged. Used to redo fallback summaries. Fails when
   * there is no such summary.
   */
  readonly rewriteSummary: (id: string, text: SummaryText) => Effect.Effect<SummaryRecord.SummaryRecord, StoreError>
  /** How far a followed file was read, if it was (see {@link FollowedFile}). */
  readonly followedFile: (path: string) => Effect.Effect<Option.Option<FollowedFile>, StoreError>
  /**
   * Records how far a followed file was read (replacing what was recorded).
   * Inside {@link Service.withTransaction} with the `appendTurns` of the lines
   * read, so the turns and the offset are committed together.
   */
  readonly saveFollowedFile: (file: FollowedFile) => Effect.Effect<void, StoreError>
  /** The stored session state of a session, if one was saved (see {@link StoredSessionState}). */
  readonly sessionState: (sessionId: string) => Effect.Effect<Option.Option<StoredSessionState>, StoreError>
  /**
   * Saves a session's state (one statement). A state folded over fewer turns
   * than the one stored (`lastSeq` smaller) is not saved: of two writers, the
   * one that folded further wins. Fails when the session does not exist.
   */
  readonly saveSessionState: (state: StoredSessionState) => Effect.Effect<void, StoreError>
  /**
   * Takes the next session of the work queue, if any: the sessions turns were
   * appended to since a worker last found them without work (`appendTurns`
   * queues its session in its own transaction). One indexed statement, however
   * many sessions the store holds: the least claimed session first, and the
   * claim moves it behind the others; claimers at the same moment get
   * different sessions (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite has a
   * single writer). A claim is no lease: take the session's lease
   * (`tryWithSessionLease`) before compacting it.
   */
  readonly claimWork: Effect.Effect<Option.Option<WorkClaim>, StoreError>
  /**
   * Takes the claimed session off the work queue, unless turns were appended
   * to it since the claim (it then stays, for a later claim). Call it holding
   * the session's lease, once the session has no work left. True when it was
   * taken off.
   */
  readonly settleWork: (claim: WorkClaim) => Effect.Effect<boolean, StoreError>
  /**
   * Runs `effect` while holding the session's lease: mutual exclusion per
   * session across fibers, processes and (for a shared database) machines.
   * Waits while another holder has it; a holder that dies without releasing it
   * loses it when it expires, while a live holder keeps it renewed. Released
   * when `effect` ends, however it ends. Fails with a `StoreError` when the
   * lease cannot be taken or is lost (the effect is then interrupted).
   */
  readonly withSessionLease: <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreError, R>
  /**
   * Runs `effect` holding the session's lease when it is free now, without
   * waiting: `Option.none()` (and `effect` never run) when another holder has
   * it. The lease is kept and released as by `withSessionLease`. Lets many
   * workers share out sessions, each skipping those another is working on.
   */
  readonly tryWithSessionLease: <A, E, R>(
    sessionId: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<Option.Option<A>, E | StoreError, R>
}

/**
 * The MemoryStore service tag. Provide it with a driver, such as
 * `SqliteMemoryStore.layer({ filename })`.
 *
 * @since 0.1.0
 */
export class MemoryStore extends Context.Tag("@precis/compaction/MemoryStore")<MemoryStore, Service>() {}
