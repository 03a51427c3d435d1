import * as Chat from "@effect/ai/Chat"
import * as Prompt from "@effect/ai/Prompt"
import { assert, describe, expect, it } from "@effect/vitest"
import { AiPrompt } from "@precis/context"
import { ToolMetadata } from "@precis/core"
import { TurnStore } from "@precis/store"
import { ScriptedLanguageModel as Scripted } from "@precis/testing"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as PrecisChat from "../src/PrecisChat.js"
import { AgentTools, call, chatOf, stack, task } from "./agent.js"

const encode = Schema.encodeSync(Prompt.Prompt)

describe("PrecisChat", () => {
  it.effect("records the prompt, the model's text, its tool calls and their results as turns, paired by call id", () =>
    Effect.gen(function*() {
      const chat = yield* chatOf("s1")
      const responses = yield* task(chat, "Fix the failing test")
      expect(responses.map((r) => r.toolCalls.length)).toEqual([2, 0])
      const turns = yield* Effect.flatMap(TurnStore.TurnStore, (s) => s.turns("s1"))
      expect(turns.map((t) => t.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"])
      const calls = ToolMetadata.read(turns[1]!.metadata).toolCalls ?? []
      expect(calls.map((c) => c.name)).toEqual(["read_file", "run_command"])
      expect(turns.slice(2, 4).map((t) => ToolMetadata.read(t.metadata).toolCallId)).toEqual(calls.map((c) => c.id))
      expect(ToolMetadata.read(turns[3]!.metadata).toolName).toBe("run_command")
      expect(turns[4]!.content).toBe("All tests pass.")
    }).pipe(Effect.provide(Layer.merge(
      stack(),
      Scripted.layer([Scripted.toolCalls([call(0, 1, 3), call(1, 2, 4)], "Looking."), Scripted.text("All tests pass.")])
    ))))

  it.effect("sends the assembled context with its cache breakpoint, and history is that context with the answer", () =>
    Effect.gen(function*() {
      const chat = yield* chatOf("s2")
      yield* task(chat, "Fix the failing test")
      const requests = yield* Effect.flatMap(Scripted.ScriptedLanguageModel, (r) => r.requests)
      const last = Option.getOrThrow(yield* chat.lastRequest)
      expect(encode(requests.at(-1)!.prompt)).toEqual(encode(AiPrompt.toPrompt(last)))
      // The breakpoint is marked on one message of what was sent.
      const marked = requests.at(-1)!.prompt.content.filter((m) => m.options.anthropic?.cacheControl !== undefined)
      expect(marked.length).toBe(1)
      // The recall tools are offered with the agent's.
      expect(requests[0]!.tools).toEqual(["read_file", "run_command", "edit_file", "search", "expand", "describe", "read", "recent"])
      const history = yield* chat.history
      const sent = encode(requests.at(-1)!.prompt)
      expect(encode(history).content.slice(0, sent.content.length)).toEqual(sent.content)
      const answer = history.content.at(-1)!
      expect(answer.role === "assistant" && answer.content.map((p) => p.type === "text" && p.text)).toEqual(["done"])
    }).pipe(Effect.provide(Layer.merge(
      stack(),
      Scripted.layer([Scripted.toolCalls([call(1, 1, 2)]), Scripted.text("done")])
    ))))

  it.effect("the recall tools answer from the store: the model searches what the chat recorded", () =>
    Effect.gen(function*() {
      const chat = yield* chatOf("s3")
      yield* chat.generateText({ prompt: "Remember the port is 5433", toolkit: PrecisChat.withRecall(AgentTools) })
      const found = yield* chat.generateText({ prompt: "Which port?", toolkit: PrecisChat.withRecall(AgentTools) })
      const result = found.toolResults[0]!
      expect(result.name).toBe("search")
      assert.isTrue(JSON.stringify(result.result).includes("5433"))
    }).pipe(Effect.provide(Layer.merge(
      stack(),
      Scripted.layer([Scripted.text("Noted."), Scripted.toolCalls([{ name: "search", params: { query: "port", session: "s3" } }])])
    ))))

  it.effect("streamText records the streamed answer as generateText does", () =>
    Effect.gen(function*() {
      const chat = yield* chatOf("s4")
      const parts = yield* Stream.runCollect(chat.streamText({ prompt: "Run the tests", toolkit: AgentTools }))
      expect(Chunk.toReadonlyArray(parts).filter((p) => p.type === "tool-result").length).toBe(1)
      const turns = yield* Effect.flatMap(TurnStore.TurnStore, (s) => s.turns("s4"))
      expect(turns.map((t) => [t.role, t.content.split("\n")[0]])).toEqual([
        ["user", "Run the tests"],
        ["assistant", "Running."],
        ["tool", "{\"exitCode\":0,\"output\":\"npm test -- module1: line 0\"}"]
      ])
    }).pipe(Effect.provide(Layer.merge(stack(), Scripted.layer([Scripted.toolCalls([call(1, 1, 1)], "Running.")])))))

  it.effect("generateObject sends the context too and records the object's text as the answer", () =>
    Effect.gen(function*() {
      const chat = yield* chatOf("s7")
      yield* chat.generateText({ prompt: "The tests of src/db.ts fail." })
      const plan = yield* chat.generateObject({
        prompt: "Plan the fix.",
        schema: Schema.Struct({ steps: Schema.Array(Schema.String) })
      })
      expect(plan.value.steps).toEqual(["read src/db.ts", "fix the path"])
      const requests = yield* Effect.flatMap(Scripted.ScriptedLanguageModel, (r) => r.requests)
      expect(requests.map((r) => r.responseFormat)).toEqual(["text", "json"])
      expect(encode(requests[1]!.prompt)).toEqual(encode(AiPrompt.toPrompt(Option.getOrThrow(yield* chat.lastRequest))))
      const turns = yield* Effect.flatMap(TurnStore.TurnStore, (s) => s.turns("s7"))
      expect(turns.map((t) => t.content)).toEqual([
        "The tests of src/db.ts fail.",
        "Looking.",
        "Plan the fix.",
        "{\"steps\":[\"read src/db.ts\",\"fix the path\"]}"
      ])
    }).pipe(Effect.provide(Layer.merge(
      stack(),
      Scripted.layer([Scripted.text("Looking."), Scripted.text("{\"steps\":[\"read src/db.ts\",\"fix the path\"]}")])
    ))))

  it.effect("export is the whole conversation; fromExport reads it back into a session that exports the same", () =>
    Effect.gen(function*() {
      const chat = yield* chatOf("s5")
      for (let i = 0; i < 6; i++) yield* task(chat, `step ${i}: fix module${i}`)
      const exported = yield* chat.export
      const chats = yield* PrecisChat.PrecisChats
      const copy = yield* chats.fromExport("s5-copy", exported)
      expect(yield* copy.export).toEqual(exported)
      // The whole conversation, not the context: every user prompt is in it.
      const prompt = Schema.decodeUnknownSync(Prompt.Prompt)(exported)
      expect(prompt.content.filter((m) => m.role === "user").length).toBe(6)
      // @effect/ai's own chat reads it too.
      const plain = yield* Chat.fromExport(exported)
      expect(encode(yield* plain.history)).toEqual(exported)
      expect(yield* copy.exportJson).toBe(yield* chat.exportJson)
    }).pipe(Effect.provide(Layer.merge(
      stack(),
      Scripted.layer(Array.from({ length: 6 }, () => [
        Scripted.toolCalls([call(0, 1, 30), call(1, 2, 30)]),
        Scripted.text("ok")
      ]).flat())
    ))), 30_000)

  it.effect("get fails with ChatNotFoundError for a chat with no message; a bad id is refused in one sentence", () =>
    Effect.gen(function*() {
      const persistence = yield* Chat.Persistence
      const missing = yield* Effect.flip(persistence.get("nobody"))
      expect(missing._tag).toBe("ChatNotFoundError")
      const bad = yield* Effect.flip(persistence.getOrCreate("bad\nid"))
      assert.isTrue(bad._tag === "PersistenceError" && String((bad.cause as Error).message).includes("a session id must be"))
      const chat = yield* persistence.getOrCreate("fresh")
      yield* chat.generateText({ prompt: "hi" })
      expect((yield* persistence.get("fresh")).id).toBe("fresh")
    }).pipe(Effect.provide(Layer.merge(stack(), Scripted.layer([Scripted.text("hello")])))))

  it.effect("a budget that makes no sense fails the layer", () =>
    Effect.gen(function*() {
      const failure = yield* Effect.flip(Layer.build(stack(":memory:", { budget: 0 })).pipe(Effect.scoped))
      expect(failure.message).toContain("budget")
    }))

  it.effect("a model failure is the chat's failure, and the prompt stays recorded", () =>
    Effect.gen(function*() {
      const chat = yield* chatOf("s6")
      const failure = yield* Effect.flip(chat.generateText({ prompt: "go" }))
      expect(failure._tag).toBe("UnknownError")
      const turns = yield* Effect.flatMap(TurnStore.TurnStore, (s) => s.turns("s6"))
      expect(turns.map((t) => t.role)).toEqual(["user"])
    }).pipe(Effect.provide(Layer.merge(stack(), Scripted.layer([Scripted.fail(Scripted.unknownError("overloaded"))])))))
})
