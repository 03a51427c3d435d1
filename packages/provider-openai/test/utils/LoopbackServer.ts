/**
 * A real loopback Chat Completions server for the adapter tests: an
 * `HttpRouter` served by `NodeHttpServer` on a free port, with a scripted
 * handler and a record of every request it saw.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Tracer from "effect/Tracer"
import { createServer } from "node:http"

export interface Seen {
  /** The path and query the request was sent to. */
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: unknown
}

/** Answers the `attempt`-th request (1-based). */
export type Handler = (attempt: number, seen: Seen) => Effect.Effect<HttpServerResponse.HttpServerResponse>

export interface Loopback {
  readonly baseUrl: string
  readonly seen: Effect.Effect<ReadonlyArray<Seen>>
  /** The number of each request as it arrives (1, 2, ...), to wait for a request in a test. */
  readonly arrivals: Queue.Dequeue<number>
}

/** Starts a fresh server on a free port answering with `handler`, for the current scope. */
export const serve = (handler: Handler) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(NodeHttpServer.layer(() => createServer(), { port: 0 }))
    const seen = yield* Ref.make<ReadonlyArray<Seen>>([])
    const arrivals = yield* Queue.unbounded<number>()
    const route = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const text = yield* request.text
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = text
      }
      const entry: Seen = { url: request.url, headers: request.headers, body }
      const attempt = yield* Ref.modify(seen, (all): [number, ReadonlyArray<Seen>] => [all.length + 1, [...all, entry]])
      yield* Queue.offer(arrivals, attempt)
      return yield* handler(attempt, entry)
    }).pipe(Effect.orDie)
    yield* HttpServer.serveEffect(HttpRouter.empty.pipe(HttpRouter.post("/v1/chat/completions", route))).pipe(
      Effect.provide(context)
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = address._tag === "TcpAddress" ? address.port : 0
    const loopback: Loopback = { baseUrl: `http://127.0.0.1:${port}/v1`, seen: Ref.get(seen), arrivals }
    return loopback
  })

/** The client the adapter runs on in the tests: undici, as in production. */
export const layer = NodeHttpClient.layerUndici

/** A successful completion with `content`. */
export const completion = (
  content: string | null,
  extra: { readonly usage?: { prompt_tokens: number; completion_tokens: number }; readonly message?: object } = {}
) =>
  HttpServerResponse.unsafeJson({
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "test-model",
    choices: [{ index: 0, message: { role: "assistant", content, ...extra.message }, finish_reason: "stop" }],
    ...(extra.usage === undefined ? {} : { usage: { ...extra.usage, total_tokens: 0 } })
  })

/** An OpenAI-style error body with `status`. */
export const failure = (status: number, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ error: { message, type: "error", code: null } }, { status, headers })

/** A tracer recording every span it starts in `spans`, over the current one (to check their attributes). */
export const recordSpans = Effect.map(Effect.tracer, (tracer) => {
  const spans: Array<Tracer.Span> = []
  const recording = Tracer.make({
    span: (...args) => {
      const span = tracer.span(...args)
      spans.push(span)
      return span
    },
    context: tracer.context
  })
  return { spans, tracer: recording }
})

/** A logger layer recording every log line (logfmt) in `lines`. */
export const recordLogs = () => {
  const lines: Array<string> = []
  const layer = Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void lines.push(line)))
  return { layer, lines }
}
