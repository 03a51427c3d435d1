/**
 * Full-text search over the stored turns and summaries (FTS5 on SQLite, GIN
 * indexes on PostgreSQL).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { StoreError } from "./StoreError.js"

/**
 * One hit of {@link Service.search}: a turn or a summary whose text matches,
 * with a `snippet` of the text around the matched words (marked `«like this»`)
 * and its `rank` (FTS5's bm25: lower is better). A turn's hit names its
 * `seq` and the leaf summary covering it (`leafId`, absent while uncovered); a
 * summary's hit its `depth`.
 *
 * @since 0.1.0
 */
export class SearchHit extends Schema.Class<SearchHit>("@precis/store/SearchHit")({
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
 * @since 0.1.0
 */
export interface SearchOptions {
  /** At most this many hits (default 20). */
  readonly limit?: number | undefined
}

/**
 * @since 0.1.0
 */
export interface Service {
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
   */
  readonly indexSearch: Effect.Effect<number, StoreError>
}

/**
 * The search index of the store, provided by a driver layer with the other
 * parts of the port (`Store.Store`).
 *
 * @since 0.1.0
 */
export class SearchIndex extends Context.Tag("@precis/store/SearchIndex")<SearchIndex, Service>() {}
