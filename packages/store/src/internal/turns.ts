/**
 * The queries of `TurnStore`: appending turns (idempotent, in multi-row
 * inserts), reading them, the session list and the session-state cache.
 *
 * @internal
 */
import type { SqlError } from "@effect/sql/SqlError"
import { ConversationTurn, ToolMetadata } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { StoreError, TurnConflictError } from "../StoreError.js"
import { TurnRow } from "../Tables.js"
import { type Service, type StoredSessionState, StoredTurn } from "../TurnStore.js"
import type { Env } from "./dialect.js"
import { decodeAll, isSqlError, now, pageClause, turnReads } from "./query.js"
import * as Rows from "./rows.js"

// Rows per multi-row INSERT: the 7,000 bound parameters of 1,000 turns stay below either
// engine's limit (SQLite 32,766, PostgreSQL 65,535); 200 made a 10 MB append ~15% slower.
const BATCH = 1000

const batches = <A>(items: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH))
  return out
}

const sessionRows = decodeAll(Rows.SessionRow)
const sameIdRows = decodeAll(TurnRow.pick("id", "role", "content"))
const nextSeqRows = decodeAll(Schema.Struct({ next: Schema.Int }))
const frontierRows = nextSeqRows

/** The turns one query reads of a whole session (see `bySeqPages`). */
const READ_PAGE = 8192
const sessionStateRows = decodeAll(Schema.Struct({
  session_id: Schema.String,
  last_seq: Schema.Union(Schema.Number, Schema.NumberFromString),
  state: Schema.String
}))

const TURN_COLUMNS = ["id", "session_id", "seq", "role", "content", "timestamp", "metadata"]

// Multi-row inserts with a fixed SQL text per batch size: the statement is
// prepared once and reused, and no per-row template is compiled.
const insertRows = (
  { dialect, sql }: Env,
  table: string,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<unknown>>
) =>
  Effect.forEach(
    batches(rows),
    (batch) => {
      const tuples = batch.map((_, row) =>
        `(${columns.map((_, column) => dialect.param(row * columns.length + column + 1)).join(", ")})`
      )
      const text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${tuples.join(", ")}`
      return sql.unsafe(text, batch.flat())
    },
    { discard: true }
  )

// The turns of the session with one of `ids` (none in a new session), to
// skip identical repeats and refuse conflicting ones. The ids go in as one
// JSON array: one statement text whatever their number. The ids come first
// (CROSS JOIN fixes SQLite's join order), each looked up by the (session, id)
// key: the other order reads every turn of the session once per id.
const sameIds = ({ dialect, sql }: Env, sessionId: string, ids: ReadonlyArray<string>) =>
  sameIdRows(sql.unsafe(
    `SELECT t.id, t.role, t.content FROM ${dialect.jsonElements(dialect.param(1))} j CROSS JOIN turns t
      WHERE t.session_id = ${dialect.param(2)} AND t.id = j.value`,
    [JSON.stringify(ids), sessionId]
  ))

// The turns of `incoming` to add, with their ids and seqs from `next` on;
// fails on a turn whose id is known with another role or content.
const toAdd = (
  sessionId: string,
  incoming: ReadonlyArray<ConversationTurn.ConversationTurn>,
  known: Map<string, { readonly role: string; readonly content: string }>,
  next: number
) =>
  Effect.suspend(() => {
    const added: Array<StoredTurn> = []
    for (const turn of incoming) {
      const id = turn.id ?? randomUUID()
      const prior = known.get(id)
      if (prior !== undefined) {
        if (prior.role === turn.role && prior.content === turn.content) continue
        return Effect.fail(
          new TurnConflictError({ sessionId, turnId: id, field: prior.role === turn.role ? "content" : "role" })
        )
      }
      known.set(id, turn)
      added.push(new StoredTurn({ ...turn, id, sessionId, seq: next + added.length }, true))
    }
    return Effect.succeed(added)
  })

// The rows of `turns` to insert, metadata as JSON text.
const rowsOf = (sessionId: string, added: ReadonlyArray<StoredTurn>) =>
  Effect.try({
    try: () =>
      added.map((t) => [
        t.id,
        sessionId,
        t.seq,
        t.role,
        t.content,
        t.timestamp ?? null,
        t.metadata === undefined ? null : JSON.stringify(t.metadata)
      ]),
    catch: (cause) => StoreError.invalidInput("TurnStore.appendTurns", "metadata is not JSON", cause)
  })

// What `added` says of the session's row: the first working directory, git
// root and agent its turns name, and the least and greatest timestamps.
const sessionFacts = (added: ReadonlyArray<StoredTurn>) => {
  let cwd: string | undefined
  let gitRoot: string | undefined
  let agent: string | undefined
  let first: string | undefined
  let last: string | undefined
  for (const turn of added) {
    const meta = ToolMetadata.read(turn.metadata)
    cwd ??= meta.cwd
    gitRoot ??= meta.gitRoot
    agent ??= meta.sourceFormat
    const at = turn.timestamp
    if (at !== undefined && at.length > 0) {
      if (first === undefined || at < first) first = at
      if (last === undefined || at > last) last = at
    }
  }
  return { cwd: cwd ?? null, gitRoot: gitRoot ?? null, agent: agent ?? null, first: first ?? null, last: last ?? null }
}

// Keeps the session's row in step with turns just added: its project, once
// named, stays; its time span grows.
const updateSession = ({ sql }: Env, sessionId: string, added: ReadonlyArray<StoredTurn>) => {
  const facts = sessionFacts(added)
  return sql`UPDATE sessions SET cwd = coalesce(cwd, ${facts.cwd}), git_root = coalesce(git_root, ${facts.gitRoot}),
      agent = coalesce(agent, ${facts.agent}),
      started_at = CASE WHEN started_at IS NULL OR started_at > ${facts.first} THEN coalesce(${facts.first}, started_at)
        ELSE started_at END,
      ended_at = CASE WHEN ended_at IS NULL OR ended_at < ${facts.last} THEN coalesce(${facts.last}, ended_at)
        ELSE ended_at END
    WHERE id = ${sessionId}`
}

// A turn's problem, naming the turn when there are several.
const prefixed = (index: number, count: number, problem: string | undefined) =>
  problem === undefined ? undefined : count === 1 ? problem : `turn ${index + 1} of ${count}: ${problem}`

const appendTurns = (env: Env): Service["appendTurns"] => {
  const { dialect, error, sql } = env
  return (sessionId, input) =>
    Effect.suspend(() => {
      const incoming = Array.from(input)
      // Core's one rule for what a turn may hold, the importers' too: checked before anything is written.
      const invalid = ConversationTurn.sessionIdProblem(sessionId) ?? incoming.reduce<string | undefined>(
        (found, turn, i) => found ?? prefixed(i, incoming.length, ConversationTurn.problem(turn)),
        undefined
      )
      if (invalid !== undefined) return Effect.fail(new StoreError({ operation: "TurnStore.appendTurns", reason: "InvalidInput", description: invalid }))
      if (incoming.length === 0) return Effect.succeed([])
      return Effect.gen(function*() {
        const createdAt = yield* now
        yield* sql`INSERT INTO sessions (id, created_at) VALUES (${sessionId}, ${createdAt}) ON CONFLICT (id) DO NOTHING`
        const last = yield* nextSeqRows(sql`SELECT coalesce(max(seq) + 1, 0) AS next
          FROM turns WHERE session_id = ${sessionId}`)
        const next = last[0]?.next ?? 0
        const ids = incoming.flatMap((t) => (t.id === undefined ? [] : [t.id]))
        const existing = next === 0 || ids.length === 0 ? [] : yield* sameIds(env, sessionId, ids)
        const added = yield* toAdd(sessionId, incoming, new Map(existing.map((row) => [row.id, row])), next)
        yield* insertRows(env, "turns", TURN_COLUMNS, yield* rowsOf(sessionId, added))
        if (added.length > 0) {
          yield* updateSession(env, sessionId, added)
          // Queues the session for the workers (or moves its stamp), with its turns.
          yield* sql`INSERT INTO session_work (session_id, stamp, claims) VALUES (${sessionId}, 1, 0)
            ON CONFLICT (session_id) DO UPDATE SET stamp = session_work.stamp + 1`
        }
        return added
      }).pipe(dialect.transaction)
    }).pipe(
      Effect.mapError((failure) =>
        failure._tag === "TurnConflictError" ? failure : error("TurnStore.appendTurns")(failure)
      )
    )
}

/**
 * `TurnStore` over `env`.
 *
 * @internal
 */
export const make = (env: Env): Service => {
  const { dialect, error, sql } = env
  const reads = turnReads(env)

  const withTransaction: Service["withTransaction"] = (self) =>
    dialect.transaction(self).pipe(
      Effect.catchIf(isSqlError, (failure) => Effect.fail(error("TurnStore.withTransaction")(failure)))
    )

  // A whole session's turns are read a page at a time (by `seq`, each page one query), with a yield
  // between pages: one query of 200k rows holds the thread for seconds, and Ctrl-C waits for it.
  const bySeqPages = (
    from: number | undefined,
    page: (cursor: number | undefined) => Effect.Effect<ReadonlyArray<StoredTurn>, SqlError | ParseResult.ParseError>
  ) =>
    Effect.gen(function*() {
      const out: Array<StoredTurn> = []
      let cursor = from
      while (true) {
        const rows = yield* page(cursor)
        for (const row of rows) out.push(row)
        if (rows.length < READ_PAGE) return out
        cursor = rows[rows.length - 1]!.seq + 1
        yield* Effect.yieldNow()
      }
    })

  const turns: Service["turns"] = (sessionId, range = {}) =>
    bySeqPages(range.from, (cursor) =>
      reads.select(
        sql`SELECT ${reads.columns} FROM turns t WHERE ${
          sql.and([
            sql`t.session_id = ${sessionId}`,
            ...(cursor === undefined ? [] : [sql`t.seq >= ${cursor}`]),
            ...(range.to === undefined ? [] : [sql`t.seq <= ${range.to}`])
          ])
        } ORDER BY t.seq LIMIT ${READ_PAGE}`
      )).pipe(Effect.mapError(error("TurnStore.turns")))

  // `substr` rather than LIKE: an id may hold `%` or `_`.
  const turnsWithIdPrefix: Service["turnsWithIdPrefix"] = (sessionId, prefix, limit = 20) =>
    reads.select(
      sql`SELECT ${reads.columns} FROM turns t
        WHERE t.session_id = ${sessionId} AND substr(t.id, 1, ${[...prefix].length}) = ${prefix}
        ORDER BY t.seq LIMIT ${Math.max(1, Math.floor(limit))}`
    ).pipe(Effect.mapError(error("TurnStore.turnsWithIdPrefix")))

  // The ids go in as one JSON array (one statement text whatever their number), each session's
  // opening read by the (session, seq) key.
  const openingTurns: Service["openingTurns"] = (sessionIds, count) =>
    reads.select(sql.unsafe(
      `SELECT t.id, t.session_id, t.seq, t.role, t.content, t.timestamp, t.metadata
        FROM ${dialect.jsonElements(dialect.param(1))} j CROSS JOIN turns t
        WHERE t.session_id = j.value AND t.seq < ${dialect.param(2)} ORDER BY j.key, t.seq`,
      [JSON.stringify(sessionIds), Math.max(0, Math.floor(count))]
    )).pipe(Effect.mapError(error("TurnStore.openingTurns")))

  const uncoveredTurns: Service["uncoveredTurns"] = (sessionId, page) =>
    (page !== undefined
      ? reads.select(
        sql`SELECT ${reads.columns} FROM turns t
        WHERE t.session_id = ${sessionId} AND t.seq >= ${reads.frontier(sessionId)} ORDER BY t.seq ${pageClause(env, page)}`
      )
      // Every uncovered turn: the frontier read once, then the turns from it a page at a time.
      : Effect.flatMap(
        frontierRows(sql`SELECT ${reads.frontier(sessionId)} AS next`),
        (rows) =>
          bySeqPages(rows[0]?.next ?? 0, (cursor) =>
            reads.select(
              sql`SELECT ${reads.columns} FROM turns t
              WHERE t.session_id = ${sessionId} AND t.seq >= ${cursor ?? 0} ORDER BY t.seq LIMIT ${READ_PAGE}`
            ))
      )).pipe(Effect.mapError(error("TurnStore.uncoveredTurns")))

  const sessionColumns = sql`id, created_at, cwd, git_root, agent, started_at, ended_at,
    (SELECT CAST(count(*) AS INTEGER) FROM turns t WHERE t.session_id = sessions.id) AS turns,
    (SELECT CAST(count(*) AS INTEGER) FROM summaries s WHERE s.session_id = sessions.id) AS summaries`

  const sessions: Service["sessions"] = Effect.map(
    sessionRows(sql`SELECT ${sessionColumns} FROM sessions ORDER BY created_at, id`),
    (rows) => rows.map(Rows.toSessionInfo)
  ).pipe(Effect.mapError(error("TurnStore.sessions")))

  const projectSessions: Service["projectSessions"] = (directory) =>
    Effect.map(
      sessionRows(sql`SELECT ${sessionColumns} FROM sessions WHERE cwd = ${directory} OR git_root = ${directory}
        ORDER BY coalesce(ended_at, created_at) DESC, id DESC`),
      (rows) => rows.map(Rows.toSessionInfo)
    ).pipe(Effect.mapError(error("TurnStore.projectSessions")))

  const sessionState: Service["sessionState"] = (sessionId) =>
    Effect.map(
      sessionStateRows(sql`SELECT session_id, last_seq, state FROM session_state WHERE session_id = ${sessionId}`),
      (rows) =>
        Option.map(Option.fromNullable(rows[0]), (row): StoredSessionState => ({
          sessionId: row.session_id,
          state: row.state,
          lastSeq: row.last_seq
        }))
    ).pipe(Effect.mapError(error("TurnStore.sessionState")))

  const saveSessionState: Service["saveSessionState"] = (saved) =>
    Effect.flatMap(
      now,
      (updatedAt) =>
        sql`INSERT INTO session_state (session_id, last_seq, state, updated_at)
          VALUES (${saved.sessionId}, ${saved.lastSeq}, ${saved.state}, ${updatedAt})
          ON CONFLICT (session_id) DO UPDATE SET last_seq = excluded.last_seq, state = excluded.state,
            updated_at = excluded.updated_at
          WHERE session_state.last_seq <= excluded.last_seq`
    ).pipe(Effect.asVoid, Effect.mapError(error("TurnStore.saveSessionState")))

  return {
    appendTurns: appendTurns(env),
    withTransaction,
    turns,
    turnsWithIdPrefix,
    openingTurns,
    uncoveredTurns,
    sessions,
    projectSessions,
    sessionState,
    saveSessionState
  }
}
