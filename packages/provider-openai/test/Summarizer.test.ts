import { assert, describe, it } from "@effect/vitest"
import { Prompt, Summarizer } from "@precis/core"
import { Fixtures } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/TestClock"
import * as OpenAiProvider from "../src/OpenAiProvider.js"
import * as Loopback from "./utils/LoopbackServer.js"

// About 100 estimated tokens of material: a reply must be shorter to be kept by the normal tier.
const turns = Fixtures.conversation(6, {
  content: (i) => `step ${i}: ran pnpm test in packages/core, fixed the failing import in src/Summarizer.ts`
})

/** Summarizes `turns` through the OpenAI adapter and a loopback server answering with `handler`. */
const summarizeWith = (handler: Loopback.Handler) =>
  Effect.gen(function*() {
    const server = yield* Loopback.serve(handler)
    const SummarizerLive = Summarizer.layer({ timeout: "10 seconds" }).pipe(
      Layer.provide(OpenAiProvider.layer({
        baseUrl: server.baseUrl,
        model: "test-model",
        retry: { maxAttempts: 2, initialDelay: "1 millis", maxDelay: "2 millis" }
      }))
    )
    const summarizer = yield* Effect.provide(Summarizer.Summarizer, SummarizerLive)
    const summary = yield* summarizer.summarizeTurns(turns, { targetTokens: 40 })
    const seen = yield* server.seen
    return { summary, seen, tierCounts: yield* summarizer.tierCounts }
  }).pipe(Effect.provide(Loopback.layer))

const temperatureOf = (body: unknown) => (body as { temperature: number }).temperature

describe("Summarizer over the OpenAI adapter", () => {
  it.scopedLive("normal tier: a short reply is kept", () =>
    Effect.gen(function*() {
      const { seen, summary, tierCounts } = yield* summarizeWith(() =>
        Effect.succeed(Loopback.completion("<think>short it is</think>Fixed the import in src/Summarizer.ts."))
      )
      assert.strictEqual(summary.tier, "normal")
      assert.strictEqual(summary.text, "Fixed the import in src/Summarizer.ts.")
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(temperatureOf(seen[0]!.body), 0.2)
      assert.deepStrictEqual(tierCounts, { normal: 1, aggressive: 0, fallback: 0 })
    }))

  it.scopedLive("aggressive tier: a reply longer than the input, then a short one", () =>
    Effect.gen(function*() {
      const long = "This reply repeats everything at length. ".repeat(40)
      const { seen, summary } = yield* summarizeWith((attempt) =>
        Effect.succeed(Loopback.completion(attempt === 1 ? long : "Import fixed; tests pass."))
      )
      assert.strictEqual(summary.tier, "aggressive")
      assert.strictEqual(summary.text, "Import fixed; tests pass.")
      assert.deepStrictEqual(seen.map((s) => temperatureOf(s.body)), [0.2, 0.1])
    }))

  it.scopedLive("fallback tier: the server keeps failing", () =>
    Effect.gen(function*() {
      const { seen, summary } = yield* summarizeWith(() =>
        Effect.succeed(Loopback.failure(500, "internal error"))
      )
      assert.strictEqual(summary.tier, "fallback")
      assert.isTrue(summary.text.endsWith(`\n${Prompt.truncationMarker}`))
      assert.isTrue(summary.text.includes("step 0: ran pnpm test"))
      // Two tiers, each retried once.
      assert.strictEqual(seen.length, 4)
    }))

  it.scopedLive("a huge reply is never a summary: both tiers refuse it, the fallback is stored", () =>
    Effect.gen(function*() {
      const { seen, summary } = yield* summarizeWith(() => Effect.succeed(Loopback.completion("z".repeat(5_000_000))))
      assert.strictEqual(summary.tier, "fallback")
      assert.isBelow(summary.text.length, 400)
      assert.deepStrictEqual(summary.escalations.map((e) => e.reason), ["BadResponseError", "BadResponseError"])
      assert.strictEqual(seen.length, 2)
    }))

  it.scopedLive("refused credentials: a fallback that says its failure is permanent", () =>
    Effect.gen(function*() {
      const { seen, summary } = yield* summarizeWith(() => Effect.succeed(Loopback.failure(401, "invalid api key")))
      assert.strictEqual(summary.tier, "fallback")
      assert.isTrue(summary.failedPermanently)
      assert.deepStrictEqual(summary.escalations.map((e) => e.reason), ["UnauthorizedError", "UnauthorizedError"])
      assert.strictEqual(seen.length, 2) // never retried
    }))

  it.scoped("a server that never answers: each tier times out, then the fallback", () =>
    Effect.gen(function*() {
      const server = yield* Loopback.serve(() => Effect.never)
      const SummarizerLive = Summarizer.layer({ timeout: "30 seconds" }).pipe(
        Layer.provide(OpenAiProvider.layer({ baseUrl: server.baseUrl, model: "test-model" }))
      )
      const summarizer = yield* Effect.provide(Summarizer.Summarizer, SummarizerLive)
      const fiber = yield* Effect.fork(summarizer.summarizeTurns(turns, { targetTokens: 40 }))
      assert.strictEqual(yield* Queue.take(server.arrivals), 1)
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual(yield* Queue.take(server.arrivals), 2)
      yield* TestClock.adjust("30 seconds")
      const summary = yield* Fiber.join(fiber)
      assert.strictEqual(summary.tier, "fallback")
      assert.strictEqual((yield* server.seen).length, 2)
    }).pipe(Effect.provide(Loopback.layer)))
})
