/**
 * The summary DAG: leaf summaries over a session's oldest turns, condensed
 * summaries over their parentless siblings, and the drill-down from any
 * summary to the turns below it.
 *
 * @since 0.1.0
 */
import type { Summary, SummaryRecord } from "@precis/core"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { StoreError } from "./StoreError.js"
import type { Page, StoredTurn } from "./TurnStore.js"

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
  /** The keys of its Also line (`Summary.alsoKeys`); none when left out. */
  readonly alsoKeys?: ReadonlyArray<string> | undefined
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
  /** The keys of its Also line (`Summary.alsoKeys`); none when left out. */
  readonly alsoKeys?: ReadonlyArray<string> | undefined
  readonly childIds: ReadonlyArray<string>
}

/**
 * The new text of a summary (see `rewriteSummary`).
 *
 * @since 0.1.0
 */
export interface SummaryText {
  readonly content: string
  readonly tier: Summary.Tier
  readonly tokenEstimate: number
  /** The keys of its Also line (`Summary.alsoKeys`); none when left out. */
  readonly alsoKeys?: ReadonlyArray<string> | undefined
}

/**
 * Which summaries of a session to read: all, or those of one depth.
 *
 * @since 0.1.0
 */
export interface DepthOptions {
  readonly depth?: number | undefined
  /** One page of the summaries, in conversation order. */
  readonly page?: Page | undefined
}

/**
 * @since 0.1.0
 */
export interface Service {
  /** One summary by id. */
  readonly summary: (id: string) => Effect.Effect<Option.Option<SummaryRecord.SummaryRecord>, StoreError>
  /**
   * The summaries whose id starts with `prefix` (a whole id, or the short id a
   * marker cites: `SessionState.shortId`), of one session or (`undefined`) of
   * every session, by session then in conversation order, at most `limit`
   * (default 20).
   */
  readonly summariesWithIdPrefix: (
    sessionId: string | undefined,
    prefix: string,
    limit?: number
  ) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** A session's summaries in conversation order, all or those of one depth. */
  readonly summaries: (
    sessionId: string,
    options?: DepthOptions
  ) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** The summaries without a parent in conversation order, all or those of one depth. */
  readonly parentless: (
    sessionId: string,
    options?: DepthOptions
  ) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** The children of a condensed summary, in order (none for a leaf). */
  readonly children: (summaryId: string) => Effect.Effect<ReadonlyArray<SummaryRecord.SummaryRecord>, StoreError>
  /** Drill-down: the raw turns below a summary (of any depth), in seq order (one page of them with `page`). */
  readonly sourceTurns: (summaryId: string, page?: Page) => Effect.Effect<ReadonlyArray<StoredTurn>, StoreError>
  /** The leaf covering the newest turns, if any. */
  readonly latestLeaf: (sessionId: string) => Effect.Effect<Option.Option<SummaryRecord.SummaryRecord>, StoreError>
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
}

/**
 * The summary DAG of the store, provided by a driver layer with the other
 * parts of the port (`Store.Store`).
 *
 * @since 0.1.0
 */
export class DagStore extends Context.Tag("@precis/store/DagStore")<DagStore, Service>() {}
