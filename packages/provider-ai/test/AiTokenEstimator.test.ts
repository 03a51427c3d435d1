import * as AiError from "@effect/ai/AiError"
import * as Tokenizer from "@effect/ai/Tokenizer"
import * as OpenAiTokenizer from "@effect/ai-openai/OpenAiTokenizer"
import { assert, describe, it } from "@effect/vitest"
import { TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as AiTokenEstimator from "../src/AiTokenEstimator.js"

const textOf = (prompt: Parameters<Parameters<typeof Tokenizer.make>[0]["tokenize"]>[0]) =>
  prompt.content
    .flatMap((message) =>
      typeof message.content === "string"
        ? [message.content]
        : message.content.map((part) => (part.type === "text" ? part.text : ""))
    )
    .join("")

// One token per whitespace-separated word.
const words = Tokenizer.make({
  tokenize: (prompt) => Effect.sync(() => textOf(prompt).split(/\s+/).filter((w) => w.length > 0).map((_, i) => i))
})

const estimatorFrom = (tokenizer: Tokenizer.Service) =>
  Effect.provide(TokenEstimator.TokenEstimator, AiTokenEstimator.layer.pipe(
    Layer.provide(Layer.succeed(Tokenizer.Tokenizer, tokenizer))
  ))

describe("AiTokenEstimator", () => {
  it.effect("estimates with the tokenizer, at least 1", () =>
    Effect.gen(function*() {
      const estimator = yield* estimatorFrom(words)
      assert.strictEqual(estimator.estimate("one two three four five"), 5)
      assert.strictEqual(estimator.estimate(""), 1)
    }))

  it.effect("truncates to the longest prefix that fits", () =>
    Effect.gen(function*() {
      const estimator = yield* estimatorFrom(words)
      assert.strictEqual(estimator.truncate("one two three four five", 3), "one two three ")
      assert.strictEqual(estimator.truncate("one two", 5), "one two")
      assert.strictEqual(estimator.truncate("one two", 0), "")
    }))

  it.effect("never splits a surrogate pair", () =>
    Effect.gen(function*() {
      // One token per code point.
      const units = Tokenizer.make({ tokenize: (p) => Effect.sync(() => Array.from(textOf(p), (_, i) => i)) })
      const estimator = yield* estimatorFrom(units)
      const text = "ab😀c"
      assert.strictEqual(estimator.truncate(text, 3), "ab😀")
      assert.strictEqual(estimator.truncate(text, 2), "ab")
    }))

  it.effect("with OpenAI's real tokenizer, the truncation fits and is a prefix", () =>
    Effect.gen(function*() {
      const estimator = yield* estimatorFrom(OpenAiTokenizer.make({ model: "gpt-4o" }))
      const text = "The build failed in packages/core/src/Summarizer.ts because of a missing import. ".repeat(20)
      const total = estimator.estimate(text)
      assert.isAbove(total, 200)
      const cut = estimator.truncate(text, 50)
      assert.isTrue(text.startsWith(cut))
      assert.isAtMost(estimator.estimate(cut), 50)
      assert.isAbove(estimator.estimate(cut), 40)
    }))

  it.effect("an asynchronous tokenizer is refused when the layer is built", () =>
    Effect.gen(function*() {
      const remote = Tokenizer.make({ tokenize: () => Effect.as(Effect.sleep("1 millis"), [1, 2, 3]) })
      const exit = yield* Effect.exit(estimatorFrom(remote))
      if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") return assert.fail("expected UnusableTokenizerError")
      assert.strictEqual(exit.cause.error._tag, "UnusableTokenizerError")
      assert.include(exit.cause.error.message, "asynchronous")
    }))

  it.effect("falls back to the approximation when the tokenizer fails on a text", () =>
    Effect.gen(function*() {
      const picky = Tokenizer.make({
        tokenize: (p) =>
          textOf(p).includes("\u0000")
            ? Effect.fail(new AiError.UnknownError({ module: "T", method: "tokenize" }))
            : Effect.succeed([1])
      })
      const estimator = yield* estimatorFrom(picky)
      const text = `${"x".repeat(40)}\u0000`
      assert.strictEqual(estimator.estimate(text), TokenEstimator.approximate.estimate(text))
      assert.strictEqual(estimator.truncate(text, 2), TokenEstimator.approximate.truncate(text, 2))
    }))
})
