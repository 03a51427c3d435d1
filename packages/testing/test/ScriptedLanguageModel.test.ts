import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { ScriptedLanguageModel as Scripted } from "../src/index.js"

const ReadFile = Tool.make("read_file", {
  parameters: { path: Schema.String },
  success: Schema.String
})
const Tools = Toolkit.make(ReadFile)
const ToolsLive = Tools.toLayer({ read_file: ({ path }) => Effect.succeed(`contents of ${path}`) })

describe("ScriptedLanguageModel", () => {
  it.effect("plays text, then tool calls that the toolkit answers, and records every request", () =>
    Effect.gen(function*() {
      const first = yield* LanguageModel.generateText({ prompt: "hello" })
      expect(first.text).toBe("hi there")
      expect(first.finishReason).toBe("stop")
      const second = yield* LanguageModel.generateText({ prompt: "read a.ts", toolkit: Tools })
      expect(second.toolCalls.map((c) => [c.id, c.name, c.params])).toEqual([
        ["call_1", "read_file", { path: "a.ts" }],
        ["mine", "read_file", { path: "b.ts" }]
      ])
      expect(second.toolResults.map((r) => [r.id, r.result])).toEqual([
        ["call_1", "contents of a.ts"],
        ["mine", "contents of b.ts"]
      ])
      expect(second.finishReason).toBe("tool-calls")
      expect(second.usage.inputTokens).toBeGreaterThan(0)
      const recorder = yield* Scripted.ScriptedLanguageModel
      const requests = yield* recorder.requests
      expect(requests.map((r) => r.tools)).toEqual([[], ["read_file"]])
      expect(requests[1]!.prompt.content[0]!.role).toBe("user")
      expect(yield* recorder.remaining).toBe(0)
    }).pipe(Effect.provide([
      Scripted.layer([
        Scripted.text("hi there"),
        Scripted.toolCalls([{ name: "read_file", params: { path: "a.ts" } }, {
          id: "mine",
          name: "read_file",
          params: { path: "b.ts" }
        }])
      ]),
      ToolsLive
    ])))

  it.effect("fails with the scripted AiError, dies with a defect, and says when the script is used up", () =>
    Effect.gen(function*() {
      const failure = yield* Effect.flip(LanguageModel.generateText({ prompt: "a" }))
      expect(failure._tag).toBe("UnknownError")
      expect(failure.message).toContain("overloaded")
      const defect = yield* Effect.exit(LanguageModel.generateText({ prompt: "b" }))
      assert.isTrue(Exit.isFailure(defect) && defect.cause._tag === "Die")
      const exhausted = yield* Effect.flip(LanguageModel.generateText({ prompt: "c" }))
      expect(exhausted.message).toContain("no more turns")
    }).pipe(Effect.provide(Scripted.layer([Scripted.fail(Scripted.unknownError("overloaded")), Scripted.die()]))))

  it.effect("delays on the Effect clock and hangs until interrupted", () =>
    Effect.gen(function*() {
      const late = yield* Effect.fork(LanguageModel.generateText({ prompt: "a" }))
      yield* TestClock.adjust("4 seconds")
      expect(Option.isNone(yield* Fiber.poll(late))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(late)).text).toBe("late")
      const hung = yield* Effect.fork(LanguageModel.generateText({ prompt: "b" }))
      yield* TestClock.adjust("1 day")
      expect(Option.isNone(yield* Fiber.poll(hung))).toBe(true)
      assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(hung)))
    }).pipe(Effect.provide(Scripted.layer([Scripted.delayed("5 seconds", Scripted.text("late")), Scripted.hang]))))

  it.effect("streams the same reply as parts, tool results included", () =>
    Effect.gen(function*() {
      const parts = Chunk.toReadonlyArray(yield* Stream.runCollect(LanguageModel.streamText({ prompt: "go", toolkit: Tools })))
      const deltas = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : []))
      expect(deltas).toEqual(["Reading."])
      expect(parts.flatMap((p) => (p.type === "tool-result" ? [p.result] : []))).toEqual(["contents of x.ts"])
      expect(parts.filter((p) => p.type === "finish").length).toBe(1)
    }).pipe(Effect.provide([
      Scripted.layer([Scripted.toolCalls([{ name: "read_file", params: { path: "x.ts" } }], "Reading.")]),
      ToolsLive
    ])))

  it.effect("respond computes each turn from the request", () =>
    Effect.gen(function*() {
      const offered = yield* LanguageModel.generateText({ prompt: "x", toolkit: Tools })
      expect(offered.toolCalls.map((c) => c.name)).toEqual(["read_file"])
      const plain = yield* LanguageModel.generateText({ prompt: "x" })
      expect(plain.text).toBe("no tools")
    }).pipe(Effect.provide([
      Scripted.respond((request) =>
        request.tools.includes("read_file")
          ? Scripted.toolCalls([{ name: "read_file", params: { path: "y" } }])
          : Scripted.text("no tools")
      ),
      ToolsLive
    ])))
})
