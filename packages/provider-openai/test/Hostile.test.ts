/**
 * The second hostile week, for the adapter: every base URL that can never
 * work fails loudly (at start when the URL says so, else as a permanent
 * failure at the first call), whatever the HTTP client; nothing of a URL's
 * credentials, its query's secrets or the key reaches a message, a log or a
 * span; a reply echoing the key in another case or in part is redacted. Real
 * loopback servers (http, a raw socket that hangs up) and both clients the
 * adapter is run on (undici, fetch).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import { type Provider, ProviderError } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as net from "node:net"
import * as OpenAiProvider from "../src/OpenAiProvider.js"
import * as Loopback from "./utils/LoopbackServer.js"

const KEY = "sk-test-SECRET123"
const QUERY_SECRET = "QSECRET9876"

const request: Provider.ChatRequest = {
  messages: [{ role: "user", content: "Summarize: the build failed, then passed." }],
  temperature: 0.2,
  maxTokens: 64
}

const noRetry: OpenAiProvider.RetryOptions = { maxAttempts: 2, initialDelay: "1 millis", maxDelay: "2 millis" }

const clients: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", Loopback.layer],
  ["fetch", FetchHttpClient.layer]
]

const failureOf = <A>(exit: Exit.Exit<A, ProviderError.ProviderError>): ProviderError.ProviderError => {
  if (Exit.isSuccess(exit)) return assert.fail(`expected a failure, got ${JSON.stringify(exit.value)}`)
  return exit.cause._tag === "Fail" ? exit.cause.error : assert.fail(String(exit.cause))
}

// A port nobody listens on: a server's, once it is closed.
const closedPort = Effect.acquireUseRelease(
  Effect.async<net.Server>((resume) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.succeed((server.address() as net.AddressInfo).port),
  (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

// A server that accepts each connection, then hangs up at once: a reset, which may heal.
const hangingUp = Effect.acquireRelease(
  Effect.async<net.Server>((resume) => {
    const server = net.createServer((socket) => socket.destroy()).listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
).pipe(Effect.map((server) => (server.address() as net.AddressInfo).port))

const callAt = (baseUrl: string, client: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.gen(function*() {
    const provider = yield* OpenAiProvider.make({ baseUrl, model: "m", apiKey: Redacted.make(KEY), retry: noRetry })
    return yield* Effect.exit(provider.chat(request))
  }).pipe(Effect.provide(client))

describe("OpenAiProvider: base URLs that can never work", () => {
  it.effect("are refused when the provider is built, the URL's secrets not shown", () =>
    Effect.gen(function*() {
      const cases = [
        "localhost:8787/v1",
        "ftp://127.0.0.1:8787/v1",
        "http://user:PWSECRET@127.0.0.1:8787/v1",
        "https://PWSECRET@127.0.0.1/v1",
        "http://127.0.0.1:8787/v1#frag=PWSECRET",
        "file:///etc/passwd"
      ]
      for (const baseUrl of cases) {
        const result = OpenAiProvider.decodeOptions({ model: "m", baseUrl })
        if (Either.isRight(result)) return assert.fail(`accepted ${baseUrl}`)
        assert.match(result.left.message, /baseUrl must be an http\(s\) URL without user, password or #fragment/)
        assert.notInclude(result.left.message, "PWSECRET", baseUrl)
      }
      assert.isTrue(Either.isRight(OpenAiProvider.decodeOptions({ model: "m", baseUrl: "http://h:8787/v1?api-version=1" })))
    }))

  for (const [name, client] of clients) {
    it.scopedLive(`${name}: nobody listening, https to an http server, an unknown host: permanent, at the first call`, () =>
      Effect.gen(function*() {
        const server = yield* Loopback.serve(() => Effect.succeed(Loopback.completion("never")))
        const port = yield* closedPort
        const cases: ReadonlyArray<readonly [string, string]> = [
          [`http://127.0.0.1:${port}/v1?api_key=${QUERY_SECRET}`, "ECONNREFUSED"],
          [`${server.baseUrl.replace("http://", "https://")}?api_key=${QUERY_SECRET}`, "ERR_TLS"],
          [`http://no-such-host.invalid/v1?api_key=${QUERY_SECRET}`, "ENOTFOUND"]
        ]
        for (const [baseUrl, expected] of cases) {
          const error = failureOf(yield* callAt(baseUrl, client))
          assert.strictEqual(error._tag, "TransportError", baseUrl)
          const code = error._tag === "TransportError" ? error.code : undefined
          assert.strictEqual(ProviderError.transportFailure(code)?.code, expected, `${baseUrl}: ${code}`)
          assert.isTrue(ProviderError.isPermanent(error), baseUrl)
          for (const text of [error.message, JSON.stringify(error)]) assert.notInclude(text, QUERY_SECRET)
          assert.notInclude(error.message, KEY)
        }
        // The https attempt never made a request the server could read.
        assert.strictEqual((yield* server.seen).length, 0)
      }).pipe(Effect.provide(Loopback.layer)))

    it.scopedLive(`${name}: a server that hangs up is transient (retried), not permanent`, () =>
      Effect.gen(function*() {
        const port = yield* hangingUp
        const error = failureOf(yield* callAt(`http://127.0.0.1:${port}/v1`, client))
        assert.strictEqual(error._tag, "TransportError")
        assert.isFalse(ProviderError.isPermanent(error), error.message)
      }))
  }

  it.scopedLive("fetch: a port fetch refuses (1, 6000) is permanent, named as such", () =>
    Effect.gen(function*() {
      for (const port of [1, 6000]) {
        const error = failureOf(yield* callAt(`http://127.0.0.1:${port}/v1`, FetchHttpClient.layer))
        assert.strictEqual(error._tag === "TransportError" ? error.code : undefined, "ERR_BAD_PORT")
        assert.isTrue(ProviderError.isPermanent(error))
        assert.include(error.message, "refuses to connect to that port")
      }
    }))
})

describe("OpenAiProvider: a base URL with a query", () => {
  it.scopedLive("keeps the query after /chat/completions and shows it masked in the span, no client span with it", () =>
    Effect.gen(function*() {
      const { spans, tracer: recording } = yield* Loopback.recordSpans
      const { layer: capture, lines } = Loopback.recordLogs()
      const server = yield* Loopback.serve((attempt) =>
        Effect.succeed(attempt === 1 ? Loopback.failure(500, "boom") : Loopback.completion("ok"))
      )
      const baseUrl = `${server.baseUrl}/?api-version=2024-02-01&api_key=${QUERY_SECRET}`
      const provider = yield* OpenAiProvider.make({ baseUrl, model: "m", retry: noRetry })
      const reply = yield* provider.chat(request).pipe(
        Effect.withTracer(recording),
        Effect.provide(capture),
        Logger.withMinimumLogLevel(LogLevel.All)
      )
      assert.strictEqual(reply.text, "ok")
      const seen = yield* server.seen
      assert.strictEqual(seen[0]!.url, `/v1/chat/completions?api-version=2024-02-01&api_key=${QUERY_SECRET}`)
      const call = spans.find((span) => span.name === "OpenAiProvider.chat")!
      assert.strictEqual(
        call.attributes.get("url.full"),
        `${server.baseUrl}/chat/completions?api-version=2024-02-01&api_key=***`
      )
      for (const span of spans) {
        for (const value of span.attributes.values()) assert.notInclude(String(value), QUERY_SECRET, span.name)
      }
      assert.isAbove(lines.length, 0)
      for (const line of lines) assert.notInclude(line, QUERY_SECRET)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("without a secret in the URL, the HTTP client's own span is kept", () =>
    Effect.gen(function*() {
      const { spans, tracer: recording } = yield* Loopback.recordSpans
      const server = yield* Loopback.serve(() => Effect.succeed(Loopback.completion("ok")))
      const provider = yield* OpenAiProvider.make({ baseUrl: server.baseUrl, model: "m" })
      yield* provider.chat(request).pipe(Effect.withTracer(recording))
      const names = spans.map((span) => span.name)
      assert.include(names, "OpenAiProvider.chat")
      assert.isAbove(names.length, 1)
    }).pipe(Effect.provide(Loopback.layer)))
})

describe("OpenAiProvider: a reply echoing the key", () => {
  it.scopedLive("is redacted in any case, in part, and wherever it is", () =>
    Effect.gen(function*() {
      const echoes = [
        [`key ${KEY}`, "key [redacted]"],
        ["key SK-TEST-SECRET123", "key [redacted]"],
        ["key sk-test-SECRET12", "key [redacted]"],
        ["key k-test-SECRET123!", "key [redacted]!"],
        ["it ends in SECRET123", "it ends in [redacted]"],
        ["nothing of it", "nothing of it"]
      ] as const
      for (const [text, shown] of echoes) {
        const server = yield* Loopback.serve(() => Effect.succeed(Loopback.completion(text)))
        const provider = yield* OpenAiProvider.make({ baseUrl: server.baseUrl, model: "m", apiKey: Redacted.make(KEY) })
        assert.strictEqual((yield* provider.chat(request)).text, shown)
      }
      // Encoded or reversed, the key is no more shown.
      const encoded = [btoa(KEY), btoa(`Bearer ${KEY}`), Array.from(KEY).reverse().join(""), encodeURIComponent(KEY)]
      for (const form of encoded) {
        const server = yield* Loopback.serve(() => Effect.succeed(Loopback.completion(`here: ${form}`)))
        const provider = yield* OpenAiProvider.make({ baseUrl: server.baseUrl, model: "m", apiKey: Redacted.make(KEY) })
        const text = (yield* provider.chat(request)).text
        assert.include(text, "[redacted]", form)
        assert.notInclude(text, form.slice(2, 12), form)
      }
    }).pipe(Effect.provide(Loopback.layer)))
})
