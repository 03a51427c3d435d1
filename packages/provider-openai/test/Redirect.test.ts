/**
 * A base URL answered with a redirect (an `http://` endpoint behind a proxy
 * that sends clients elsewhere): one to the same origin is followed with the
 * same method and body, one to another origin is refused with where it leads,
 * at once and for good (no retry, a permanent failure: the base URL is
 * wrong), and the key never goes there. A misconfiguration (4xx but 408 and
 * 429) is never retried either. Raw loopback HTTP servers, both clients the
 * adapter runs on (undici, fetch).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import { type Provider, ProviderError } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as http from "node:http"
import type * as net from "node:net"
import * as OpenAiProvider from "../src/OpenAiProvider.js"
import * as Loopback from "./utils/LoopbackServer.js"

const KEY = "sk-test-REDIRECTKEY"

const request: Provider.ChatRequest = {
  messages: [{ role: "user", content: "Summarize: the build failed, then passed." }],
  temperature: 0.2,
  maxTokens: 64
}

const retried: OpenAiProvider.RetryOptions = { maxAttempts: 3, initialDelay: "1 millis", maxDelay: "2 millis" }

interface Hit {
  readonly method: string
  readonly url: string
  readonly body: string
  readonly authorization: string | undefined
}

type Route = (url: string, port: number) => { readonly status: number; readonly headers?: Record<string, string> }

const completion = JSON.stringify({
  id: "c",
  object: "chat.completion",
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "followed" }, finish_reason: "stop" }]
})

/** A raw HTTP server on a free loopback port: `route` answers each request; 200 means a completion. */
const rawServer = (route: Route) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly hits: Array<Hit>; readonly port: number }>((resume) => {
      const hits: Array<Hit> = []
      const server = http.createServer((req, res) => {
        let body = ""
        req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
        req.on("end", () => {
          hits.push({ method: req.method ?? "", url: req.url ?? "", body, authorization: req.headers.authorization })
          const port = (server.address() as net.AddressInfo).port
          const answer = route(req.url ?? "", port)
          res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
          res.end(answer.status === 200 ? completion : JSON.stringify({ error: { message: "no" } }))
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ server, hits, port: (server.address() as net.AddressInfo).port })))
    }),
    ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

const clients: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", Loopback.layer],
  ["fetch", FetchHttpClient.layer]
]

const chatAt = (baseUrl: string, client: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.gen(function*() {
    const provider = yield* OpenAiProvider.make({ baseUrl, model: "m", apiKey: Redacted.make(KEY), retry: retried })
    return yield* Effect.exit(provider.chat(request))
  }).pipe(Effect.provide(client))

const failureOf = <A>(exit: Exit.Exit<A, ProviderError.ProviderError>): ProviderError.ProviderError => {
  if (Exit.isSuccess(exit)) return assert.fail(`expected a failure, got ${JSON.stringify(exit.value)}`)
  return exit.cause._tag === "Fail" ? exit.cause.error : assert.fail(String(exit.cause))
}

describe("OpenAiProvider: redirects", () => {
  for (const [name, client] of clients) {
    it.scopedLive(`${name}: a same-origin 307/308 (relative or absolute) is followed, method and body kept`, () =>
      Effect.gen(function*() {
        for (const status of [307, 308]) {
          for (const absolute of [false, true]) {
            const { hits, port } = yield* rawServer((url, at) =>
              url.startsWith("/v1/")
                ? { status, headers: { location: `${absolute ? `http://127.0.0.1:${at}` : ""}/v2/chat/completions?x=1` } }
                : { status: 200 }
            )
            const exit = yield* chatAt(`http://127.0.0.1:${port}/v1`, client)
            assert.deepStrictEqual(Exit.map(exit, (reply) => reply.text), Exit.succeed("followed"))
            assert.deepStrictEqual(hits.map((hit) => [hit.method, hit.url]), [
              ["POST", "/v1/chat/completions"],
              ["POST", "/v2/chat/completions?x=1"]
            ])
            assert.strictEqual(hits[1]!.body, hits[0]!.body)
            assert.include(hits[1]!.body, "the build failed")
            assert.strictEqual(hits[1]!.authorization, `Bearer ${KEY}`)
          }
        }
      }))

    it.scopedLive(`${name}: a redirect to another origin is refused at once, for good, the key kept from it`, () =>
      Effect.gen(function*() {
        const elsewhere = yield* rawServer(() => ({ status: 200 }))
        const targets = [
          `http://localhost:${elsewhere.port}/v1/chat/completions`, // another host name
          `https://127.0.0.1:${elsewhere.port}/v1/chat/completions`, // http to https: another origin
          `http://127.0.0.1:${elsewhere.port}/v1/chat/completions?api_key=QSECRET` // another port
        ]
        for (const status of [301, 302, 307, 308]) {
          for (const target of targets) {
            const { hits, port } = yield* rawServer(() => ({ status, headers: { location: target } }))
            const error = failureOf(yield* chatAt(`http://127.0.0.1:${port}/v1`, client))
            assert.strictEqual(error._tag, "BadRequestError", target)
            assert.isTrue(ProviderError.isPermanent(error), target)
            assert.isFalse(OpenAiProvider.isTransient(error))
            assert.match(error.message, /redirects to another origin \(.+\), which is not followed/)
            assert.include(error.message, `(HTTP ${status})`)
            assert.notInclude(error.message, "QSECRET")
            assert.notInclude(error.message, KEY)
            assert.strictEqual(hits.length, 1, `${status} ${target}: retried`)
          }
        }
        assert.strictEqual(elsewhere.hits.length, 0)
      }))

    it.scopedLive(`${name}: a redirect loop or one without a Location is refused, not retried`, () =>
      Effect.gen(function*() {
        const loop = yield* rawServer((url) => ({ status: 307, headers: { location: url.startsWith("/v1/") ? "/v2/" : "/v1/" } }))
        const looped = failureOf(yield* chatAt(`http://127.0.0.1:${loop.port}/v1`, client))
        assert.include(looped.message, "more than 5 redirects")
        assert.strictEqual(loop.hits.length, 6)
        const bare = yield* rawServer(() => ({ status: 308 }))
        const unusable = failureOf(yield* chatAt(`http://127.0.0.1:${bare.port}/v1`, client))
        assert.include(unusable.message, "a redirect without a usable Location")
        assert.strictEqual(bare.hits.length, 1)
      }))
  }

  it.scopedLive("a misconfiguration (4xx but 408 and 429) is tried once; 408, 429 and 5xx are retried", () =>
    Effect.gen(function*() {
      for (const status of [400, 403, 404, 405, 410, 413, 415, 422, 451]) {
        const { hits, port } = yield* rawServer(() => ({ status }))
        failureOf(yield* chatAt(`http://127.0.0.1:${port}/v1`, Loopback.layer))
        assert.strictEqual(hits.length, 1, `HTTP ${status} retried`)
      }
      for (const status of [408, 429, 503]) {
        const { hits, port } = yield* rawServer(() => ({ status }))
        failureOf(yield* chatAt(`http://127.0.0.1:${port}/v1`, Loopback.layer))
        assert.strictEqual(hits.length, 3, `HTTP ${status} not retried`)
      }
    }))
})
