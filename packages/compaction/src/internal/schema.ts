/**
 * The SQLite schema, as migrations. Table and column names of `turns`,
 * `summaries` and `summary_sources` are part of the public contract (users may
 * query them); `sessions`, `summaries.first_seq/last_seq` and the indexes are ours.
 *
 * @internal
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

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

/**
 * Runs the migrations that are not applied yet.
 *
 * @internal
 */
export const migrate = Migrator.make({})({
  loader: Migrator.fromRecord({ "1_initial": initial }),
  table: "precis_migrations"
})
