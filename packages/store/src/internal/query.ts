/**
 * Helpers the query modules share: decoding rows with Schemas (checked in
 * place when they can be), the current time as stored, and the reads of turns
 * both `TurnStore` and `DagStore` make.
 *
 * @internal
 */
import { SqlError } from "@effect/sql/SqlError"
import { Chunked } from "@precis/core"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { TurnRow } from "../Tables.js"
import type { Page, StoredTurn } from "../TurnStore.js"
import type { Env } from "./dialect.js"
import * as Rows from "./rows.js"

/** @internal */
export const isSqlError = (u: unknown): u is SqlError => u instanceof SqlError

/**
 * Decodes the rows of a query with `schema`, as `SqlSchema.findAll` does.
 * With `check`, for many rows: `check` takes the rows in place when they pass
 * it, and the full decode runs only when one does not, for its `ParseError`.
 *
 * @internal
 */
export const decodeAll = <A, I>(
  schema: Schema.Schema<A, I>,
  check: (rows: ReadonlyArray<unknown>) => ReadonlyArray<A> | undefined = () => undefined
) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    Effect.flatMap(query, (rows) => {
      const checked = check(rows)
      return checked === undefined ? decode(rows) : Effect.succeed(checked)
    })
}

/**
 * Decodes rows with a schema without transformations: they are checked in place.
 *
 * @internal
 */
export const checkAll = <A>(schema: Schema.Schema<A, A>) => decodeAll(schema, Rows.checkRows(schema))

/**
 * The current time as the store writes it (ISO-8601).
 *
 * @internal
 */
export const now = Effect.map(DateTime.now, DateTime.formatIso)

const decodeTurnRows = Schema.decodeUnknown(Schema.Array(TurnRow))

/**
 * The stored turns of `rows`, each checked in place (`Rows.checkTurnRow`), in
 * chunks with a yield between them (a read of a long session is CPU-bound:
 * an interruption lands after the chunk at hand); when a row fails, all are
 * decoded for the `ParseError`.
 */
const storedTurns = (rows: ReadonlyArray<unknown>) =>
  Effect.flatMap(
    Chunked.reduce(rows, [] as Array<StoredTurn> | undefined, (out, row) => {
      const checked = out === undefined ? undefined : Rows.checkTurnRow(row)
      if (checked === undefined) return undefined
      out!.push(Rows.toStoredTurn(checked))
      return out
    }),
    (checked) => checked !== undefined ? Effect.succeed(checked) : Effect.map(decodeTurnRows(rows), (all) => all.map(Rows.toStoredTurn))
  )

/**
 * The reads of turns over `env`: the columns of a turn (`t`), the stored
 * turns of a query selecting them, and the `seq` from which a session's turns
 * are uncovered.
 *
 * @internal
 */
const whole = (n: number | undefined): number => (n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : 0)

/**
 * The end of a read of one page (`LIMIT ... OFFSET ...`), nothing without one.
 *
 * @internal
 */
export const pageClause = ({ sql }: Env, page: Page | undefined) =>
  page === undefined ? sql.literal("") : sql`LIMIT ${whole(page.limit)} OFFSET ${whole(page.offset)}`

export const turnReads = ({ sql }: Env) => ({
  columns: sql`t.id, t.session_id, t.seq, t.role, t.content, t.timestamp, t.metadata`,
  select: (query: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    Effect.flatMap(query, storedTurns),
  // Leaves cover a prefix of the session's turns, in order (insertLeaf enforces
  // it): the uncovered turns are those from the seq after the newest leaf on.
  frontier: (sessionId: string) =>
    sql`(SELECT coalesce((SELECT last_seq + 1 FROM summaries WHERE session_id = ${sessionId} AND depth = 0
      ORDER BY first_seq DESC LIMIT 1), 0))`
})
