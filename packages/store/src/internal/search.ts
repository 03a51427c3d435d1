/**
 * Full-text search: over SQLite's FTS5 indexes `turns_fts` and `summaries_fts`,
 * and over PostgreSQL's GIN indexes of `to_tsvector('simple', content)` (both
 * created by the `4_search` migration; since `7_search_mark`, SQLite indexes
 * turns after they are written, before a search: {@link indexTurns}). A query
 * is read once, by `SearchIndex.queryTerms` (its bounds included), then
 * written for each dialect: whatever a person (or a model) types, the FTS5
 * expression is valid, as every term is quoted (its `"` doubled), so operators
 * (`AND`, `OR`, `NOT`, `NEAR`), column filters, `-`, `^`, brackets and quotes
 * are plain text; a term ending in `*` is a prefix query.
 *
 * The query's bounds (terms, length) keep the worst search short: repeated
 * terms are read once, so `pdf pdf pdf …` is one pass over one index entry.
 * PostgreSQL also cancels a statement past the search's timeout
 * (`statement_timeout`); SQLite cannot stop a statement it started
 * (better-sqlite3 runs it on the calling thread, uninterruptibly), so a
 * caller that must never wait on one runs it on another thread.
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { OptionError, OptionSchema } from "@precis/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import {
  defaultTimeout,
  type QueryTerm,
  queryTerms,
  SearchHit,
  type SearchOptions,
  type Service
} from "../SearchIndex.js"
import { StoreError } from "../StoreError.js"
import * as Rows from "./rows.js"

const operation = "SearchIndex.search"

/**
 * The FTS5 expression matching every term (all must match).
 *
 * @internal
 */
export const matchExpression = (terms: ReadonlyArray<QueryTerm>): string =>
  terms.map((term) => `"${term.text.replaceAll("\"", "\"\"")}"${term.prefix ? "*" : ""}`).join(" ")

const decodeLimit = Schema.decodeUnknownEither(OptionSchema.int({ min: 0 }))

/** What a search runs with: its terms, its limit and how long it may take, or why it does not run. */
interface Plan {
  readonly terms: ReadonlyArray<QueryTerm>
  readonly limit: number
  readonly millis: number
}

// The limit (one that is not a count of hits fails here, before any SQL: SQLite would fail on NaN
// with "datatype mismatch"), the terms and the time of a search.
const planOf = (query: string, options: SearchOptions): Either.Either<Plan, StoreError> =>
  Either.gen(function*() {
    const limit = yield* Either.mapLeft(decodeLimit(options.limit ?? 20), (error) =>
      new StoreError({ operation, reason: "InvalidInput", description: `limit ${OptionError.problemsOf(error)[0]?.message}` }))
    const terms = yield* Either.mapLeft(queryTerms(query), (description) => new StoreError({ operation, reason: "InvalidInput", description }))
    const millis = Math.max(1, Math.ceil(Duration.toMillis(Duration.decode(options.timeout ?? defaultTimeout))))
    return { terms, limit, millis }
  })

const tooLong = (millis: number, cause?: unknown) =>
  new StoreError({
    operation,
    reason: "Timeout",
    description: `the search took longer than ${Duration.format(Duration.millis(millis))}: search for fewer or rarer words`,
    ...(cause === undefined ? {} : { cause })
  })

/** Marks around the matched words of a hit's snippet. */
export const highlight = { open: "«", close: "»", ellipsis: "…" } as const

const hitRows = Schema.decodeUnknown(Schema.Array(Rows.HitRow))

// The snippet marks matches with `highlight`, about a dozen tokens around them.
const snippetOf = (fts: string) =>
  `snippet(${fts}, 0, '${highlight.open}', '${highlight.close}', '${highlight.ellipsis}', 12)`

const countRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Int })))

// How many turns are above the mark (not indexed yet): 0 when the index is up to date.
const lagging = `SELECT CAST(count(*) AS INTEGER) AS n FROM turns
  WHERE rowid > (SELECT last_rowid FROM turns_fts_mark)`

/**
 * `SearchIndex.indexSearch` over `sql` (SQLite): indexes the turns above the
 * mark (`turns_fts_mark`) in one statement and moves the mark to the largest
 * rowid, in one write transaction (`transaction`), and returns how many turns
 * it indexed. A first read, outside any transaction, makes it cheap when there
 * is nothing to do (no write lock taken).
 *
 * @internal
 */
export const indexTurns = (
  sql: SqlClient.SqlClient,
  transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
): Effect.Effect<number, SqlError | ParseError> => {
  const count = Effect.map(Effect.flatMap(sql.unsafe(lagging), countRows), (rows) => rows[0]?.n ?? 0)
  const catchUp = Effect.gen(function*() {
    // Again under the write lock: another writer may have caught up meanwhile.
    const n = yield* count
    if (n === 0) return 0
    yield* sql.unsafe(`INSERT INTO turns_fts (rowid, content)
      SELECT rowid, content FROM turns WHERE rowid > (SELECT last_rowid FROM turns_fts_mark)`)
    yield* sql.unsafe(`UPDATE turns_fts_mark SET last_rowid = (SELECT max(rowid) FROM turns)`)
    return n
  })
  return Effect.flatMap(count, (n) => (n === 0 ? Effect.succeed(0) : transaction(catchUp)))
}

/**
 * `SearchIndex.search` over `sql` (SQLite): both FTS tables in one list ranked
 * by bm25; a turn's leaf is the depth-0 summary listing it among its sources.
 * `catchUp` (a writing store's {@link indexTurns}) runs first, so the turns
 * appended until then are found; a read-only store cannot write and searches
 * what writers have indexed. Failures go through `error` (the driver's
 * `StoreError` for `search`).
 *
 * @internal
 */
export const make = (
  sql: SqlClient.SqlClient,
  error: (cause: SqlError | ParseError | StoreError) => StoreError,
  catchUp: Effect.Effect<unknown, SqlError | ParseError> = Effect.void
): Service["search"] =>
(sessionId, query, options = {}) => {
  const plan = planOf(query, options)
  if (Either.isLeft(plan)) return Effect.fail(error(plan.left))
  const { limit, terms } = plan.right
  if (terms.length === 0) return Effect.succeed([])
  const match = matchExpression(terms)
  const inSession = (alias: string) => (sessionId === undefined ? "" : `AND ${alias}.session_id = ?`)
  const sessionParam = sessionId === undefined ? [] : [sessionId]
  return Effect.zipRight(catchUp, sql.unsafe(
    `SELECT 'turn' AS kind, t.id, t.session_id, ${snippetOf("turns_fts")} AS snippet, bm25(turns_fts) AS rank,
        t.seq AS seq, NULL AS depth,
        (SELECT ss.summary_id FROM summary_sources ss JOIN summaries l ON l.id = ss.summary_id
          WHERE ss.turn_id = t.id AND l.session_id = t.session_id) AS leaf_id
      FROM turns_fts JOIN turns t ON t.rowid = turns_fts.rowid
      WHERE turns_fts MATCH ? ${inSession("t")}
    UNION ALL
    SELECT 'summary', s.id, s.session_id, ${snippetOf("summaries_fts")}, bm25(summaries_fts),
        NULL, s.depth, NULL
      FROM summaries_fts JOIN summaries s ON s.rowid = summaries_fts.rowid
      WHERE summaries_fts MATCH ? ${inSession("s")}
    ORDER BY rank, kind DESC, id LIMIT ?`,
    [match, ...sessionParam, match, ...sessionParam, limit]
  )).pipe(toHits(sessionId, error))
}

// The rows of either dialect's query as hits, in one span.
const toHits = (sessionId: string | undefined, error: (cause: SqlError | ParseError | StoreError) => StoreError) =>
<E extends SqlError | ParseError | StoreError>(query: Effect.Effect<ReadonlyArray<unknown>, E>) =>
  query.pipe(
    Effect.flatMap(hitRows),
    Effect.map((rows) =>
      rows.map((row) =>
        new SearchHit({
          kind: row.kind,
          id: row.id,
          sessionId: row.session_id,
          snippet: row.snippet,
          rank: row.rank,
          ...(row.seq === null ? {} : { seq: row.seq }),
          ...(row.depth === null ? {} : { depth: row.depth }),
          ...(row.leaf_id === null ? {} : { leafId: row.leaf_id })
        }, true)
      )
    ),
    Effect.mapError(error),
    Effect.withSpan("SearchIndex.search", { attributes: { "precis.session_id": sessionId ?? "*" } })
  )

/**
 * A term of a PostgreSQL search and the `tsquery` function that reads it.
 *
 * @internal
 */
export interface TsTerm {
  readonly fn: "phraseto_tsquery" | "to_tsquery"
  readonly text: string
}

/**
 * The terms of a query for PostgreSQL, each with the `tsquery` function that
 * reads it: a plain term goes to `phraseto_tsquery`, which parses it as text
 * (so `src/app.ts` matches as PostgreSQL's parser indexed it, and no operator a
 * user types changes its meaning); a prefix term is a prefix query of its
 * letters and digits.
 *
 * @internal
 */
export const tsTerms = (terms: ReadonlyArray<QueryTerm>): ReadonlyArray<TsTerm> =>
  terms.map((term): TsTerm =>
    term.prefix
      ? { fn: "to_tsquery", text: `${(term.text.match(/[\p{L}\p{N}]+/gu) ?? []).join("")}:*` }
      : { fn: "phraseto_tsquery", text: term.text }
  )

const headline = `'StartSel=${highlight.open}, StopSel=${highlight.close}, FragmentDelimiter=${highlight.ellipsis}, ` +
  `MaxWords=16, MinWords=6, MaxFragments=1'`

// PostgreSQL's code of a statement it cancelled (here: past `statement_timeout`).
const QUERY_CANCELED = "57014"

const cancelled = (cause: SqlError): boolean =>
  typeof cause.cause === "object" && cause.cause !== null && "code" in cause.cause &&
  cause.cause.code === QUERY_CANCELED

/**
 * `SearchIndex.search` over `sql` (PostgreSQL): the same hits as {@link make},
 * ranked by `ts_rank` (negated, so that lower is better as with bm25), the
 * snippet by `ts_headline`; one statement, cancelled by PostgreSQL once past
 * the search's timeout (`SET LOCAL statement_timeout` in its transaction).
 *
 * @internal
 */
export const makePg = (
  sql: SqlClient.SqlClient,
  error: (cause: SqlError | ParseError | StoreError) => StoreError
): Service["search"] =>
(sessionId, query, options = {}) => {
  const plan = planOf(query, options)
  if (Either.isLeft(plan)) return Effect.fail(error(plan.left))
  const { limit, millis } = plan.right
  const terms = tsTerms(plan.right.terms)
  if (terms.length === 0) return Effect.succeed([])
  const match = terms.map((term, i) => `${term.fn}('simple', $${i + 1})`).join(" && ")
  const next = terms.length + 1
  const inSession = (alias: string) => (sessionId === undefined ? "" : `AND ${alias}.session_id = $${next}`)
  const vector = (alias: string) => `to_tsvector('simple', ${alias}.content)`
  const statement = sql.unsafe(
    `WITH q AS (SELECT ${match} AS query)
    SELECT 'turn' AS kind, t.id, t.session_id, ts_headline('simple', t.content, q.query, ${headline}) AS snippet,
        -ts_rank(${vector("t")}, q.query)::float8 AS rank, t.seq AS seq, NULL::int AS depth,
        (SELECT ss.summary_id FROM summary_sources ss JOIN summaries l ON l.id = ss.summary_id
          WHERE ss.turn_id = t.id AND l.session_id = t.session_id LIMIT 1) AS leaf_id
      FROM turns t, q WHERE ${vector("t")} @@ q.query ${inSession("t")}
    UNION ALL
    SELECT 'summary', s.id, s.session_id, ts_headline('simple', s.content, q.query, ${headline}),
        -ts_rank(${vector("s")}, q.query)::float8, NULL::int, s.depth, NULL
      FROM summaries s, q WHERE ${vector("s")} @@ q.query ${inSession("s")}
    ORDER BY rank, kind DESC, id LIMIT $${sessionId === undefined ? next : next + 1}`,
    [...terms.map((term) => term.text), ...(sessionId === undefined ? [] : [sessionId]), limit]
  )
  // `SET` takes no bound parameter: `millis` is an integer of ours.
  return sql.withTransaction(Effect.zipRight(sql.unsafe(`SET LOCAL statement_timeout = ${millis}`), statement)).pipe(
    Effect.catchIf(cancelled, (cause) => Effect.fail(tooLong(millis, cause))),
    toHits(sessionId, error)
  )
}
