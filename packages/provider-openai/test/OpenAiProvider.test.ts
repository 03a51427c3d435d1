import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { assert, describe, it } from "@effect/vitest"
import { Prompt, Provider, ProviderError } from "@precis/core"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as OpenAiProvider from "../src/OpenAiProvider.js"
import * as Loopback from "./utils/LoopbackServer.js"

const KEY = "sk-test-7f3a9c1e5b2d4a6f8e0c"

const request: Provider.ChatRequest = {
  messages: [
    { role: "system", content: "You summarize." },
    { role: "user", content: "Summarize: the build failed, then passed." }
  ],
  temperature: 0.2,
  maxTokens: 512
}

// Short waits so retry tests run in milliseconds of real time.
const fastRetry: OpenAiProvider.RetryOptions = { maxAttempts: 3, initialDelay: "1 millis", maxDelay: "5 millis" }

/** Runs one chat call against a loopback server answering with `handler`. */
const callWith = (
  handler: Loopback.Handler,
  options: Partial<OpenAiProvider.Options> & { readonly request?: Provider.ChatRequest } = {}
) =>
  Effect.gen(function*() {
    const server = yield* Loopback.serve(handler)
    const provider = yield* OpenAiProvider.make({
      baseUrl: server.baseUrl,
      model: "test-model",
      retry: fastRetry,
      ...options
    })
    const exit = yield* Effect.exit(provider.chat(options.request ?? request))
    const seen = yield* server.seen
    return { exit, seen }
  })

const failureOf = <A>(exit: Exit.Exit<A, ProviderError.ProviderError>): ProviderError.ProviderError => {
  if (Exit.isSuccess(exit)) return assert.fail(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  return failure ?? assert.fail(`expected a typed failure, got ${String(exit.cause)}`)
}

const successOf = <A>(exit: Exit.Exit<A, ProviderError.ProviderError>): A =>
  Exit.isSuccess(exit) ? exit.value : assert.fail(`expected a success, got ${String(exit.cause)}`)

const always = (response: HttpServerResponse.HttpServerResponse): Loopback.Handler => () => Effect.succeed(response)

describe("OpenAiProvider: requests", () => {
  it.scopedLive("sends model, messages, temperature and max_tokens, with the bearer key", () =>
    Effect.gen(function*() {
      const { exit, seen } = yield* callWith(always(Loopback.completion("ok")), {
        apiKey: Redacted.make(KEY),
        headers: { "X-Title": "precis" }
      })
      successOf(exit)
      assert.strictEqual(seen.length, 1)
      assert.deepStrictEqual(seen[0]!.body, {
        model: "test-model",
        messages: request.messages,
        temperature: 0.2,
        max_tokens: 512
      })
      assert.strictEqual(seen[0]!.headers["authorization"], `Bearer ${KEY}`)
      assert.strictEqual(seen[0]!.headers["content-type"], "application/json")
      assert.strictEqual(seen[0]!.headers["accept"], "application/json")
      assert.strictEqual(seen[0]!.headers["x-title"], "precis")
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("renders a summary task once, as its prompt in one user message", () =>
    Effect.gen(function*() {
      const task: Provider.SummaryTask = {
        kind: "aggressive",
        turns: [{ role: "user", content: "the build failed, then passed.", timestamp: "2025-01-01T00:00:00Z" }],
        targetTokens: 100,
        priorSummary: "we set up CI"
      }
      const { seen } = yield* callWith(always(Loopback.completion("ok")), {
        request: { messages: [], temperature: 0.1, maxTokens: 512, task }
      })
      const messages = (seen[0]!.body as { messages: ReadonlyArray<Provider.ChatMessage> }).messages
      assert.deepStrictEqual(messages, [{ role: "user", content: Prompt.forTask(task) }])
      assert.include(messages[0]!.content, "shorter than 100 tokens")
      assert.include(messages[0]!.content, "[2025-01-01T00:00:00] user: the build failed, then passed.")
      assert.include(messages[0]!.content, "we set up CI")
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("sends no Authorization header without a key (or with an empty one)", () =>
    Effect.gen(function*() {
      const none = yield* callWith(always(Loopback.completion("ok")))
      const empty = yield* callWith(always(Loopback.completion("ok")), { apiKey: Redacted.make("") })
      assert.strictEqual(none.seen[0]!.headers["authorization"], undefined)
      assert.strictEqual(empty.seen[0]!.headers["authorization"], undefined)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("uses max_completion_tokens when asked", () =>
    Effect.gen(function*() {
      const { seen } = yield* callWith(always(Loopback.completion("ok")), { tokenParameter: "max_completion_tokens" })
      const body = seen[0]!.body as Record<string, unknown>
      assert.strictEqual(body["max_completion_tokens"], 512)
      assert.isFalse("max_tokens" in body)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("accepts a base URL with a trailing slash", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.serve(always(Loopback.completion("ok")))
      const provider = yield* OpenAiProvider.make({ baseUrl: `${server.baseUrl}/`, model: "m" })
      assert.strictEqual((yield* provider.chat(request)).text, "ok")
    }).pipe(Effect.provide(Loopback.layer)))
})

describe("OpenAiProvider: responses", () => {
  it.scopedLive("returns the text and the usage", () =>
    Effect.gen(function*() {
      const { exit } = yield* callWith(
        always(Loopback.completion("The build passed.", { usage: { prompt_tokens: 42, completion_tokens: 5 } }))
      )
      assert.deepStrictEqual(successOf(exit), { text: "The build passed.", usage: { inputTokens: 42, outputTokens: 5 } })
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("returns no usage when the server reports none", () =>
    Effect.gen(function*() {
      const { exit } = yield* callWith(always(Loopback.completion("text")))
      assert.deepStrictEqual(successOf(exit), { text: "text" })
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("content null, empty choices, a refusal and a reasoning-only reply are empty text", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<HttpServerResponse.HttpServerResponse> = [
        Loopback.completion(null),
        HttpServerResponse.unsafeJson({ choices: [] }),
        Loopback.completion(null, { message: { refusal: "I can't help with that." } }),
        Loopback.completion("", { message: { reasoning_content: "Let me think about the build..." } }),
        Loopback.completion("<think>The user wants a summary. The build...</think>")
      ]
      for (const response of cases) {
        const { exit, seen } = yield* callWith(always(response))
        assert.deepStrictEqual(successOf(exit), { text: "" })
        assert.strictEqual(seen.length, 1, "an empty reply is not retried")
      }
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("removes <think> blocks from the reply", () =>
    Effect.gen(function*() {
      const { exit } = yield* callWith(
        always(Loopback.completion("<think>\nfirst the build, then the tests\n</think>\n\nThe build passed."))
      )
      assert.strictEqual(successOf(exit).text, "The build passed.")
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("joins array content parts", () =>
    Effect.gen(function*() {
      const { exit } = yield* callWith(
        always(HttpServerResponse.unsafeJson({
          choices: [{ message: { content: [{ type: "text", text: "The build " }, { type: "text", text: "passed." }] } }]
        }))
      )
      assert.strictEqual(successOf(exit).text, "The build passed.")
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("malformed JSON is a BadResponseError, not retried", () =>
    Effect.gen(function*() {
      const { exit, seen } = yield* callWith(
        always(HttpServerResponse.text("{\"choices\": [", { contentType: "application/json" }))
      )
      const error = failureOf(exit)
      assert.strictEqual(error._tag, "BadResponseError")
      assert.include(error.message, "unreadable response")
      assert.strictEqual(seen.length, 1)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("a body of the wrong shape is a BadResponseError", () =>
    Effect.gen(function*() {
      const { exit } = yield* callWith(always(HttpServerResponse.unsafeJson({ object: "list", data: [] })))
      const error = failureOf(exit)
      assert.strictEqual(error._tag, "BadResponseError")
      // One sentence naming the field, not the Schema's type as a tree.
      assert.include(error.message, "not a chat completion: \"choices\" is missing")
      assert.notMatch(error.message, /readonly|└─|\n/)
    }).pipe(Effect.provide(Loopback.layer)))
})

describe("OpenAiProvider: errors and retries", () => {
  it.scopedLive("429 with Retry-After, then success: retried", () =>
    Effect.gen(function*() {
      const { exit, seen } = yield* callWith((attempt) =>
        Effect.succeed(
          attempt === 1
            ? Loopback.failure(429, "Rate limit reached", { "retry-after": "0" })
            : Loopback.completion("after the wait")
        )
      )
      assert.strictEqual(successOf(exit).text, "after the wait")
      assert.strictEqual(seen.length, 2)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("a Retry-After longer than maxDelay ends the retries and is reported", () =>
    Effect.gen(function*() {
      const { exit, seen } = yield* callWith(always(Loopback.failure(429, "slow down", { "retry-after": "7" })))
      const error = failureOf(exit)
      assert.strictEqual(seen.length, 1)
      if (error._tag !== "RateLimitedError") return assert.fail(error._tag)
      assert.deepStrictEqual(error.retryAfter, Duration.seconds(7))
      assert.include(error.message, "retry after 7s")
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("5xx is retried until the attempts run out", () =>
    Effect.gen(function*() {
      const { exit, seen } = yield* callWith(always(Loopback.failure(503, "The engine is currently overloaded")))
      const error = failureOf(exit)
      assert.strictEqual(seen.length, 3)
      if (error._tag !== "ServerError") return assert.fail(error._tag)
      assert.strictEqual(error.status, 503)
      assert.include(error.message, "HTTP 503")
      assert.include(error.message, "The engine is currently overloaded")
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("5xx then success", () =>
    Effect.gen(function*() {
      const { exit, seen } = yield* callWith((attempt) =>
        Effect.succeed(attempt < 3 ? HttpServerResponse.text("Bad Gateway", { status: 502 }) : Loopback.completion("ok"))
      )
      assert.strictEqual(successOf(exit).text, "ok")
      assert.strictEqual(seen.length, 3)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("408 is retried as a ServerError", () =>
    Effect.gen(function*() {
      const { exit, seen } = yield* callWith(always(HttpServerResponse.empty({ status: 408 })))
      const error = failureOf(exit)
      assert.strictEqual(error._tag, "ServerError")
      assert.strictEqual(seen.length, 3)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("401 and 403 are UnauthorizedError, not retried", () =>
    Effect.gen(function*() {
      for (const status of [401, 403]) {
        const { exit, seen } = yield* callWith(always(Loopback.failure(status, "Incorrect API key provided")), {
          apiKey: Redacted.make(KEY)
        })
        const error = failureOf(exit)
        assert.strictEqual(seen.length, 1)
        if (error._tag !== "UnauthorizedError") return assert.fail(error._tag)
        assert.strictEqual(error.status, status)
        assert.include(error.message, "Incorrect API key provided")
        assert.include(error.message, "check the API key")
      }
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("400, 404 and 422 are BadRequestError with the server's message, not retried", () =>
    Effect.gen(function*() {
      for (const status of [400, 404, 422]) {
        const { exit, seen } = yield* callWith(
          always(Loopback.failure(status, "This model's maximum context length is 8192 tokens"))
        )
        const error = failureOf(exit)
        assert.strictEqual(seen.length, 1)
        if (error._tag !== "BadRequestError") return assert.fail(error._tag)
        assert.strictEqual(error.status, status)
        assert.include(error.message, "maximum context length is 8192 tokens")
      }
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("a 404 without a body names the model", () =>
    Effect.gen(function*() {
      const { exit } = yield* callWith(always(HttpServerResponse.empty({ status: 404 })))
      const error = failureOf(exit)
      assert.strictEqual(error._tag, "BadRequestError")
      assert.include(error.message, "test-model")
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("another status (409) is a ServerError, not retried", () =>
    Effect.gen(function*() {
      const { exit, seen } = yield* callWith(always(HttpServerResponse.text("conflict", { status: 409 })))
      const error = failureOf(exit)
      assert.strictEqual(error._tag, "ServerError")
      assert.include(error.message, "conflict")
      assert.strictEqual(seen.length, 1)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scoped("a body larger than the limit for the tokens asked is a BadResponseError, not retried", () =>
    Effect.gen(function*() {
      // 512 tokens asked: the limit is 1 MiB + 16 KiB; this reply is 3 MB.
      const { exit, seen } = yield* callWith(always(Loopback.completion("x".repeat(3_000_000))))
      const error = failureOf(exit)
      assert.strictEqual(error._tag, "BadResponseError")
      assert.include(error.message, `larger than ${OpenAiProvider.responseLimit(512)} bytes`)
      assert.strictEqual(seen.length, 1)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scoped("maxResponseBytes sets the limit: a body within it is read", () =>
    Effect.gen(function*() {
      const reply = "y".repeat(2_000)
      const over = yield* callWith(always(Loopback.completion(reply)), { maxResponseBytes: 1_000 })
      assert.strictEqual(failureOf(over.exit)._tag, "BadResponseError")
      const within = yield* callWith(always(Loopback.completion(reply)), { maxResponseBytes: 10_000 })
      assert.strictEqual(successOf(within.exit).text, reply)
    }).pipe(Effect.provide(Loopback.layer)))

  it.scoped("a reply that echoes the API key has the key redacted", () =>
    Effect.gen(function*() {
      const { exit } = yield* callWith(always(Loopback.completion(`Config: key=${KEY}; again ${KEY}.`)), {
        apiKey: Redacted.make(KEY)
      })
      const text = successOf(exit).text
      assert.notInclude(text, KEY)
      assert.strictEqual(text, "Config: key=[redacted]; again [redacted].")
    }).pipe(Effect.provide(Loopback.layer)))

  it.scopedLive("a refused connection is a TransportError naming the server", () =>
    Effect.gen(function*() {
      // Take a free port, then close its server, so nothing listens there.
      const baseUrl = yield* Effect.scoped(
        Effect.map(Loopback.serve(always(Loopback.completion("unused"))), (s) => s.baseUrl)
      ).pipe(Effect.provide(Loopback.layer))
      const provider = yield* OpenAiProvider.make({ baseUrl, model: "m", apiKey: Redacted.make(KEY), retry: fastRetry })
      const error = failureOf(yield* Effect.exit(provider.chat(request)))
      assert.strictEqual(error._tag, "TransportError")
      assert.include(error.message, baseUrl)
      assert.notInclude(error.message, KEY)
      // Nobody listens there: retrying will not help, and the Summarizer's callers can tell.
      assert.strictEqual(error._tag === "TransportError" ? error.code : undefined, "ECONNREFUSED")
      assert.isTrue(ProviderError.isPermanent(error))
    }).pipe(Effect.provide(Loopback.layer)))

  it.scoped("a server that never answers: TimeoutError after the timeout, not retried", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.serve(() => Effect.never)
      const provider = yield* OpenAiProvider.make({ baseUrl: server.baseUrl, model: "m", timeout: "10 seconds" })
      const fiber = yield* Effect.fork(Effect.exit(provider.chat(request)))
      yield* Queue.take(server.arrivals)
      yield* TestClock.adjust("9 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 second")
      const error = failureOf(yield* Fiber.join(fiber))
      if (error._tag !== "TimeoutError") return assert.fail(error._tag)
      assert.deepStrictEqual(error.timeout, Duration.seconds(10))
      assert.strictEqual((yield* server.seen).length, 1)
    }).pipe(Effect.provide(Loopback.layer)))
})

describe("OpenAiProvider: secrets, logs and spans", () => {
  it.scopedLive("the key appears in no log line, error message or span attribute", () => {
    const { layer: capture, lines } = Loopback.recordLogs()
    return Effect.gen(function*() {
      const { spans, tracer: recording } = yield* Loopback.recordSpans
      const echoKey: Loopback.Handler = (_, seen) =>
        Effect.succeed(Loopback.failure(401, `Incorrect API key provided: ${seen.headers["authorization"]}`))
      const handlers: ReadonlyArray<Loopback.Handler> = [
        echoKey,
        always(Loopback.failure(400, `bad request with key ${KEY}`)),
        always(Loopback.failure(500, "boom")),
        always(Loopback.failure(429, "slow down", { "retry-after": "0" })),
        always(HttpServerResponse.text("not json")),
        always(Loopback.completion("fine"))
      ]
      const messages: Array<string> = []
      for (const handler of handlers) {
        const { exit } = yield* callWith(handler, { apiKey: Redacted.make(KEY) }).pipe(Effect.withTracer(recording))
        if (Exit.isFailure(exit)) {
          const error = failureOf(exit)
          messages.push(error.message, String(error), JSON.stringify(error))
        }
      }
      assert.strictEqual(messages.length, 15)
      assert.isAtLeast(lines.filter((line) => line.includes("attempt failed")).length, 9, "each failed attempt is logged")
      for (const text of [...messages, ...lines]) assert.notInclude(text, KEY)
      assert.include(messages[0]!, "[redacted]")
      assert.include(messages[3]!, "[redacted]")
      const calls = spans.filter((span) => span.name === "OpenAiProvider.chat")
      assert.strictEqual(calls.length, handlers.length)
      assert.isAbove(spans.length, calls.length, "the HTTP client spans are checked too")
      for (const span of spans) {
        for (const value of span.attributes.values()) assert.notInclude(String(value), KEY)
      }
      assert.strictEqual(calls[0]!.attributes.get("gen_ai.request.model"), "test-model")
      assert.strictEqual(calls[0]!.attributes.get("precis.status"), "UnauthorizedError")
      assert.strictEqual(calls[3]!.attributes.get("precis.status"), "RateLimitedError")
      assert.strictEqual(calls[3]!.attributes.get("precis.attempts"), 3)
      assert.strictEqual(calls[5]!.attributes.get("precis.status"), "ok")
    }).pipe(
      Effect.provide(Loopback.layer),
      Effect.provide(capture),
      Logger.withMinimumLogLevel(LogLevel.All)
    )
  })
})

describe("OpenAiProvider.layerConfig", () => {
  const withEnv = (env: Record<string, string>) =>
    Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.scopedLive("reads the base URL, the model and OPENAI_API_KEY as a fallback key", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.serve(always(Loopback.completion("configured")))
      const provider = yield* Provider.Provider.pipe(
        Effect.provide(OpenAiProvider.layerConfig().pipe(
          Layer.provide(withEnv({
            PRECIS_OPENAI_BASE_URL: server.baseUrl,
            PRECIS_OPENAI_MODEL: "llama3.1:8b",
            OPENAI_API_KEY: KEY
          }))
        ))
      )
      assert.strictEqual((yield* provider.chat(request)).text, "configured")
      const [seen] = yield* server.seen
      assert.strictEqual(seen!.headers["authorization"], `Bearer ${KEY}`)
      assert.strictEqual((seen!.body as { model: string }).model, "llama3.1:8b")
    }).pipe(Effect.provide(Loopback.layer)))

  it.effect("prefers PRECIS_OPENAI_API_KEY, defaults the base URL, and needs no key", () =>
    Effect.gen(function*() {
      const both = yield* OpenAiProvider.config.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(
          new Map([["PRECIS_OPENAI_MODEL", "m"], ["PRECIS_OPENAI_API_KEY", "precis-key"], ["OPENAI_API_KEY", "other"]])
        ))
      )
      assert.strictEqual(both.apiKey === undefined ? undefined : Redacted.value(both.apiKey), "precis-key")
      assert.strictEqual(both.baseUrl, undefined)
      assert.strictEqual(Either.getOrThrow(OpenAiProvider.decodeOptions(both)).baseUrl, "https://api.openai.com/v1")
      const keyless = yield* OpenAiProvider.config.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["PRECIS_OPENAI_MODEL", "m"]])))
      )
      assert.strictEqual(keyless.apiKey, undefined)
      const emptied = yield* OpenAiProvider.config.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(
          new Map([["PRECIS_OPENAI_MODEL", "m"], ["PRECIS_OPENAI_API_KEY", ""], ["OPENAI_API_KEY", "other"]])
        ))
      )
      assert.strictEqual(emptied.apiKey === undefined ? undefined : Redacted.value(emptied.apiKey), "")
    }))

  it.effect("a missing model is a ConfigError naming PRECIS_OPENAI_MODEL", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(OpenAiProvider.layerConfig()).pipe(
          Effect.provide(Loopback.layer),
          Effect.provide(withEnv({ OPENAI_API_KEY: KEY })),
          Effect.scoped
        )
      )
      if (Exit.isSuccess(exit)) return assert.fail("expected a ConfigError")
      const text = String(exit.cause)
      assert.include(text, "PRECIS_OPENAI_MODEL")
      assert.notInclude(text, KEY)
    }))
})

describe("OpenAiProvider options", () => {
  it("refuses each option out of its bounds with a typed error naming it", () => {
    const cases: ReadonlyArray<readonly [OpenAiProvider.Options, string]> = [
      [{ model: "" }, `model must be a non-empty string (got "")`],
      [
        { model: "m", baseUrl: "localhost:11434/v1" },
        `baseUrl must be an http(s) URL without user, password or #fragment (got "localhost:11434/v1")`
      ],
      [{ model: "m", maxResponseBytes: -1 }, "maxResponseBytes must be an integer >= 1 (got -1)"],
      [{ model: "m", retry: { maxAttempts: -1 } }, "retry.maxAttempts must be an integer >= 1 (got -1)"],
      [{ model: "m", retry: { maxAttempts: 0 } }, "retry.maxAttempts must be an integer >= 1 (got 0)"],
      [{ model: "m", retry: { initialDelay: -5 } }, "retry.initialDelay must be a finite duration"],
      [{ model: "m", timeout: "abc" as Duration.DurationInput }, `timeout must be a positive finite duration such as "30 seconds" (got "abc")`],
      [{ model: "m", name: " " }, `name must be a non-empty string (got " ")`],
      [
        { model: "m", tokenParameter: "max_output_tokens" as "max_tokens" },
        `tokenParameter must be one of max_tokens, max_completion_tokens (got "max_output_tokens")`
      ]
    ]
    for (const [options, message] of cases) {
      const result = OpenAiProvider.decodeOptions(options)
      if (Either.isRight(result)) return assert.fail(`accepted ${JSON.stringify(options)}`)
      assert.strictEqual(result.left._tag, "InvalidOpenAiOptionsError")
      assert.include(result.left.message, `invalid OpenAI provider options: ${message}`)
    }
  })

  it.effect("a layer with bad options fails when built, with the typed error, never a defect", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(OpenAiProvider.layer({ model: "", timeout: "abc" as Duration.DurationInput, apiKey: Redacted.make(KEY) }))
          .pipe(Effect.provide(Loopback.layer), Effect.scoped)
      )
      if (Exit.isSuccess(exit)) return assert.fail("built")
      const failure = Cause.failureOption(exit.cause)
      assert.isTrue(Option.isSome(failure) && failure.value._tag === "InvalidOpenAiOptionsError", String(exit.cause))
      assert.notInclude(String(exit.cause), KEY)
    }))

  const read = (env: Record<string, string>) =>
    Effect.either(OpenAiProvider.config.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

  it.effect("config reads every option from its PRECIS_OPENAI_* variable, the retry ones too", () =>
    Effect.gen(function*() {
      const options = Either.getOrThrow(yield* read({
        PRECIS_OPENAI_MODEL: "m",
        PRECIS_OPENAI_BASE_URL: "http://localhost:11434/v1",
        PRECIS_OPENAI_TOKEN_PARAMETER: "max_completion_tokens",
        PRECIS_OPENAI_TIMEOUT: "30",
        PRECIS_OPENAI_NAME: "ollama",
        PRECIS_OPENAI_MAX_RESPONSE_BYTES: "4096",
        PRECIS_OPENAI_RETRY_MAX_ATTEMPTS: "2",
        PRECIS_OPENAI_RETRY_INITIAL_DELAY: "1 second",
        PRECIS_OPENAI_RETRY_MAX_DELAY: "5 seconds",
        PRECIS_OPENAI_RETRY_MAX_ELAPSED: "1 minute"
      }))
      assert.deepStrictEqual(options, {
        model: "m",
        baseUrl: "http://localhost:11434/v1",
        tokenParameter: "max_completion_tokens",
        timeout: Duration.seconds(30),
        name: "ollama",
        maxResponseBytes: 4096,
        retry: {
          maxAttempts: 2,
          initialDelay: Duration.seconds(1),
          maxDelay: Duration.seconds(5),
          maxElapsed: Duration.minutes(1)
        }
      })
    }))

  it.effect("config refuses a bad variable, naming it", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["PRECIS_OPENAI_MODEL", " "],
        ["PRECIS_OPENAI_BASE_URL", "api.openai.com"],
        ["PRECIS_OPENAI_MAX_RESPONSE_BYTES", "-1"],
        ["PRECIS_OPENAI_RETRY_MAX_ATTEMPTS", "-1"],
        ["PRECIS_OPENAI_TIMEOUT", "abc"]
      ]
      for (const [name, value] of cases) {
        const result = yield* read({ PRECIS_OPENAI_MODEL: "m", [name]: value })
        if (Either.isRight(result)) return assert.fail(`${name}=${value} accepted`)
        assert.include(String(result.left), `Invalid data at ${name}: "must be`)
      }
    }))
})
