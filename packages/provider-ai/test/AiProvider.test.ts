import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import { assert, describe, it } from "@effect/vitest"
import { Prompt as TaskPrompt, Provider, Summarizer } from "@precis/core"
import { Fixtures } from "@precis/testing"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as AiProvider from "../src/AiProvider.js"

const request: Provider.ChatRequest = {
  messages: [
    { role: "system", content: "You summarize." },
    { role: "user", content: "Summarize: the build failed, then passed." }
  ],
  temperature: 0.2,
  maxTokens: 512
}

// A settings service the scripted model reads, as provider models read their Config.
class Settings extends Context.Tag("test/Settings")<Settings, { readonly temperature: number; readonly cap: number }>() {}

interface Call {
  readonly prompt: Prompt.Prompt
  readonly settings: Option.Option<Context.Tag.Service<Settings>>
}

const finish = (usage: { inputTokens?: number; outputTokens?: number }): Response.PartEncoded => ({
  type: "finish",
  reason: "stop",
  usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: undefined }
})

/** A deterministic LanguageModel answering from `reply` and recording each call. */
const scriptedModel = (
  reply: (call: Call) => Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>
) =>
  Effect.gen(function*() {
    const calls = yield* Ref.make<ReadonlyArray<Call>>([])
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.gen(function*() {
          const call: Call = { prompt: options.prompt, settings: yield* Effect.serviceOption(Settings) }
          yield* Ref.update(calls, (all) => [...all, call])
          return yield* reply(call)
        }),
      streamText: () => Stream.die("not used")
    })
    return { model, calls: Ref.get(calls) }
  })

const withSettings: AiProvider.Configure = (r) => (self) =>
  Effect.provideService(self, Settings, { temperature: r.temperature, cap: r.maxTokens })

const textOf = (prompt: Prompt.Prompt) =>
  prompt.content.map((message) =>
    typeof message.content === "string"
      ? `${message.role}: ${message.content}`
      : `${message.role}: ${message.content.map((part) => (part.type === "text" ? part.text : "")).join("")}`
  )

describe("AiProvider", () => {
  it.effect("sends the messages, applies the request settings and returns text and usage", () =>
    Effect.gen(function*() {
      const { calls, model } = yield* scriptedModel(() =>
        Effect.succeed([{ type: "text", text: "The build passed." }, finish({ inputTokens: 30, outputTokens: 4 })])
      )
      const provider = yield* AiProvider.make({ name: "scripted", configure: withSettings }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      const response = yield* provider.chat(request)
      assert.deepStrictEqual(response, { text: "The build passed.", usage: { inputTokens: 30, outputTokens: 4 } })
      assert.strictEqual(provider.name, "scripted")
      const [call] = yield* calls
      assert.deepStrictEqual(textOf(call!.prompt), [
        "system: You summarize.",
        "user: Summarize: the build failed, then passed."
      ])
      assert.deepStrictEqual(call!.settings, Option.some({ temperature: 0.2, cap: 512 }))
    }))

  it.effect("renders a summary task once, as its prompt in one user message", () =>
    Effect.gen(function*() {
      const { calls, model } = yield* scriptedModel(() => Effect.succeed([{ type: "text", text: "ok" }, finish({})]))
      const provider = yield* AiProvider.make().pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      const task: Provider.SummaryTask = {
        kind: "condense",
        summaries: [{ depth: 0, content: "fixed src/a.ts" }, { depth: 0, content: "3 tests, 0 failures" }],
        targetTokens: 300
      }
      yield* provider.chat({ messages: [], temperature: 0.2, maxTokens: 512, task })
      const [call] = yield* calls
      assert.deepStrictEqual(textOf(call!.prompt), [`user: ${TaskPrompt.forTask(task)}`])
      assert.include(TaskPrompt.forTask(task), "[Summary 2, depth 0]\n3 tests, 0 failures")
    }))

  it.effect("removes <think> blocks from the model's text", () =>
    Effect.gen(function*() {
      const { model } = yield* scriptedModel(() =>
        Effect.succeed([{ type: "text", text: "<think>the user wants a summary</think>\nFixed src/a.ts." }, finish({})])
      )
      const provider = yield* AiProvider.make().pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      assert.deepStrictEqual(yield* provider.chat(request), { text: "Fixed src/a.ts." })
    }))

  it.effect("without configure the model gets no settings, and missing usage is left out", () =>
    Effect.gen(function*() {
      const { calls, model } = yield* scriptedModel(() =>
        Effect.succeed([{ type: "reasoning", text: "thinking..." }, { type: "text", text: "ok" }, finish({})])
      )
      const provider = yield* AiProvider.make().pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      assert.deepStrictEqual(yield* provider.chat(request), { text: "ok" })
      assert.strictEqual(provider.name, "ai")
      const [call] = yield* calls
      assert.isTrue(Option.isNone(call!.settings))
    }))

  it.effect("a timeout option fails with TimeoutError", () =>
    Effect.gen(function*() {
      const { model } = yield* scriptedModel(() => Effect.never)
      const provider = yield* AiProvider.make({ timeout: "30 seconds" }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      const fiber = yield* Effect.fork(Effect.flip(provider.chat(request)))
      yield* TestClock.adjust("30 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "TimeoutError")
    }))

  it.effect("options that make no sense fail the build with a typed error naming them, never a defect", () =>
    Effect.gen(function*() {
      const { model } = yield* scriptedModel(() => Effect.succeed([{ type: "text", text: "ok" }, finish({})]))
      const exit = yield* Effect.exit(
        Layer.build(AiProvider.layer({ name: "", timeout: "abc" as Duration.DurationInput })).pipe(
          Effect.provideService(LanguageModel.LanguageModel, model),
          Effect.scoped
        )
      )
      if (Exit.isSuccess(exit)) return assert.fail("built")
      assert.isFalse(Cause.isDie(exit.cause))
      const error = Option.getOrThrow(Cause.failureOption(exit.cause))
      assert.strictEqual(
        error.message,
        `invalid AI provider options: name must be a non-empty string (got ""); ` +
          `timeout must be a positive finite duration such as "30 seconds" (got "abc")`
      )
    }))

  it.effect("the Summarizer runs over it", () =>
    Effect.gen(function*() {
      const { model } = yield* scriptedModel(() => Effect.succeed([{ type: "text", text: "Short." }, finish({})]))
      const summarizer = yield* Summarizer.Summarizer.pipe(
        Effect.provide(Summarizer.layer().pipe(
          Layer.provide(AiProvider.layer({ configure: withSettings })),
          Layer.provide(Layer.succeed(LanguageModel.LanguageModel, model))
        ))
      )
      const summary = yield* summarizer.summarizeTurns([
        Fixtures.turn("user", "Please run the whole test suite and tell me what broke in the parser module.")
      ])
      assert.strictEqual(summary.tier, "normal")
      assert.strictEqual(summary.text, "Short.")
    }))
})

describe("AiProvider: AiError mapping", () => {
  const requestDetails = {
    method: "POST" as const,
    url: "https://api.example.com/v1/responses",
    urlParams: [],
    hash: Option.none(),
    headers: {}
  }
  const httpResponse = (status: number, body?: string, headers: Record<string, string> = {}) =>
    new AiError.HttpResponseError({
      module: "Test",
      method: "generate",
      reason: "StatusCode",
      request: requestDetails,
      response: { status, headers },
      ...(body === undefined ? {} : { body })
    })

  const mapped = (error: AiError.AiError) =>
    Effect.gen(function*() {
      const { model } = yield* scriptedModel(() => Effect.fail(error))
      const provider = yield* AiProvider.make({ name: "test" }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      const exit = yield* Effect.exit(provider.chat(request))
      if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") return assert.fail("expected a typed failure")
      return exit.cause.error
    })

  it.effect("maps each AiError to the ProviderError of the same meaning", () =>
    Effect.gen(function*() {
      const openAiBody = JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } })
      const anthropicBody = JSON.stringify({ type: "error", error: { type: "not_found_error", message: "model: claude-x" } })
      const cases: ReadonlyArray<readonly [AiError.AiError, string, string | undefined]> = [
        [
          new AiError.HttpRequestError({
            module: "Test",
            method: "generate",
            reason: "Transport",
            request: requestDetails,
            description: "connect ECONNREFUSED"
          }),
          "TransportError",
          "ECONNREFUSED"
        ],
        [httpResponse(401, openAiBody), "UnauthorizedError", "Incorrect API key provided"],
        [httpResponse(403), "UnauthorizedError", "HTTP 403"],
        [httpResponse(429, undefined, { "retry-after": "12" }), "RateLimitedError", "retry after 12s"],
        [httpResponse(400, "context too long"), "BadRequestError", "context too long"],
        [httpResponse(404, anthropicBody), "BadRequestError", "model: claude-x"],
        [httpResponse(422), "BadRequestError", "HTTP 422"],
        [httpResponse(500, "upstream failed"), "ServerError", "upstream failed"],
        [httpResponse(529, JSON.stringify({ type: "error", error: { message: "Overloaded" } })), "ServerError", "Overloaded"],
        [
          new AiError.HttpResponseError({
            module: "Test",
            method: "generate",
            reason: "Decode",
            request: requestDetails,
            response: { status: 200, headers: {} }
          }),
          "BadResponseError",
          "undecodable body"
        ],
        [
          new AiError.MalformedOutput({ module: "Test", method: "generate", description: "bad part" }),
          "BadResponseError",
          "bad part"
        ],
        [
          new AiError.MalformedInput({ module: "Test", method: "generate", description: "file parts unsupported" }),
          "BadRequestError",
          "file parts unsupported"
        ],
        [
          new AiError.UnknownError({ module: "Test", method: "generate", description: "weird" }),
          "BadResponseError",
          "weird"
        ]
      ]
      for (const [error, tag, text] of cases) {
        const result = yield* mapped(error)
        assert.strictEqual(result._tag, tag, error.message)
        if (text !== undefined) assert.include(result.message, text)
        assert.include(result.message, "test:")
      }
      const limited = yield* mapped(httpResponse(429, undefined, { "retry-after": "12" }))
      assert.deepStrictEqual(limited._tag === "RateLimitedError" ? limited.retryAfter : undefined, Duration.seconds(12))
      // An HTTP date is read against the Clock (the TestClock here), not the wall clock.
      yield* TestClock.setTime(Date.parse("2025-01-01T00:00:00Z"))
      const dated = yield* mapped(httpResponse(429, undefined, { "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }))
      assert.deepStrictEqual(dated._tag === "RateLimitedError" ? dated.retryAfter : undefined, Duration.millis(30_000))
    }))
})

describe("AiProvider: real provider models", () => {
  it.effect("openAiConfig sets temperature and max_output_tokens on the OpenAI request", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make<ReadonlyArray<unknown>>([])
      const client = {
        createResponse: (payload: unknown) =>
          Effect.as(Ref.update(sent, (all) => [...all, payload]), {
            id: "resp_1",
            object: "response",
            created_at: 1_700_000_000,
            model: "gpt-4o-mini",
            status: "completed",
            output: [{
              type: "message",
              id: "msg_1",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "The build passed.", annotations: [] }]
            }],
            usage: { input_tokens: 21, output_tokens: 4 }
          })
      } as unknown as OpenAiClient.Service
      const ProviderLive = AiProvider.layer({
        name: "openai",
        configure: AiProvider.openAiConfig(OpenAiLanguageModel.withConfigOverride)
      }).pipe(
        Layer.provide(OpenAiLanguageModel.layer({ model: "gpt-4o-mini" })),
        Layer.provide(Layer.succeed(OpenAiClient.OpenAiClient, client))
      )
      const provider = yield* Effect.provide(Provider.Provider, ProviderLive)
      const response = yield* provider.chat(request)
      assert.deepStrictEqual(response, { text: "The build passed.", usage: { inputTokens: 21, outputTokens: 4 } })
      const [payload] = (yield* Ref.get(sent)) as ReadonlyArray<Record<string, unknown>>
      assert.strictEqual(payload!["model"], "gpt-4o-mini")
      assert.strictEqual(payload!["temperature"], 0.2)
      assert.strictEqual(payload!["max_output_tokens"], 512)
    }))

  it.effect("anthropicConfig sets temperature and max_tokens on the Anthropic request", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make<ReadonlyArray<unknown>>([])
      const client = {
        createMessage: (options: { readonly payload: unknown }) =>
          Effect.as(Ref.update(sent, (all) => [...all, options.payload]), {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-3-5-haiku-latest",
            content: [{ type: "text", text: "The build passed." }],
            stop_reason: "end_turn",
            stop_sequence: null,
            usage: { input_tokens: 25, output_tokens: 5 }
          })
      } as unknown as AnthropicClient.Service
      const ProviderLive = AiProvider.layer({
        name: "anthropic",
        configure: AiProvider.anthropicConfig(AnthropicLanguageModel.withConfigOverride)
      }).pipe(
        Layer.provide(AnthropicLanguageModel.layer({ model: "claude-3-5-haiku-latest" })),
        Layer.provide(Layer.succeed(AnthropicClient.AnthropicClient, client))
      )
      const provider = yield* Effect.provide(Provider.Provider, ProviderLive)
      const response = yield* provider.chat(request)
      assert.deepStrictEqual(response, { text: "The build passed.", usage: { inputTokens: 25, outputTokens: 5 } })
      const [payload] = (yield* Ref.get(sent)) as ReadonlyArray<Record<string, unknown>>
      assert.strictEqual(payload!["model"], "claude-3-5-haiku-latest")
      assert.strictEqual(payload!["temperature"], 0.2)
      assert.strictEqual(payload!["max_tokens"], 512)
    }))
})
