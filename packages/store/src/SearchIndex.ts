/**
 * Full-text search over the stored turns and summaries (FTS5 on SQLite, GIN
 * indexes on PostgreSQL).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
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
  /**
   * How long the search may take (default {@link defaultTimeout}): past it,
   * PostgreSQL cancels it and it fails with a `StoreError` saying so. SQLite
   * runs a statement to its end (see {@link Service.search}).
   */
  readonly timeout?: Duration.DurationInput | undefined
}

/**
 * The longest query {@link Service.search} takes, in characters.
 *
 * @since 0.1.0
 */
export const maxQueryLength = 1000

/**
 * The most different terms {@link Service.search} takes: each term is a
 * pass over its index, so a query of thousands of words would hold the
 * database for minutes.
 *
 * @since 0.1.0
 */
export const maxQueryTerms = 16

/**
 * How long a search may take when {@link SearchOptions.timeout} is not given.
 *
 * @since 0.1.0
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(10)

/**
 * A term of a search query: a word to find as it is written, or the start of
 * words (`prefix`, typed `word*`; `text` is without the `*`).
 *
 * @since 0.1.0
 */
export interface QueryTerm {
  readonly text: string
  readonly prefix: boolean
}

/**
 * The terms of a search query, or why it is refused. Terms are separated by
 * whitespace and control characters (a NUL is a separator, never text); a
 * term without a letter or digit holds nothing to find and is dropped, and
 * so is a repeat of an earlier term (in any case). A query longer than
 * {@link maxQueryLength} characters, or of more than {@link maxQueryTerms}
 * terms, is refused: this is the rule {@link Service.search} applies, for a
 * caller that answers a refused query differently from a failed search.
 *
 * @example
 * ```ts
 * import { SearchIndex } from "@precis/store"
 * SearchIndex.queryTerms("flaky Flaky test* \u0000 -")
 * // Either.right([{ text: "flaky", prefix: false }, { text: "test", prefix: true }])
 * ```
 * @since 0.1.0
 */
export const queryTerms = (query: string): Either.Either<ReadonlyArray<QueryTerm>, string> => {
  if (query.length > maxQueryLength) {
    return Either.left(`a search query is at most ${maxQueryLength} characters (got ${query.length})`)
  }
  const seen = new Set<string>()
  const terms: Array<QueryTerm> = []
  for (const raw of query.split(/[\s\p{Cc}]+/u)) {
    const prefix = raw.length > 1 && raw.endsWith("*")
    const text = prefix ? raw.replace(/\*+$/u, "") : raw
    if (!/[\p{L}\p{N}]/u.test(text)) continue
    const key = `${prefix ? "*" : " "}${text.toLowerCase()}`
    if (seen.has(key)) continue
    seen.add(key)
    terms.push({ text, prefix })
  }
  return terms.length > maxQueryTerms
    ? Either.left(`a search takes at most ${maxQueryTerms} different words (got ${terms.length})`)
    : Either.right(terms)
}

/**
 * @since 0.1.0
 */
export interface Service {
  /**
   * Full-text search over turns and summaries, of one session or (`undefined`)
   * all: the best hits first. Every whitespace-separated term of `query` must
   * match (a term ending in `*` as a prefix); any other character is plain
   * text, never query syntax. A query without a word has no hits; one that
   * {@link queryTerms} refuses (too long, too many words) fails, and so does
   * a search that takes longer than its `timeout` on PostgreSQL (which
   * cancels it). SQLite cannot stop a statement it started: the query's
   * bounds keep it short (about 2 s for the worst query over 500,000 turns),
   * and a caller that must never wait on it runs it on another thread.
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
