import { Provider, ProviderError, SummaryTask } from "@precis/core"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { ScriptedProvider } from "../src/index.js"

const request = (content: string): Provider.ChatRequest => ({
  messages: [{ role: "user", content }],
  temperature: 0.2,
  maxTokens: 10,
  task: { kind: "leaf", turns: [{ role: "user", content }], targetTokens: 5 }
})

const chat = (content: string) => Effect.flatMap(Provider.Provider, (p) => p.chat(request(content)))

describe("ScriptedProvider", () => {
  it.effect("plays the script in order and records every request", () =>
    Effect.gen(function*() {
      expect(yield* chat("one")).toEqual({ text: "first" })
      const failure = yield* Effect.flip(chat("two"))
      expect(failure._tag).toBe("RateLimitedError")
      const defect = yield* Effect.exit(chat("three"))
      assert.isTrue(Exit.isFailure(defect) && Exit.isFailure(defect) && defect.cause._tag === "Die")
      const recorder = yield* ScriptedProvider.ScriptedProvider
      expect((yield* recorder.requests).map((r) => r.messages[0]!.content)).toEqual(["one", "two", "three"])
      expect(yield* recorder.remaining).toBe(0)
      // exhausted: a typed failure that says so
      const exhausted = yield* Effect.flip(chat("four"))
      expect(exhausted.message).toContain("no more outcomes")
    }).pipe(Effect.provide(ScriptedProvider.layer([
      ScriptedProvider.reply("first"),
      ScriptedProvider.fail(new ProviderError.RateLimitedError({ provider: "scripted" })),
      ScriptedProvider.die()
    ]))))

  it.effect("delays on the Effect clock and hangs until interrupted", () =>
    Effect.gen(function*() {
      const delayed = yield* Effect.fork(chat("a"))
      yield* TestClock.adjust("9 seconds")
      expect(Option.isNone(yield* Fiber.poll(delayed))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(delayed)).toEqual({ text: "late" })
      const hung = yield* Effect.fork(chat("b"))
      yield* TestClock.adjust("1 day")
      expect(Option.isNone(yield* Fiber.poll(hung))).toBe(true)
      assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(hung)))
    }).pipe(Effect.provide(ScriptedProvider.layer([ScriptedProvider.delayed("10 seconds", "late"), ScriptedProvider.hang]))))

  it.effect("always / respond compute the outcome of every call", () =>
    Effect.gen(function*() {
      expect(yield* chat("x").pipe(Effect.provide(ScriptedProvider.alwaysReply("same")))).toEqual({ text: "same" })
      expect((yield* Effect.flip(chat("x").pipe(Effect.provide(ScriptedProvider.alwaysFail()))))._tag).toBe("TransportError")
      const echoed = yield* chat("echo me").pipe(
        Effect.provide(ScriptedProvider.respond((r) => ScriptedProvider.reply(r.task === undefined ? "" : SummaryTask.material(r.task).toUpperCase())))
      )
      expect(echoed).toEqual({ text: "[?] USER: ECHO ME" })
    }))

  it.effect("dropping replies with the material's lines it does not drop, given each line and its index", () =>
    Effect.gen(function*() {
      const forgetful = ScriptedProvider.dropping((line, index) => index === 0 || line.includes("/"))
      const reply = yield* chat("first\nedited src/a.ts\nkept\nalso kept").pipe(Effect.provide(forgetful))
      // the material of the task: one turn, its lines after the first indented
      expect(reply).toEqual({ text: "  kept\n  also kept" })
      // without a task, the last message is the material
      const untasked = yield* Effect.flatMap(Provider.Provider, (p) =>
        p.chat({ messages: [{ role: "user", content: "a\nb/c\nd" }], temperature: 0, maxTokens: 1 })).pipe(
          Effect.provide(forgetful)
        )
      expect(untasked).toEqual({ text: "d" })
    }))
})
