import { assert, describe, it } from "@effect/vitest"
import { ProviderError } from "@precis/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import * as OpenAiProvider from "../src/OpenAiProvider.js"

const failing = (error: ProviderError.ProviderError) =>
  Effect.gen(function*() {
    const attempts = yield* Ref.make(0)
    const effect = Effect.zipRight(Ref.update(attempts, (n) => n + 1), Effect.fail(error))
    return { attempts: Ref.get(attempts), effect }
  })

describe("retrySchedule", () => {
  it.effect("waits as long as Retry-After asks when it exceeds the backoff", () =>
    Effect.gen(function*() {
      const { attempts, effect } = yield* failing(
        new ProviderError.RateLimitedError({ provider: "t", retryAfter: Duration.seconds(2) })
      )
      const schedule = OpenAiProvider.retrySchedule({ maxAttempts: 2, initialDelay: "10 millis", maxDelay: "5 seconds" })
      const fiber = yield* Effect.fork(Effect.retry(effect, schedule))
      yield* TestClock.adjust("1999 millis")
      assert.strictEqual(yield* attempts, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* attempts, 2)
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(exit._tag === "Failure")
    }))

  it.effect("backs off exponentially, capped at maxDelay, up to maxAttempts", () =>
    Effect.gen(function*() {
      const { attempts, effect } = yield* failing(new ProviderError.ServerError({ provider: "t", status: 500 }))
      const schedule = OpenAiProvider.retrySchedule({ maxAttempts: 5, initialDelay: "1 second", maxDelay: "3 seconds" })
      const fiber = yield* Effect.fork(Effect.retry(effect, schedule))
      // Waits of about 1, 2, then 3 (capped), 3 seconds; jitter is at most +-20%.
      yield* TestClock.adjust("1200 millis")
      assert.strictEqual(yield* attempts, 2)
      yield* TestClock.adjust("2400 millis")
      assert.strictEqual(yield* attempts, 3)
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual(yield* attempts, 4)
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual(yield* attempts, 5)
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(yield* attempts, 5)
      assert.isTrue(Option.isSome(yield* Fiber.poll(fiber)))
    }))

  it.effect("starts no retry after maxElapsed", () =>
    Effect.gen(function*() {
      const { attempts, effect } = yield* failing(new ProviderError.TransportError({ provider: "t", reason: "reset" }))
      const schedule = OpenAiProvider.retrySchedule({
        maxAttempts: 100,
        initialDelay: "1 second",
        maxDelay: "1 second",
        maxElapsed: "3 seconds"
      })
      const fiber = yield* Effect.fork(Effect.retry(effect, schedule))
      yield* TestClock.adjust("1 hour")
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(exit._tag === "Failure")
      const n = yield* attempts
      assert.isAtLeast(n, 3)
      assert.isAtMost(n, 5)
    }))

  it.effect("never retries non-transient errors", () =>
    Effect.gen(function*() {
      const errors: ReadonlyArray<ProviderError.ProviderError> = [
        new ProviderError.UnauthorizedError({ provider: "t", status: 401 }),
        new ProviderError.BadRequestError({ provider: "t", status: 400, detail: "d" }),
        new ProviderError.BadResponseError({ provider: "t", detail: "d" }),
        new ProviderError.TimeoutError({ provider: "t", timeout: Duration.seconds(1) }),
        new ProviderError.ServerError({ provider: "t", status: 409 }),
        new ProviderError.TransportError({ provider: "t", reason: "refused", code: "ECONNREFUSED" }),
        new ProviderError.TransportError({ provider: "t", reason: "no such host", code: "ENOTFOUND" })
      ]
      for (const error of errors) {
        const { attempts, effect } = yield* failing(error)
        yield* Effect.exit(Effect.retry(effect, OpenAiProvider.retrySchedule({ maxAttempts: 5 })))
        assert.strictEqual(yield* attempts, 1, error._tag)
      }
    }))
})
