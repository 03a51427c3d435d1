/**
 * Recall tools for an `@effect/ai` agent over the precis store: what the
 * summaries compress stays reachable. `search` finds turns and summaries by
 * full text, `expand` opens a summary (its children, or the turns below it),
 * paged and capped in tokens, and `describe` outlines a session's summary DAG.
 * {@link PrecisToolkit} is the toolkit, {@link layer} its handlers over the
 * store in context (`TurnStore`, `DagStore`, `SearchIndex` of `@precis/store`:
 * any driver, read-only is enough).
 *
 * @example
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import { PrecisToolkit } from "@precis/recall"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Effect, Layer } from "effect"
 * const answer = LanguageModel.generateText({
 *   prompt: "What did we decide about retries?",
 *   toolkit: PrecisToolkit.PrecisToolkit
 * }).pipe(
 *   Effect.provide(PrecisToolkit.layer.pipe(Layer.provide(SqliteStore.layer({ filename: "precis.db", readonly: true }))))
 * )
 * ```
 * @since 0.1.0
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { ActiveContext } from "@precis/compaction"
import { Summary, TokenEstimator } from "@precis/core"
import { DagStore, SearchIndex, type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Items from "./internal/items.js"
import * as Projects from "./internal/projects.js"
import { findCited, findSession } from "./internal/lookup.js"
import * as Reading from "./internal/read.js"
import { RecallError } from "./internal/recallError.js"
import * as RecallTool from "./internal/recallTool.js"

export {
  /**
   * A tool call that could not be answered: an unknown session or summary, or a
   * store failure. The model sees its `message` as the tool's result.
   *
   * @since 0.1.0
   */
  RecallError
} from "./internal/recallError.js"

/**
 * One entry of an {@link ExpandPage} (and of a {@link TurnsPage}): a child
 * summary or a turn, its content (cut when alone it exceeds the cap:
 * `truncated`) and its tokens.
 *
 * @since 0.1.0
 */
export const ExpandedItem = Items.ExpandedItem

/**
 * The result of `expand`: one page of a summary's children or source turns.
 * `nextOffset` is the `offset` of the next page (`null` after the last).
 *
 * @since 0.1.0
 */
export const ExpandPage = Schema.Struct({
  summaryId: Schema.String,
  depth: Schema.Int,
  of: Schema.Literal("children", "turns"),
  offset: Schema.Int,
  total: Schema.Int,
  tokens: Schema.Int,
  items: Schema.Array(ExpandedItem),
  nextOffset: Schema.NullOr(Schema.Int)
})

/**
 * A parentless summary in an {@link Outline}, with the start of its text.
 *
 * @since 0.1.0
 */
export const OutlineRoot = Schema.Struct({
  id: Schema.String,
  depth: Schema.Int,
  tier: Schema.optional(Summary.Tier),
  tokenEstimate: Schema.optional(Schema.Int),
  descendantCount: Schema.Int,
  timeRangeStart: Schema.optional(Schema.String),
  timeRangeEnd: Schema.optional(Schema.String),
  preview: Schema.String
})

/**
 * The result of `describe`: a session's DAG at a glance.
 *
 * @since 0.1.0
 */
export const Outline = Schema.Struct({
  sessionId: Schema.String,
  turns: Schema.Int,
  uncoveredTurns: Schema.Int,
  summaries: Schema.Int,
  depths: Schema.Array(Schema.Struct({ depth: Schema.Int, count: Schema.Int, tokens: Schema.Int })),
  tiers: Summary.TierCounts,
  roots: Schema.Array(OutlineRoot)
})

/** The hits `search` returns without `limit`. */
const DEFAULT_LIMIT = 10
/** The tokens of one `expand` page without `maxTokens`. */
const DEFAULT_MAX_TOKENS = 2000
/** The characters of a root's `preview`. */
const PREVIEW_CHARS = 200

/**
 * `search`: full-text search over turns and summaries.
 *
 * @since 0.1.0
 */
export const Search = RecallTool.make("search", {
  description: "Full-text search over the stored conversation turns and summaries, best first. " +
    "Every word must match (a word ending in * is a prefix). Matches are marked «like this». " +
    "A turn's hit names the leaf summary covering it. Limit it to one session, or to the sessions of a project " +
    "(the folder they ran in).",
  parameters: {
    query: Schema.String.annotations({ description: "the words to find" }),
    session: Schema.optional(Schema.String.annotations({ description: "one session id (default: every session)" })),
    project: Schema.optional(
      Schema.String.annotations({ description: "a project's folder: only the sessions held there (not with session)" })
    ),
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 50)).annotations({ description: `at most this many hits (default ${DEFAULT_LIMIT})` })
    )
  },
  success: Schema.Array(SearchIndex.SearchHit),
})

/**
 * `expand`: a page of a summary's children or source turns.
 *
 * @since 0.1.0
 */
export const Expand = RecallTool.make("expand", {
  description: "Open a summary: its child summaries (the default for a condensed summary) or the raw turns " +
    "below it (the default for a leaf), one page at a time within maxTokens; pass nextOffset as offset for more.",
  parameters: {
    summaryId: Schema.String.annotations({
      description: "the id of the summary to open, or its short id (the first 8 characters, as a cut marker names it)"
    }),
    of: Schema.optional(Schema.Literal("children", "turns").annotations({ description: "children or turns" })),
    offset: Schema.optional(Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "the first item (default 0)" })),
    maxTokens: Schema.optional(
      Schema.Int.pipe(Schema.between(50, 20_000)).annotations({
        description: `the page's token cap (default ${DEFAULT_MAX_TOKENS})`
      })
    )
  },
  success: ExpandPage
})

/**
 * `describe`: a session's summary DAG at a glance.
 *
 * @since 0.1.0
 */
export const Describe = RecallTool.make("describe", {
  description: "Outline a session's summary DAG: turn and summary counts, summaries and tokens per depth, " +
    "tiers, and the parentless summaries (the ones in context) with their ids and time ranges.",
  parameters: { session: Schema.String.annotations({ description: "the session id" }) },
  success: Outline,
})

/**
 * The result of `read`: the turn a citation names (`turnId`, its whole id)
 * and the turns around it, in order, within the token cap.
 *
 * @since 0.1.0
 */
export const TurnsPage = Schema.Struct({
  sessionId: Schema.String,
  turnId: Schema.String,
  tokens: Schema.Int,
  items: Schema.Array(ExpandedItem)
})

/**
 * `read`: a turn by its id, or by the short id the session state cites
 * (`[d35f0cc4]`), with the turns around it.
 *
 * @since 0.1.0
 */
export const Read = RecallTool.make("read", {
  description: "Read a turn word for word: by its id, the short id the session state cites in brackets " +
    "(d35f0cc4 for [d35f0cc4]) or the start of one turn's id, with the turns around it, within maxTokens.",
  parameters: {
    session: Schema.String.annotations({ description: "the session id" }),
    id: Schema.String.annotations({ description: "the turn's id, or the short id cited for it" }),
    around: Schema.optional(
      Schema.Int.pipe(Schema.between(0, 10)).annotations({
        description: `turns to show on each side (default ${Reading.defaultAround})`
      })
    ),
    maxTokens: Schema.optional(
      Schema.Int.pipe(Schema.between(50, Items.MAX_READ_TOKENS)).annotations({
        description: `the page's token cap (default ${DEFAULT_MAX_TOKENS})`
      })
    )
  },
  success: TurnsPage
})

/**
 * The result of `recent`: a page of a project's sessions, the most recent
 * first (`total` counts them all), each with its time span, first request
 * and outcome line.
 *
 * @since 0.1.0
 */
export const RecentPage = Projects.RecentPage

/** The sessions `recent` lists without `limit`. */
const DEFAULT_RECENT = 10

/**
 * `recent`: the sessions of a project, the most recent first.
 *
 * @since 0.1.0
 */
export const Recent = RecallTool.make("recent", {
  description: "The sessions held in a project's folder, the most recent first: each with its id, time span, " +
    "agent, first request and outcome (its last commit, else its next step or what it left open). " +
    "Open one with describe, read or search with its session id.",
  parameters: {
    project: Schema.String.annotations({ description: "the project's folder (the working directory of its sessions)" }),
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 50)).annotations({ description: `at most this many sessions (default ${DEFAULT_RECENT})` })
    ),
    offset: Schema.optional(Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "sessions to skip (default 0)" }))
  },
  success: RecentPage
})

/**
 * The recall toolkit: `search`, `expand`, `describe`, `read` and `recent`.
 *
 * @since 0.1.0
 */
export const PrecisToolkit = Toolkit.make(Search, Expand, Describe, Read, Recent)

const recallError = (error: StoreError.StoreError) => new RecallError({ message: error.message })

/**
 * The page of `items` from `offset`: as many as fit in `maxTokens`, at least
 * one (cut to the cap when alone it exceeds it).
 *
 * @since 0.1.0
 */
export const page = Items.page

/**
 * The handlers of {@link PrecisToolkit} over the store in context
 * (tokens counted by the `TokenEstimator` in context, by default the core
 * approximation).
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<
  Tool.HandlersFor<typeof PrecisToolkit.tools>,
  never,
  TurnStore.TurnStore | DagStore.DagStore | SearchIndex.SearchIndex
> = PrecisToolkit.toLayer(Effect.gen(function*() {
  const turnStore = yield* TurnStore.TurnStore
  const dag = yield* DagStore.DagStore
  const index = yield* SearchIndex.SearchIndex
  const estimator = yield* TokenEstimator.TokenEstimator
  const inStore = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.provideService(TurnStore.TurnStore, turnStore), Effect.provideService(SearchIndex.SearchIndex, index))
  const findSummary = (id: string) =>
    findCited(id, (prefix, limit) => dag.summariesWithIdPrefix(undefined, prefix, limit), { one: "summary", many: "summaries" })
  return {
    search: ({ limit, project, query, session }) =>
      project === undefined
        ? Effect.zipRight(
          session === undefined ? Effect.void : findSession(session),
          index.search(session, query, { limit: limit ?? DEFAULT_LIMIT })
        ).pipe(
          Effect.provideService(TurnStore.TurnStore, turnStore),
          Effect.catchTag("StoreError", (e) => Effect.fail(recallError(e)))
        )
        : session !== undefined
        ? Effect.fail(new RecallError({ message: "give session or project, not both" }))
        : Projects.searchProject(project, query, limit ?? DEFAULT_LIMIT).pipe(inStore),
    expand: ({ maxTokens, of, offset, summaryId }) =>
      Effect.gen(function*() {
        const summary = yield* findSummary(summaryId)
        const what = of ?? (summary.depth === 0 ? "turns" : "children")
        const items: ReadonlyArray<Items.Item> = what === "children"
          ? (yield* dag.children(summary.id)).map((s) => Items.summaryItem(estimator, s))
          : (yield* dag.sourceTurns(summary.id)).map((t) => Items.turnItem(estimator, t))
        const start = offset ?? 0
        const result = page(estimator, items, start, maxTokens ?? DEFAULT_MAX_TOKENS, summary.sessionId)
        return { summaryId: summary.id, depth: summary.depth, of: what, offset: start, total: items.length, ...result }
      }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(recallError(e)))),
    describe: ({ session }) =>
      Effect.gen(function*() {
        const info = yield* Effect.provideService(findSession(session), TurnStore.TurnStore, turnStore)
        const [summaries, uncovered] = yield* Effect.all([dag.summaries(session), turnStore.uncoveredTurns(session)])
        const depths = new Map<number, { count: number; tokens: number }>()
        let tiers = Summary.emptyTierCounts
        for (const s of summaries) {
          const at = depths.get(s.depth) ?? { count: 0, tokens: 0 }
          depths.set(s.depth, { count: at.count + 1, tokens: at.tokens + ActiveContext.summaryTokens(estimator, s) })
          if (s.tier !== undefined) tiers = Summary.incrementTier(tiers, s.tier)
        }
        return {
          sessionId: session,
          turns: info.turnCount,
          uncoveredTurns: uncovered.length,
          summaries: summaries.length,
          depths: [...depths].sort(([a], [b]) => a - b).map(([depth, at]) => ({ depth, ...at })),
          tiers,
          roots: summaries.filter((s) => s.parentId === undefined).map((s) => ({
            id: s.id,
            depth: s.depth,
            ...(s.tier === undefined ? {} : { tier: s.tier }),
            ...(s.tokenEstimate === undefined ? {} : { tokenEstimate: s.tokenEstimate }),
            descendantCount: s.descendantCount ?? 0,
            ...(s.timeRangeStart === undefined ? {} : { timeRangeStart: s.timeRangeStart }),
            ...(s.timeRangeEnd === undefined ? {} : { timeRangeEnd: s.timeRangeEnd }),
            preview: s.content.length > PREVIEW_CHARS ? `${s.content.slice(0, PREVIEW_CHARS - 1)}…` : s.content
          }))
        }
      }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(recallError(e)))),
    recent: ({ limit, offset, project }) => Projects.recent(project, limit ?? DEFAULT_RECENT, offset ?? 0).pipe(inStore),
    read: (request) =>
      Reading.read(request, request.maxTokens ?? DEFAULT_MAX_TOKENS).pipe(
        Effect.provideService(TurnStore.TurnStore, turnStore),
        Effect.provideService(TokenEstimator.TokenEstimator, estimator)
      )
  }
}))
