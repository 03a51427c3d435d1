/**
 * What the commands do with a store: check that it exists, choose the session,
 * import turns into it and describe its DAG.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Escape, type SummaryRecord } from "@precis/core"
import { Importer } from "@precis/importers"
import { DagStore, SearchIndex, StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliError } from "./errors.js"
import { exists } from "./input.js"
import type { Db } from "./layers.js"
import { timed } from "./output.js"
import * as Render from "./render.js"

/** The other `.db` files beside `db` (in its folder), as paths to give to `--db`. */
const otherStores = (db: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.dirname(db)
    const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
    const stores = names.filter((name) => name.endsWith(".db") && path.join(dir, name) !== path.normalize(db)).sort()
    return { dir: Escape.line(dir), stores: stores.map((name) => Escape.line(path.join(dir, name))) }
  })

/**
 * Fails unless the store file exists: read-only commands never create one.
 * The message names the file looked for and the `.db` files found beside it.
 */
export const requireStore = (db: Db) =>
  Effect.gen(function*() {
    // A PostgreSQL database is checked when the store opens it.
    if (db.isUrl || (yield* exists(db.path))) return
    const { dir, stores } = yield* otherStores(db.path)
    const where = dir === "." ? "here" : `in ${dir}`
    return yield* new CliError({
      reason: stores.length === 0
        ? `${db}: no such store (import a file first: precis import FILE --db ${db})`
        : stores.length === 1
        ? `${db}: no such store; found ${stores[0]} ${where}: use --db ${stores[0]}`
        : `${db}: no such store; found ${stores.join(", ")} ${where}: choose one with --db`
    })
  })

/**
 * The session to work on: `explicit` when given (it must exist), else
 * `default` when the store has it, else the store's only session.
 */
export const resolve = (db: Db, explicit: Option.Option<string>) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const ids = (yield* store.sessions).map((s) => s.id)
    const list = ids.length === 0 ? "none" : ids.map(Escape.line).join(", ")
    if (Option.isSome(explicit)) {
      if (ids.includes(explicit.value)) return explicit.value
      return yield* new CliError({ reason: `unknown session '${Escape.line(explicit.value)}' in ${db} (sessions: ${list})` })
    }
    if (ids.includes("default")) return "default"
    if (ids.length === 1) return ids[0]!
    return yield* new CliError({
      reason: ids.length === 0
        ? `${db} holds no session yet (import a file first)`
        : `${db} holds several sessions (${list}): choose one with --session`
    })
  })

/** What importing one conversation into its session did. */
export interface Imported {
  readonly session: string
  readonly turns: number
  readonly added: number
  readonly skipped: number
}

// The most turns, and bytes of content, written in one transaction: a big import holds the
// write lock for a fraction of a second at a time, so other writers get their turn.
const CHUNK_TURNS = 5000
const CHUNK_BYTES = 8 * 1024 * 1024

// `turns` in runs of at most CHUNK_TURNS turns and about CHUNK_BYTES of content.
const chunks = <A extends { readonly content: string }>(turns: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  let start = 0
  let bytes = 0
  turns.forEach((turn, i) => {
    bytes += turn.content.length
    if (i + 1 - start >= CHUNK_TURNS || bytes >= CHUNK_BYTES) {
      out.push(turns.slice(start, i + 1))
      start = i + 1
      bytes = 0
    }
  })
  if (start < turns.length) out.push(turns.slice(start))
  return out
}

// The first turn of `conversation` whose id a stored turn of `session` has with another role or content.
const conflictOf = (session: string, conversation: Importer.Conversation) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const stored = new Map((yield* store.turns(session)).map((turn) => [turn.id, turn]))
    for (const turn of conversation.turns) {
      const prior = turn.id === undefined ? undefined : stored.get(turn.id)
      if (prior !== undefined && (prior.role !== turn.role || prior.content !== turn.content)) {
        return Option.some(
          new StoreError.TurnConflictError({ sessionId: session, turnId: turn.id!, field: prior.role === turn.role ? "content" : "role" })
        )
      }
    }
    return Option.none<StoreError.TurnConflictError>()
  })

/**
 * Imports a file's conversations (already parsed in full), each into its
 * session (`Importer.sessionId(prefix, conversation)`), indexed for search. A
 * turn the store refuses because its id is already in the session with
 * another role or content fails as an `ImportError` at the turn's line, before
 * anything is written. The turns are written in bounded transactions (at most
 * 5,000 turns or 8 MB each), so a big import never holds the write lock for
 * long; an interrupted import is resumed by running it again (the turns
 * already stored are skipped by their ids).
 */
export const importConversations = (imported: Importer.Imported, prefix: string) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const index = yield* SearchIndex.SearchIndex
    const atLine = (conversation: Importer.Conversation, conflict: StoreError.TurnConflictError) =>
      new Importer.ImportError({
        file: imported.file,
        line: Option.getOrElse(Importer.lineOf(conversation, conflict.turnId), () => 1),
        reason: "Conflict",
        description: conflict.message
      })
    // Conflicts are found before the first write: bad input writes nothing.
    const stored = new Set((yield* store.sessions).filter((s) => s.turnCount > 0).map((s) => s.id))
    for (const conversation of imported.conversations) {
      const session = Importer.sessionId(prefix, conversation)
      if (!stored.has(session)) continue
      const conflict = yield* conflictOf(session, conversation)
      if (Option.isSome(conflict)) return yield* atLine(conversation, conflict.value)
    }
    const appendAll = Effect.forEach(imported.conversations, (conversation) => {
      const session = Importer.sessionId(prefix, conversation)
      // Each chunk indexed for search in its transaction: a read-only `precis search` cannot index them later.
      return Effect.forEach(
        chunks(conversation.turns),
        (chunk) => store.withTransaction(Effect.zipLeft(store.appendTurns(session, chunk), index.indexSearch))
      ).pipe(
        Effect.map((written): Imported => {
          const added = written.reduce((n, turns) => n + turns.length, 0)
          return { session, turns: conversation.turns.length, added, skipped: conversation.turns.length - added }
        }),
        Effect.catchTag("TurnConflictError", (conflict) => Effect.fail(atLine(conversation, conflict)))
      )
    })
    return yield* timed("stored turns")(appendAll)
  })

/** The totals of several imports. */
export const totals = (results: ReadonlyArray<Imported>) => ({
  turns: results.reduce((n, r) => n + r.turns, 0),
  added: results.reduce((n, r) => n + r.added, 0),
  skipped: results.reduce((n, r) => n + r.skipped, 0)
})

/**
 * `imported A of T turns [from FILE] into session S [in DB]`, naming the first
 * and last sessions when there are several, then how many were already present.
 */
export const importedLine = (
  results: ReadonlyArray<Imported>,
  where: { readonly file?: string | undefined; readonly db?: Db | undefined } = {}
): string => {
  const sum = totals(results)
  const into = results.length === 1
    ? `session ${Escape.line(results[0]!.session)}`
    : `${results.length} sessions (${Escape.line(results[0]!.session)} … ${Escape.line(results.at(-1)!.session)})`
  return `imported ${sum.added} of ${sum.turns} turns` + (where.file === undefined ? "" : ` from ${Escape.line(where.file)}`) +
    ` into ${into}` + (where.db === undefined ? "" : ` in ${where.db}`) +
    (sum.skipped === 0 ? "" : ` (${sum.skipped} already present)`)
}

/** The DAG of a session: the header line and the tree. */
export const dagLines = (sessionId: string): Effect.Effect<
  { readonly lines: ReadonlyArray<string>; readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord> },
  StoreError.StoreError,
  TurnStore.TurnStore | DagStore.DagStore
> =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const dag = yield* DagStore.DagStore
    // The turn count comes from the session list, so the turns themselves are never loaded.
    const [summaries, sessions, uncovered] = yield* Effect.all([
      dag.summaries(sessionId),
      store.sessions,
      store.uncoveredTurns(sessionId)
    ])
    const turnCount = sessions.find((s) => s.id === sessionId)?.turnCount ?? 0
    const lines = [Render.dagHeader(sessionId, turnCount, uncovered.length, summaries)]
    lines.push(
      ...(summaries.length === 0
        ? ["(no summaries yet: run precis compact)"]
        : [...Render.tree(summaries), `tiers of the stored summaries: ${Render.tierCountsLine(Render.tierCountsOf(summaries))}`])
    )
    return { lines, summaries }
  })
