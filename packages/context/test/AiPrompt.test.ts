import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as LanguageModel from "@effect/ai/LanguageModel"
import { assert, describe, it } from "@effect/vitest"
import { Fixtures } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as AiPrompt from "../src/AiPrompt.js"
import * as Layout from "../src/Layout.js"

const context = {
  system: "You are a careful engineer.",
  pinned: [Fixtures.turn("user", "Fix the login bug", { id: "u0" })],
  summaries: [Fixtures.summary({ id: "s-1", depth: 0, content: "Found the bug in auth.ts." })],
  header: "Session state: tests failing",
  statePlacement: "end" as const,
  turns: [
    Fixtures.turn("assistant", "Running the tests.", { id: "a1" }),
    Fixtures.turn("tool", "1 failed", { id: "r1" })
  ]
}

describe("AiPrompt", () => {
  it("is one message per Layout block, in that order, the breakpoint marked and nothing else", () => {
    const prompt = AiPrompt.toPrompt(context)
    const blocks = Layout.blocks(context)
    assert.deepStrictEqual(prompt.content.map((m) => m.role), blocks.map((b) => b.role))
    assert.deepStrictEqual(
      prompt.content.map((m) => typeof m.content === "string" ? m.content : m.content.map((p) => "text" in p ? p.text : "").join("")),
      blocks.map((b) => b.content)
    )
    // The header at the end is volatile: the breakpoint is the last turn, before it.
    const marked = prompt.content.flatMap((m, i) => "anthropic" in m.options ? [i] : [])
    assert.deepStrictEqual(marked, [Layout.lastStable(blocks)])
    assert.deepStrictEqual(prompt.content[marked[0]!]!.options, AiPrompt.cacheBreakpoint)
    // An explicit breakpoint (an Assembled's) wins; `cache: false` marks nothing.
    assert.deepStrictEqual(
      AiPrompt.toPrompt({ ...context, breakpoint: 2 }).content.flatMap((m, i) => "anthropic" in m.options ? [i] : []),
      [2]
    )
    assert.isTrue(AiPrompt.toPrompt(context, { cache: false }).content.every((m) => !("anthropic" in m.options)))
  })

  it.effect("through @effect/ai-anthropic: cache_control on the last stable block, the volatile header after it", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make<ReadonlyArray<unknown>>([])
      const client = {
        createMessage: (options: { readonly payload: unknown }) =>
          Effect.as(Ref.update(sent, (all) => [...all, options.payload]), {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-3-5-haiku-latest",
            content: [{ type: "text", text: "On it." }],
            stop_reason: "end_turn",
            stop_sequence: null,
            usage: { input_tokens: 25, output_tokens: 3 }
          })
      } as unknown as AnthropicClient.Service
      yield* LanguageModel.generateText({ prompt: AiPrompt.toPrompt(context) }).pipe(
        Effect.provide(
          AnthropicLanguageModel.layer({ model: "claude-3-5-haiku-latest" }).pipe(
            Layer.provide(Layer.succeed(AnthropicClient.AnthropicClient, client))
          )
        )
      )
      const [payload] = (yield* Ref.get(sent)) as ReadonlyArray<{
        readonly system: ReadonlyArray<{ readonly text: string; readonly cache_control?: unknown }>
        readonly messages: ReadonlyArray<{
          readonly role: string
          readonly content: ReadonlyArray<{ readonly text?: string; readonly cache_control?: unknown }>
        }>
      }>
      assert.deepStrictEqual(payload!.system.map((block) => block.text), ["You are a careful engineer."])
      const parts = payload!.messages.flatMap((m) => m.content.map((part) => ({ role: m.role, ...part })))
      const cached = parts.flatMap((part, i) => part.cache_control === undefined ? [] : [i])
      assert.strictEqual(cached.length, 1)
      // The last turn ([tool] 1 failed) carries the breakpoint; only the volatile header comes after it.
      assert.strictEqual(parts[cached[0]!]!.text, "[tool] 1 failed")
      assert.deepStrictEqual(parts[cached[0]!]!.cache_control, { type: "ephemeral" })
      assert.deepStrictEqual(parts.slice(cached[0]! + 1).map((p) => p.text), ["Session state: tests failing"])
      assert.deepStrictEqual(parts.map((p) => p.text).slice(0, 2), ["Fix the login bug", Layout.blocks(context)[2]!.content])
    }))
})
