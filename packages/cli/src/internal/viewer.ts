/**
 * The local viewer of `precis serve`: a read-only web app over the
 * store in context, on `@effect/platform`'s HTTP router. Routes:
 * `GET /` (the sessions by their first request, with their folder and
 * dates), `GET /session/:id` (its session-state header, its DAG as a
 * tree of summaries readable in place, and the turns not summarized yet),
 * `GET /summary/:id` (a summary's text, children and source turns),
 * `GET /session/:id/context?budget=N` (the context `precis context --budget N`
 * assembles), `GET /search?q=&session=` (full-text search, each hit opening
 * its page with `?q=`, which marks the matches there); anything else is a 404
 * page, a store failure a 500 page. Every page is HTML built by `html*.ts`,
 * with a Content-Security-Policy that lets only its own nonce-bearing script
 * run; turns read as the summaries' material renders them (`htmlTurns.ts`).
 *
 * Whatever the store holds and whoever asks, a page stays small and a request
 * never holds the others: every list is read one page at a time (turns,
 * top summaries, sessions; a turn's text is cut), a request whose `Host`
 * names another server is refused (421: DNS rebinding, see `bind.ts`), so is
 * one with a control character in its address or parameters (400), and a
 * search or an assembled context runs in this process, bounded in time (see
 * `viewerQueries.ts`: past its bound, a 503 page saying so), two at a time,
 * its query or budget checked first (400 with the reason).
 *
 * @internal
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ActiveContext } from "@precis/compaction"
import { ProjectDigest } from "@precis/context"
import { SessionState } from "@precis/core"
import { DagStore, SearchIndex, type Store, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import * as Bind from "./bind.js"
import * as Html from "./html.js"
import * as HtmlContext from "./htmlContext.js"
import * as HtmlSearch from "./htmlSearch.js"
import * as HtmlTree from "./htmlTree.js"
import { timeRange } from "./sessionTimes.js"
import * as Queries from "./viewerQueries.js"

/** The most hits the search page shows. */
const SEARCH_LIMIT = 50

/** Turns a page shows. */
export const TURNS_PER_PAGE = 100

/** Sessions, or top summaries of a large tree, a page lists. */
export const ITEMS_PER_PAGE = 200

/** The most summaries a session's page draws as one tree; past it, a page of the top ones. */
export const MAX_TREE = 2000

/** Searches and contexts assembled at once; the others wait for one to end. */
const SEARCHES_AT_ONCE = 2

/** An HTML response with its CSP: nothing loads from elsewhere, only the page's own script runs. */
const respond = (
  status: number,
  title: string,
  body: string,
  extra: { readonly query?: string; readonly session?: string } = {}
) =>
  Effect.sync(() => {
    const nonce = randomBytes(16).toString("base64")
    return HttpServerResponse.text(Html.page({ title, nonce, ...extra }, body), {
      status,
      contentType: "text/html; charset=utf-8",
      headers: {
        "content-security-policy":
          `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'`,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer"
      }
    })
  })

const problem = (status: number, title: string, what: string, extra?: { readonly query?: string; readonly session?: string }) =>
  respond(status, title, Html.problemBody(title, what), extra)

const notFound = (what: string) => respond(404, "Not found", Html.notFoundBody(what))

const param = (name: string) => Effect.map(HttpRouter.params, (params) => params[name] ?? "")

const firstValue = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

/** The page number in parameter `name` (1 when absent or not a page number). */
const pageNumber = (name: string) =>
  Effect.map(HttpServerRequest.ParsedSearchParams, (params) => {
    const value = firstValue(params[name])
    return value !== undefined && /^[1-9]\d{0,5}$/.test(value) ? Number(value) : 1
  })

/** Page `number` of a list read a page at a time: one item more than shown tells whether another follows. */
const readPage = <A, E, R>(
  number: number,
  size: number,
  read: (page: TurnStore.Page) => Effect.Effect<ReadonlyArray<A>, E, R>,
  total?: number
) =>
  Effect.map(read({ limit: size + 1, offset: (number - 1) * size }), (items): Html.Page<A> => ({
    items: items.slice(0, size),
    number,
    more: items.length > size,
    pages: total === undefined ? undefined : Math.max(1, Math.ceil(total / size))
  }))

/** The search a page was opened from (`?q=`): the query, when the store takes it, and its marker. */
const searched = Effect.map(HttpServerRequest.ParsedSearchParams, (params) => {
  const query = firstValue(params["q"])?.trim() ?? ""
  const terms = SearchIndex.queryTerms(query)
  return Either.isRight(terms) && terms.right.length > 0
    ? { query, mark: Html.marker(terms.right) }
    : { query: undefined, mark: Html.escape }
})

const sessions = Effect.gen(function*() {
  const all = yield* (yield* TurnStore.TurnStore).sessions
  const page = yield* readPage(yield* pageNumber("page"), ITEMS_PER_PAGE, ({ limit, offset = 0 }) =>
    Effect.gen(function*() {
      const infos = all.slice(offset, offset + limit)
      const requests = yield* ProjectDigest.firstRequests(infos.map((info) => info.id))
      return yield* Effect.forEach(infos, (info, i) => Effect.map(timeRange(info), (range) => ({ info, range, request: requests[i] })))
    }), all.length)
  return yield* respond(200, "Sessions", HtmlTree.sessionsBody(page))
})

// The seq from which a session's turns are uncovered: the one after the newest leaf's last turn
// (seqs run 0, 1, 2, ... in a session).
const frontier = (dag: DagStore.Service, sessionId: string) =>
  Effect.gen(function*() {
    const latest = yield* dag.latestLeaf(sessionId)
    if (Option.isNone(latest)) return 0
    const covered = latest.value.sourceTurnIds?.length ?? 0
    const [last] = yield* dag.sourceTurns(latest.value.id, { offset: Math.max(0, covered - 1), limit: 1 })
    return last === undefined ? 0 : last.seq + 1
  })

/** The most turns a session's page folds into its state beyond the stored one (a page stays quick). */
const MAX_FOLD = 5000

/**
 * A session's state header, as its context carries it (read only: the stored
 * state carried forward, never saved); `""` when more than {@link MAX_FOLD}
 * turns came after the stored state (a writer, `precis compact`, stores it).
 */
const stateHeader = (info: TurnStore.SessionInfo) =>
  Effect.gen(function*() {
    const stored = yield* (yield* TurnStore.TurnStore).sessionState(info.id)
    const folded = Option.match(stored, { onNone: () => 0, onSome: (s) => s.lastSeq + 1 })
    if (info.turnCount - folded > MAX_FOLD) return ""
    return SessionState.render((yield* ActiveContext.loadState(info.id)).state)
  })

/** The session named by the route's `id`, or its 404 page. */
const sessionInfo = Effect.gen(function*() {
  const id = yield* param("id")
  const info = (yield* (yield* TurnStore.TurnStore).sessions).find((s) => s.id === id)
  return info === undefined ? Either.left(yield* notFound(`No session ${JSON.stringify(id)} in this store.`)) : Either.right(info)
})

const session = Effect.gen(function*() {
  const store = yield* TurnStore.TurnStore
  const dag = yield* DagStore.DagStore
  const found = yield* sessionInfo
  if (Either.isLeft(found)) return found.left
  const info = found.right
  const { mark, query } = yield* searched
  const uncovered = info.turnCount - (yield* frontier(dag, info.id))
  const turns = yield* readPage(yield* pageNumber("turns"), TURNS_PER_PAGE, (page) => store.uncoveredTurns(info.id, page), uncovered)
  const tree: HtmlTree.Tree = info.summaryCount <= MAX_TREE
    ? { _tag: "Whole", summaries: yield* dag.summaries(info.id) }
    : { _tag: "Roots", roots: yield* readPage(yield* pageNumber("roots"), ITEMS_PER_PAGE, (page) => dag.parentless(info.id, { page })) }
  const row = { info, range: yield* timeRange(info) }
  const header = yield* stateHeader(info)
  return yield* respond(200, `Session ${info.id}`, HtmlTree.sessionBody({ row, tree, turns, uncovered, query, mark, header }), {
    session: info.id,
    ...(query === undefined ? {} : { query })
  })
})

const summary = Effect.gen(function*() {
  const dag = yield* DagStore.DagStore
  const id = yield* param("id")
  const found = yield* dag.summary(id)
  if (Option.isNone(found)) return yield* notFound(`No summary ${JSON.stringify(id)} in this store.`)
  const s = found.value
  const { mark, query } = yield* searched
  // A leaf knows how many turns it covers; a condensed summary's are counted by paging through them.
  const total = s.depth === 0 ? s.sourceTurnIds?.length : undefined
  const [children, turns] = yield* Effect.all([
    dag.children(id),
    readPage(yield* pageNumber("turns"), TURNS_PER_PAGE, (page) => dag.sourceTurns(id, page), total)
  ])
  return yield* respond(
    200,
    `Summary ${id.slice(0, 8)}`,
    HtmlTree.summaryBody({ summary: s, children, turns, total, query, mark }),
    { ...(s.sessionId === undefined ? {} : { session: s.sessionId }), ...(query === undefined ? {} : { query }) }
  )
})

/** The budget of a context page: `budget` when it is a whole number from 1 to `MAX_BUDGET`, else why not. */
const budgetOf = (value: string | undefined): Either.Either<number, string> => {
  if (value === undefined || value.length === 0) return Either.right(Queries.DEFAULT_BUDGET)
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN
  return Number.isInteger(n) && n >= 1 && n <= Queries.MAX_BUDGET
    ? Either.right(n)
    : Either.left(`A budget is a whole number of tokens from 1 to ${Queries.MAX_BUDGET} (got ${JSON.stringify(value)}).`)
}

const contextPage = (bounds: Queries.Bounds, searches: Effect.Semaphore) =>
  Effect.gen(function*() {
    const found = yield* sessionInfo
    if (Either.isLeft(found)) return found.left
    const id = found.right.id
    const asked = firstValue((yield* HttpServerRequest.ParsedSearchParams)["budget"])
    const budget = budgetOf(asked)
    if (Either.isLeft(budget)) {
      return yield* respond(400, "Bad budget", HtmlContext.badBudgetBody(id, asked ?? "", budget.left), { session: id })
    }
    const printed = yield* searches.withPermits(1)(Queries.assemble(id, budget.right, bounds.context))
    return yield* respond(200, `Context of ${id}`, HtmlContext.contextBody(id, budget.right, printed), { session: id })
  })

// A hit with what labels it: a turn's role and time and the page of turns that holds it, a summary's record.
const labelled = (hit: SearchIndex.SearchHit) =>
  Effect.gen(function*() {
    const dag = yield* DagStore.DagStore
    if (hit.kind === "summary") return { hit, summary: Option.getOrUndefined(yield* dag.summary(hit.id)) }
    const seq = hit.seq
    if (seq === undefined) return { hit }
    const [turn] = yield* (yield* TurnStore.TurnStore).turns(hit.sessionId, { from: seq, to: seq })
    const first = hit.leafId === undefined
      ? yield* frontier(dag, hit.sessionId)
      : (yield* dag.sourceTurns(hit.leafId, { offset: 0, limit: 1 }))[0]?.seq ?? seq
    return { hit, role: turn?.role, timestamp: turn?.timestamp, turnsPage: Math.floor(Math.max(0, seq - first) / TURNS_PER_PAGE) + 1 }
  })

const searchPage = (bounds: Queries.Bounds, searches: Effect.Semaphore) =>
  Effect.gen(function*() {
    const params = yield* HttpServerRequest.ParsedSearchParams
    const query = firstValue(params["q"]) ?? ""
    const sessionId = firstValue(params["session"])
    const scope = sessionId === undefined || sessionId.length === 0 ? undefined : sessionId
    const extra = { query, ...(scope === undefined ? {} : { session: scope }) }
    // The store's own rule, checked here to answer a refused query as the user's mistake it is.
    const refused = SearchIndex.queryTerms(query)
    if (Either.isLeft(refused)) return yield* problem(400, "Search refused", refused.left, extra)
    const found = yield* searches.withPermits(1)(Queries.search(scope, query, SEARCH_LIMIT, bounds.search))
    const hits = yield* Effect.forEach(found, labelled)
    return yield* respond(200, `Search ${query}`, HtmlSearch.searchBody(query, hits), extra)
  })

/**
 * The viewer's routes, its searches and contexts within `bounds` and
 * `searches`' permits; an unknown route is a 404 page, a query past its bound
 * a 503 page and a store failure a 500 page naming it.
 *
 * @internal
 */
export const app = (bounds: Queries.Bounds, searches: Effect.Semaphore) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/", sessions),
    HttpRouter.get("/session/:id", session),
    HttpRouter.get("/session/:id/context", contextPage(bounds, searches)),
    HttpRouter.get("/summary/:id", summary),
    HttpRouter.get("/search", searchPage(bounds, searches)),
    Effect.catchTags({
      RouteNotFound: (e) => notFound(`No page at ${e.request.url}.`),
      StoreError: (e) => problem(500, "Store error", e.message),
      QueryTimeoutError: (e) => problem(503, "Too slow", e.message)
    })
  )

// Control characters (but tab and line breaks) in a request's address or parameters: no page
// has them, and a NUL would reach the store.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/

/**
 * `app`, answering only requests that name this server in `Host` (`check`:
 * 400 without one, 421 for another) and whose address, decoded, holds no
 * control character (400).
 *
 * @internal
 */
export const guarded = (check: (header: string | undefined) => Bind.HostCheck) =>
<E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const host = check(request.headers["host"])
    if (host === "missing") return problem(400, "Bad request", "The request names no host.")
    if (host === "foreign") {
      return problem(421, "Misdirected request", "This viewer answers only for the host names it listens on.")
    }
    let target: string
    try {
      target = decodeURIComponent(request.url.replaceAll("+", " "))
    } catch {
      return problem(400, "Bad request", "The address is not valid percent-encoded UTF-8.")
    }
    if (CONTROL.test(target)) return problem(400, "Bad request", "The address holds a control character.")
    return app
  })

/** Where `serve` listens, and how long a search or a context may take (default `Queries.defaultBounds`). */
export interface ListenOptions {
  readonly port: number
  readonly host: string
  readonly bounds?: Queries.Bounds | undefined
}

/**
 * Serves {@link app} on `host:port` (port 0 picks a free one) until the scope
 * closes, and returns its URL (`http://127.0.0.1:4321`).
 *
 * @internal
 */
export const listen = (
  options: ListenOptions
): Effect.Effect<string, ServeError, Scope.Scope | Store.Store> =>
  Effect.gen(function*() {
    const searches = yield* Effect.makeSemaphore(SEARCHES_AT_ONCE)
    const server = yield* Layer.build(NodeHttpServer.layer(() => createServer(), { port: options.port, host: options.host }))
    const served = guarded(Bind.hostCheck(options.host))(app(options.bounds ?? Queries.defaultBounds, searches))
    yield* HttpServer.serveEffect(served).pipe(Effect.provide(server))
    return yield* HttpServer.addressFormattedWith(Effect.succeed).pipe(Effect.provide(server))
  })
