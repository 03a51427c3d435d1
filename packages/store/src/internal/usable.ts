/**
 * Whether a database may be used: what it holds ({@link inspect}: nothing, a
 * precis store of some schema version, or tables that are not ours) and, for
 * each way a store uses it ({@link Mode}), whether that is refused
 * ({@link refusal}) and why.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type Reason, StoreError } from "../StoreError.js"
import { knownVersion, MIGRATIONS_TABLE } from "./migrations.js"

/**
 * What a database file holds: nothing (a new or 0-byte file), a precis store
 * of some schema version, or tables that are not ours.
 *
 * @internal
 */
export type Contents =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "Precis"; readonly version: number }
  | { readonly _tag: "Foreign" }

const nameRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ name: Schema.String })))
const versionRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ version: Schema.NullOr(Schema.Int) })))

/**
 * Reads what the database holds, without writing anything.
 *
 * @internal
 */
export const inspect: Effect.Effect<Contents, SqlError | ParseError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const query: Effect.Effect<ReadonlyArray<unknown>, SqlError> = sql.onDialectOrElse({
    pg: () =>
      sql`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    orElse: () => sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
  })
  const tables = yield* nameRows(yield* query)
  if (tables.length === 0) return { _tag: "Empty" }
  if (!tables.some((t) => t.name === MIGRATIONS_TABLE)) return { _tag: "Foreign" }
  const rows = yield* versionRows(yield* sql`SELECT max(migration_id) AS version FROM ${sql(MIGRATIONS_TABLE)}`)
  return { _tag: "Precis", version: rows[0]?.version ?? 0 }
})

/**
 * How a store uses its database: `read` (never writes: the database must be a
 * precis store of this very schema), `write` (may create the schema in an
 * empty database and migrate an older one) or `update` (writes, migrating an
 * older schema, but creates nothing: for writers that only work on what a
 * store already holds).
 *
 * @internal
 */
export type Mode = "read" | "write" | "update"

/**
 * Why this code must not use a database holding `contents` in `mode`, if it
 * must not: a foreign database, one from a newer precis, an empty one (but to
 * create it), and (to read) one of an older schema, which only a writer
 * migrates.
 *
 * @internal
 */
export const refusal = (
  contents: Contents,
  mode: Mode
): { readonly reason: Reason; readonly description: string } | undefined => {
  switch (contents._tag) {
    case "Empty":
      return mode === "write" ? undefined : { reason: "NotAStore", description: "not a precis store (it is empty)" }
    case "Foreign":
      return { reason: "NotAStore", description: "not a precis store (it has tables but no precis migrations)" }
    case "Precis":
      return contents.version > knownVersion
        ? {
          reason: "NewerSchema",
          description: `written by a newer precis (schema ${contents.version}, this one knows ${knownVersion})`
        }
        : mode === "read" && contents.version < knownVersion
        ? {
          reason: "OlderSchema",
          description: `written by an older precis (schema ${contents.version}, this one reads ${knownVersion}): ` +
            "a command that writes (import, compact) upgrades it"
        }
        : undefined
  }
}

/**
 * Fails with a `StoreError` when the database must not be used in `mode`
 * (see {@link refusal}).
 *
 * @internal
 */
export const requireUsable = (mode: Mode) =>
  Effect.flatMap(inspect, (contents) => {
    const refused = refusal(contents, mode)
    return refused === undefined ? Effect.void : Effect.fail(new StoreError({ operation: "Store.open", ...refused }))
  })
