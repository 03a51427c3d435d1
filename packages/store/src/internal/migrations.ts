/**
 * The schema, as migrations, for SQLite and PostgreSQL (the same tables and
 * columns; PostgreSQL has no `leases` table). Table and column names of `turns`,
 * `summaries` and `summary_sources` are part of the public contract (users may
 * query them); `sessions` (with its project columns since `9_projects`), `leases`, `session_state`, `session_work`,
 * `turns_fts_mark`, `summaries.first_seq/last_seq` and the indexes are ours.
 * Other tables are their creators' business. Id 3 is taken: it created
 * `followed_files`, which the CLI then kept as its own table; since
 * `8_followed_files` it is the store's again (the `FollowedFiles` port), the
 * CLI's table and rows adopted. Before writing, a store checks that the file is one of ours
 * and not newer than this version (`internal/usable.ts`).
 *
 * @internal
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AlsoLine } from "@precis/core"

const initial = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE sessions (
    id TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL
  )`
  // A turn's `id` is its source id when the importer gave one (unique per session,
  // which makes appends idempotent), otherwise a generated UUID.
  yield* sql`CREATE TABLE turns (
    id TEXT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    timestamp TEXT,
    metadata TEXT,
    PRIMARY KEY (session_id, id),
    UNIQUE (session_id, seq)
  )`
  // `first_seq`/`last_seq`: the seq range of the turns below a node; it orders
  // summaries in conversation order even when timestamps are missing.
  yield* sql`CREATE TABLE summaries (
    id TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    depth INTEGER NOT NULL,
    content TEXT NOT NULL,
    tier TEXT NOT NULL,
    token_estimate INTEGER NOT NULL,
    parent_id TEXT REFERENCES summaries(id),
    time_range_start TEXT,
    time_range_end TEXT,
    descendant_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL
  )`
  // One row per source: exactly one of `turn_id` (leaves) and `child_summary_id`
  // (condensed summaries) is set; `turn_id` is a turn id of the summary's session.
  yield* sql`CREATE TABLE summary_sources (
    summary_id TEXT NOT NULL REFERENCES summaries(id),
    position INTEGER NOT NULL,
    turn_id TEXT,
    child_summary_id TEXT REFERENCES summaries(id),
    PRIMARY KEY (summary_id, position),
    CHECK ((turn_id IS NULL) <> (child_summary_id IS NULL))
  )`
  yield* sql`CREATE INDEX summaries_session_depth ON summaries (session_id, depth, first_seq)`
  yield* sql`CREATE INDEX summaries_parentless ON summaries (session_id, first_seq) WHERE parent_id IS NULL`
  yield* sql`CREATE INDEX summaries_parent ON summaries (parent_id)`
  yield* sql`CREATE INDEX summary_sources_turn ON summary_sources (turn_id) WHERE turn_id IS NOT NULL`
})

// One row per session being compacted: who holds it and until when (epoch
// milliseconds); an expired row is free to take over (see internal/lease.ts).
// PostgreSQL has no such table: its leases are advisory locks
// (internal/advisoryLease.ts), and the migration keeps the versions in step.
const leases = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const create: Effect.Effect<unknown, SqlError> = sql.onDialectOrElse({
    pg: () => Effect.void,
    orElse: () => sql`CREATE TABLE leases (
    session_id TEXT PRIMARY KEY NOT NULL,
    holder TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  )`
  })
  yield* create
})

// Full-text search (FTS5) over turns and summaries: external-content tables
// over `turns.content` and `summaries.content`, keyed by the rowid, kept in step
// by triggers on every write (ours and anyone's), and back-filled from the rows
// already there (since `7_search_mark`, turns are indexed after the write: see there). A VACUUM may renumber the rowids of these tables (they have no
// INTEGER PRIMARY KEY): `INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')`
// (and the same for `summaries_fts`) re-indexes them.
// PostgreSQL: GIN indexes over the `simple` text search configuration of the
// same columns (internal/search.ts queries them), kept in step by PostgreSQL.
const search = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const create: Effect.Effect<unknown, SqlError, SqlClient.SqlClient> = sql.onDialectOrElse({
    pg: () =>
      Effect.forEach(["turns", "summaries"], (table) =>
        sql.unsafe(`CREATE INDEX ${table}_fts ON ${table} USING gin (to_tsvector('simple', content))`)),
    orElse: () => sqliteSearch
  })
  yield* create
})

const sqliteSearch = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["turns", "summaries"]) {
    const fts = `${table}_fts`
    yield* sql.unsafe(
      `CREATE VIRTUAL TABLE ${fts} USING fts5(content, content='${table}', tokenize='unicode61 remove_diacritics 2')`
    )
    yield* sql.unsafe(`CREATE TRIGGER ${table}_fts_insert AFTER INSERT ON ${table} BEGIN
      INSERT INTO ${fts} (rowid, content) VALUES (new.rowid, new.content);
    END`)
    yield* sql.unsafe(`CREATE TRIGGER ${table}_fts_delete AFTER DELETE ON ${table} BEGIN
      INSERT INTO ${fts} (${fts}, rowid, content) VALUES ('delete', old.rowid, old.content);
    END`)
    yield* sql.unsafe(`CREATE TRIGGER ${table}_fts_update AFTER UPDATE OF content ON ${table} BEGIN
      INSERT INTO ${fts} (${fts}, rowid, content) VALUES ('delete', old.rowid, old.content);
      INSERT INTO ${fts} (rowid, content) VALUES (new.rowid, new.content);
    END`)
    yield* sql.unsafe(`INSERT INTO ${fts} (${fts}) VALUES ('rebuild')`)
  }
})

// One row per session: its folded session state (SessionState, as JSON) and
// the seq of the last turn folded into it, so that assembling a context folds
// only the turns after it (see TurnStore.StoredSessionState).
const sessionState = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE session_state (
    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions(id),
    last_seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
})

// The work queue of `CompactionManager.compactAll`: one row per session that
// may have compaction work, so that workers find work with one indexed query
// instead of reading every session. `appendTurns` adds the row, or bumps its
// `stamp`, in the transaction of the turns; a worker that finds the session
// without work deletes it unless `stamp` moved since its claim (turns came in
// meanwhile); `claims` counts the claims, and orders the queue (the least
// claimed first), so a claimed session goes behind the others. Sessions
// already there are queued, and the first worker to claim one without work
// drops it.
const workQueue = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE session_work (
    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions(id),
    stamp INTEGER NOT NULL,
    claims INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX session_work_next ON session_work (claims, session_id)`
  yield* sql`INSERT INTO session_work (session_id, stamp, claims) SELECT id, 1, 0 FROM sessions`
})

// The turns' search index off the write path (SQLite; PostgreSQL's GIN indexes
// are its own business, so nothing there): appending turns no longer indexes
// them. `turns_fts_mark` holds the largest rowid of `turns` the index has caught
// up to; `indexSearch` (run by a writing store before every search, and by
// Sleep Mode in idle time) indexes the rows above it in one statement and moves
// it. The triggers only touch the index for rows at or below the mark: a row
// inserted there (a rowid reused after the largest rows were deleted) is
// indexed at once, and deleting or updating a row above it sends nothing (an
// FTS5 'delete' of a row the index does not hold would corrupt it). What the
// store holds already is indexed: the mark starts at the largest rowid.
// After a `rebuild` of `turns_fts`, set the mark to `(SELECT max(rowid) FROM turns)`.
const searchMark = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const create: Effect.Effect<unknown, SqlError, SqlClient.SqlClient> = sql.onDialectOrElse({
    pg: () => Effect.void,
    orElse: () => sqliteSearchMark
  })
  yield* create
})

const sqliteSearchMark = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE turns_fts_mark (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    last_rowid INTEGER NOT NULL
  )`
  yield* sql`INSERT INTO turns_fts_mark (id, last_rowid) SELECT 0, coalesce(max(rowid), 0) FROM turns`
  const indexed = (row: "new" | "old") => `${row}.rowid <= (SELECT last_rowid FROM turns_fts_mark)`
  for (const op of ["insert", "delete", "update"]) yield* sql.unsafe(`DROP TRIGGER turns_fts_${op}`)
  yield* sql.unsafe(`CREATE TRIGGER turns_fts_insert AFTER INSERT ON turns WHEN ${indexed("new")} BEGIN
    INSERT INTO turns_fts (rowid, content) VALUES (new.rowid, new.content);
  END`)
  yield* sql.unsafe(`CREATE TRIGGER turns_fts_delete AFTER DELETE ON turns WHEN ${indexed("old")} BEGIN
    INSERT INTO turns_fts (turns_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
  END`)
  yield* sql.unsafe(`CREATE TRIGGER turns_fts_update AFTER UPDATE OF content ON turns WHEN ${indexed("old")} BEGIN
    INSERT INTO turns_fts (turns_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO turns_fts (rowid, content) SELECT new.rowid, new.content WHERE ${indexed("new")};
  END`)
})

// How far each followed transcript file was read (`FollowedFiles`). Stores written by the CLI
// of precis before schema 8 may hold the table already (the CLI created it, and `file_id`
// later): it is kept with its rows, and the columns it lacks added. A row from then has no
// checksum of its own: `head:` and the hash of its first KiB (up to its offset), which the
// follower still checks, and no parser state (the follower parses its lines again once).
const followedFiles = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS followed_files (
    path TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL,
    format TEXT NOT NULL,
    byte_offset INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  const added = ["file_id TEXT", "size INTEGER", "checksum TEXT", "parser_state TEXT"]
  const existing = yield* sql.onDialectOrElse({
    pg: () =>
      sql<{ readonly name: string }>`SELECT column_name AS name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'followed_files'`,
    orElse: () => sql<{ readonly name: string }>`SELECT name FROM pragma_table_info('followed_files')`
  })
  const has = new Set(existing.map((column) => column.name))
  for (const column of added) {
    if (!has.has(column.split(" ")[0]!)) yield* sql.unsafe(`ALTER TABLE followed_files ADD COLUMN ${column}`)
  }
  yield* sql`UPDATE followed_files SET checksum = 'head:' || head_hash WHERE checksum IS NULL`
})

// Each session's project (see TurnStore.Project) and the time span of its
// turns, kept on its row by `appendTurns` (internal/turns.ts): `cwd`, the first
// working directory its turns' metadata carries, `git_root` when a source names
// it, `agent` (the importer's `sourceFormat`), `started_at`/`ended_at` (the
// least and greatest turn timestamps). Back-filled from the turns stored.
const projects = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const column of ["cwd", "git_root", "agent", "started_at", "ended_at"]) {
    yield* sql.unsafe(`ALTER TABLE sessions ADD COLUMN ${column} TEXT`)
  }
  yield* sql`CREATE INDEX sessions_cwd ON sessions (cwd)`
  yield* sql`CREATE INDEX sessions_git_root ON sessions (git_root)`
  // The first turn that names a non-empty string under `key`, as text.
  const first = (key: string): string =>
    sql.onDialectOrElse({
      pg: () =>
        `(SELECT t.metadata::jsonb ->> '${key}' FROM turns t WHERE t.session_id = sessions.id
          AND jsonb_typeof(t.metadata::jsonb -> '${key}') = 'string' AND t.metadata::jsonb ->> '${key}' <> ''
          ORDER BY t.seq LIMIT 1)`,
      orElse: () =>
        `(SELECT json_extract(t.metadata, '$.${key}') FROM turns t WHERE t.session_id = sessions.id
          AND json_valid(t.metadata) AND json_type(t.metadata, '$.${key}') = 'text'
          AND json_extract(t.metadata, '$.${key}') <> '' ORDER BY t.seq LIMIT 1)`
    })
  yield* sql.unsafe(`UPDATE sessions SET cwd = ${first("cwd")}, git_root = ${first("gitRoot")},
    agent = ${first("sourceFormat")},
    started_at = (SELECT min(t.timestamp) FROM turns t WHERE t.session_id = sessions.id),
    ended_at = (SELECT max(t.timestamp) FROM turns t WHERE t.session_id = sessions.id)`)
})

// The keys of each summary's `Also:` line, as data (a JSON array of strings),
// so that a condensation takes its children's keys without reading their text.
// The summaries already stored get theirs once, read from the last line of their
// text (`AlsoLine.keysOf`): the column is never NULL afterwards.
const summaryKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE summaries ADD COLUMN also_keys TEXT`
  const rows = yield* keyRows(yield* sql`SELECT id, content FROM summaries WHERE content LIKE ${"%Also: %"}`)
  for (const row of rows) {
    const keys = AlsoLine.keysOf(row.content)
    if (keys.length > 0) yield* sql`UPDATE summaries SET also_keys = ${JSON.stringify(keys)} WHERE id = ${row.id}`
  }
  yield* sql`UPDATE summaries SET also_keys = '[]' WHERE also_keys IS NULL`
})

const keyRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, content: Schema.String })))

// Keyed `ID_name`; the ids need not be contiguous (the schema version is the largest).
// 8, 9 and 10 are other branches' (issue 29).
const migrations = {
  "1_initial": initial,
  "2_leases": leases,
  "4_search": search,
  "5_session_state": sessionState,
  "6_work_queue": workQueue,
  "7_search_mark": searchMark,
  "8_followed_files": followedFiles,
  "9_projects": projects,
  "11_summary_keys": summaryKeys
}

/**
 * The table where the migrator records what it applied.
 *
 * @internal
 */
export const MIGRATIONS_TABLE = "precis_migrations"

/**
 * The newest schema version this code knows (the id of its last migration).
 *
 * @internal
 */
export const knownVersion = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

/**
 * Runs the migrations that are not applied yet.
 *
 * @internal
 */
export const migrate = Migrator.make({})({
  loader: Migrator.fromRecord(migrations),
  table: MIGRATIONS_TABLE
})
