/**
 * The local viewer of `precis serve`: a read-only web app over the
 * store in context, on `@effect/platform`'s HTTP router. Routes:
 * `GET /` (the sessions), `GET /session/:id` (its DAG as a collapsible tree),
 * `GET /summary/:id` (a summary's text, children and source turns),
 * `GET /search?q=&session=` (full-text search); anything else is a 404 page,
 * a store failure a 500 page. Every page is HTML built by `html.ts`, with a
 * Content-Security-Policy that lets only its own nonce-bearing script run.
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
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import * as Html from "./html.js"

/** The most hits the search page shows. */
const SEARCH_LIMIT = 50

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

const notFound = (what: string) => respond(404, "Not found", Html.notFoundBody(what))

const param = (name: string) => Effect.map(HttpRouter.params, (params) => params[name] ?? "")

const firstValue = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

const sessions = Effect.gen(function*() {
  const store = yield* TurnStore.TurnStore
  return yield* respond(200, "Sessions", Html.sessionsBody(yield* store.sessions))
})

const session = Effect.gen(function*() {
  const store = yield* TurnStore.TurnStore
  const dag = yield* DagStore.DagStore
  const id = yield* param("id")
  const info = (yield* store.sessions).find((s) => s.id === id)
  if (info === undefined) return yield* notFound(`No session ${JSON.stringify(id)} in this store.`)
  const [summaries, uncovered] = yield* Effect.all([dag.summaries(id), store.uncoveredTurns(id)])
  return yield* respond(200, `Session ${id}`, Html.sessionBody(info, summaries, uncovered), { session: id })
})

const summary = Effect.gen(function*() {
  const dag = yield* DagStore.DagStore
  const id = yield* param("id")
  const found = yield* dag.summary(id)
  if (Option.isNone(found)) return yield* notFound(`No summary ${JSON.stringify(id)} in this store.`)
  const s = found.value
  const [children, turns] = yield* Effect.all([dag.children(id), dag.sourceTurns(id)])
  return yield* respond(
    200,
    `Summary ${id.slice(0, 8)}`,
    Html.summaryBody(s, children, turns),
    s.sessionId === undefined ? {} : { session: s.sessionId }
  )
})

const search = Effect.gen(function*() {
  const index = yield* SearchIndex.SearchIndex
  const params = yield* HttpServerRequest.ParsedSearchParams
  const query = firstValue(params["q"]) ?? ""
  const sessionId = firstValue(params["session"])
  const scope = sessionId === undefined || sessionId.length === 0 ? undefined : sessionId
  const hits = yield* index.search(scope, query, { limit: SEARCH_LIMIT })
  return yield* respond(200, `Search ${query}`, Html.searchBody(query, hits), {
    query,
    ...(scope === undefined ? {} : { session: scope })
  })
})

/**
 * The viewer's routes; an unknown route is a 404 page and a store failure a
 * 500 page naming it.
 *
 * @internal
 */
export const app = HttpRouter.empty.pipe(
  HttpRouter.get("/", sessions),
  HttpRouter.get("/session/:id", session),
  HttpRouter.get("/summary/:id", summary),
  HttpRouter.get("/search", search),
  Effect.catchTags({
    RouteNotFound: (e) => notFound(`No page at ${e.request.url}.`),
    StoreError: (e) => respond(500, "Store error", `<h1>Store error</h1><p>${Html.escape(e.message)}</p>`)
  })
)

/** Where `serve` listens. */
export interface ListenOptions {
  readonly port: number
  readonly host: string
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
    const server = yield* Layer.build(NodeHttpServer.layer(() => createServer(), options))
    yield* HttpServer.serveEffect(app).pipe(Effect.provide(server))
    return yield* HttpServer.addressFormattedWith(Effect.succeed).pipe(Effect.provide(server))
  })
