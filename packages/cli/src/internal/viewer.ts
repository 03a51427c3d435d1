/**
 * The local viewer of `precis serve`: a read-only web app over the
 * store in context, on `@effect/platform`'s HTTP router. Routes:
 * `GET /` (the sessions), `GET /session/:id` (its DAG as a collapsible tree),
 * `GET /summary/:id` (a summary's text, children and source turns),
 * `GET /search?q=&session=` (full-text search); anything else is a 404 page,
 * a store failure a 500 page. Every page is HTML built by `html.ts`, with a
 * Content-Security-Policy that lets only its own nonce-bearing script run.
 *
 * Whatever the store holds and whoever asks, a page stays small and a request
 * never holds the others: every list is read one page at a time (turns,
 * top summaries, sessions; a turn's text is cut), a request whose `Host`
 * names another server is refused (421: DNS rebinding, see `bind.ts`), so is
 * one with a control character in its address or parameters (400), and a
 * search runs where it cannot hold the server (see `searchProcess.ts`), two
 * at a time, its query checked first (400 with the reason).
 *
 * @internal
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
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
import type { Search } from "./searchProcess.js"

/** The most hits the search page shows. */
const SEARCH_LIMIT = 50

/** Turns a page shows. */
export const TURNS_PER_PAGE = 100

/** Sessions, or top summaries of a large tree, a page lists. */
export const ITEMS_PER_PAGE = 200

/** The most summaries a session's page draws as one tree; past it, a page of the top ones. */
export const MAX_TREE = 2000

/** Searches running at once; the others wait for one to end. */
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
  respond(status, title, `<h1>${Html.escape(title)}</h1><p>${Html.escape(what)}</p>`, extra)

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

const sessions = Effect.gen(function*() {
  const all = yield* (yield* TurnStore.TurnStore).sessions
  const page = yield* readPage(yield* pageNumber("page"), ITEMS_PER_PAGE, ({ limit, offset = 0 }) =>
    Effect.succeed(all.slice(offset, offset + limit)), all.length)
  return yield* respond(200, "Sessions", Html.sessionsBody(page))
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

const session = Effect.gen(function*() {
  const store = yield* TurnStore.TurnStore
  const dag = yield* DagStore.DagStore
  const id = yield* param("id")
  const info = (yield* store.sessions).find((s) => s.id === id)
  if (info === undefined) return yield* notFound(`No session ${JSON.stringify(id)} in this store.`)
  const uncovered = info.turnCount - (yield* frontier(dag, id))
  const turns = yield* readPage(yield* pageNumber("turns"), TURNS_PER_PAGE, (page) => store.uncoveredTurns(id, page), uncovered)
  const tree: Html.Tree = info.summaryCount <= MAX_TREE
    ? { _tag: "Whole", summaries: yield* dag.summaries(id) }
    : { _tag: "Roots", roots: yield* readPage(yield* pageNumber("roots"), ITEMS_PER_PAGE, (page) => dag.parentless(id, { page })) }
  return yield* respond(200, `Session ${id}`, Html.sessionBody(info, tree, turns, uncovered), { session: id })
})

const summary = Effect.gen(function*() {
  const dag = yield* DagStore.DagStore
  const id = yield* param("id")
  const found = yield* dag.summary(id)
  if (Option.isNone(found)) return yield* notFound(`No summary ${JSON.stringify(id)} in this store.`)
  const s = found.value
  // A leaf knows how many turns it covers; a condensed summary's are counted by paging through them.
  const total = s.depth === 0 ? s.sourceTurnIds?.length : undefined
  const [children, turns] = yield* Effect.all([
    dag.children(id),
    readPage(yield* pageNumber("turns"), TURNS_PER_PAGE, (page) => dag.sourceTurns(id, page), total)
  ])
  return yield* respond(
    200,
    `Summary ${id.slice(0, 8)}`,
    Html.summaryBody(s, children, turns, total),
    s.sessionId === undefined ? {} : { session: s.sessionId }
  )
})

const searchPage = (run: Search) =>
  Effect.gen(function*() {
    const params = yield* HttpServerRequest.ParsedSearchParams
    const query = firstValue(params["q"]) ?? ""
    const sessionId = firstValue(params["session"])
    const scope = sessionId === undefined || sessionId.length === 0 ? undefined : sessionId
    const extra = { query, ...(scope === undefined ? {} : { session: scope }) }
    // The store's own rule, checked here to answer a refused query as the user's mistake it is.
    const refused = SearchIndex.queryTerms(query)
    if (Either.isLeft(refused)) return yield* problem(400, "Search refused", refused.left, extra)
    const hits = yield* run(scope, query, SEARCH_LIMIT)
    return yield* respond(200, `Search ${query}`, Html.searchBody(query, hits), extra)
  })

/**
 * The viewer's routes, with `search` running the searches; an unknown route
 * is a 404 page and a store failure a 500 page naming it.
 *
 * @internal
 */
export const app = (search: Search) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/", sessions),
    HttpRouter.get("/session/:id", session),
    HttpRouter.get("/summary/:id", summary),
    HttpRouter.get("/search", searchPage(search)),
    Effect.catchTags({
      RouteNotFound: (e) => notFound(`No page at ${e.request.url}.`),
      StoreError: (e) => problem(500, "Store error", e.message)
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

/** Where `serve` listens, and how it searches (default: in this process, over the store). */
export interface ListenOptions {
  readonly port: number
  readonly host: string
  readonly search?: Search | undefined
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
    const index = yield* SearchIndex.SearchIndex
    const search: Search = options.search ?? ((sessionId, query, limit) => index.search(sessionId, query, { limit }))
    const searches = yield* Effect.makeSemaphore(SEARCHES_AT_ONCE)
    const server = yield* Layer.build(NodeHttpServer.layer(() => createServer(), { port: options.port, host: options.host }))
    const served = guarded(Bind.hostCheck(options.host))(app((...args) => searches.withPermits(1)(search(...args))))
    yield* HttpServer.serveEffect(served).pipe(Effect.provide(server))
    return yield* HttpServer.addressFormattedWith(Effect.succeed).pipe(Effect.provide(server))
  })
