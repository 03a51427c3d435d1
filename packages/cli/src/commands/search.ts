/**
 * `precis search QUERY`: full-text search over the stored turns and summaries,
 * best hits first. Reads the store, never creates or changes it.
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { Escape } from "@precis/core"
import { SearchIndex } from "@precis/store"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { positional } from "../internal/argv.js"
import { inStore, reported } from "../internal/errors.js"
import * as Layers from "../internal/layers.js"
import * as Opt from "../internal/options.js"
import { printJson, withVerbosity } from "../internal/output.js"
import * as Session from "../internal/session.js"

/** The query: plain words, all of which must match. */
const query = Args.text({ name: "QUERY" }).pipe(
  Args.withDescription("the words to find, all of them (a word ending in * is a prefix); any other text is literal"),
  positional
)

/**
 * One hit as a line: `turn t12 (seq 12, leaf 3f2a…) in s: …the «flaky» test…`
 * or `summary 3f2a… (depth 0) in s: …`.
 */
export const hitLine = (hit: SearchIndex.SearchHit): string => {
  const where = hit.kind === "turn"
    ? `seq ${hit.seq}${hit.leafId === undefined ? ", not summarized" : `, leaf ${Escape.line(hit.leafId)}`}`
    : `depth ${hit.depth}`
  return `${hit.kind} ${Escape.line(hit.id)} (${where}) in ${Escape.line(hit.sessionId)}: ${
    Escape.line(hit.snippet.replace(/\s+/g, " "))
  }`
}

/** What `search` does, in one line (the root page and the README list it). */
export const summary = "Full-text search over the stored turns and summaries"

/** The `search` command. */
export const command = Command.make(
  "search",
  { query, db: Opt.db, session: Opt.searchSession, limit: Opt.limit, json: Opt.json, verbose: Opt.verbose },
  (args) =>
    Effect.gen(function*() {
      yield* Session.requireStore(args.db)
      yield* Effect.gen(function*() {
        const index = yield* SearchIndex.SearchIndex
        // A session named must exist: "no match" would hide a misspelt id.
        const session = Option.isSome(args.session) ? yield* Session.resolve(args.db, args.session) : undefined
        const hits = yield* index.search(session, args.query, { limit: Option.getOrElse(args.limit, () => Opt.defaultLimit) })
        if (args.json) return yield* printJson({ query: args.query, session: session ?? null, hits })
        yield* Console.log(hits.length === 0 ? `no match for ${JSON.stringify(args.query)}` : hits.map(hitLine).join("\n"))
      }).pipe(Effect.provide(Layers.readStore(args.db)), inStore(args.db))
    }).pipe(withVerbosity(args.verbose))
).pipe(
  Command.withDescription(
    "Full-text search over the stored turns and summaries, best first; matches are marked «like this». " +
      "--json gives { query, session, hits: [{ kind, id, sessionId, snippet, rank, seq?, depth?, leafId? }] }."
  ),
  reported
)
