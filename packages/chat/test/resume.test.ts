import * as Prompt from "@effect/ai/Prompt"
import { describe, expect, it } from "@effect/vitest"
import { AiPrompt, Assembler } from "@precis/context"
import { DagStore } from "@precis/store"
import { ScriptedLanguageModel as Scripted, StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { call, chatOf, options, stack, task } from "./agent.js"

const encode = Schema.encodeSync(Prompt.Prompt)
// A prompt's messages without their provider options (where the cache breakpoint is marked).
const messages = (prompt: Prompt.Prompt) => encode(prompt).content.map(({ content, role }) => ({ role, content }))

const script = (tasks: number) =>
  Array.from({ length: tasks }, (_, t) => [
    Scripted.toolCalls([call(0, t, 80), call(1, t, 60)], `Looking at module${t % 7}.`),
    Scripted.toolCalls([call(2, t, 1)]),
    Scripted.text(`Task ${t} done.`)
  ]).flat()

describe("PrecisChat resumed", () => {
  it.effect("a chat persisted and resumed by a new layer over the same SQLite file continues with the same context", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-chat-"))
      const filename = path.join(dir, "agent.db")
      // The first process: 12 tasks, compacted on the way.
      const first = yield* Effect.gen(function*() {
        const chat = yield* chatOf("agent")
        for (let t = 0; t < 12; t++) yield* task(chat, `Task ${t}: fix src/module${t % 7}.ts`)
        const summaries = (yield* Effect.flatMap(DagStore.DagStore, (dag) => dag.summaries("agent"))).length
        return { exported: yield* chat.export, summaries }
      }).pipe(Effect.provide(Layer.merge(stack(filename), Scripted.layer(script(12)))))
      expect(first.summaries).toBeGreaterThan(0)

      // The second: a new layer (a new Assembler, no frame) over the same file.
      yield* Effect.gen(function*() {
        const chat = yield* chatOf("agent")
        // Nothing lost: the same conversation.
        expect(yield* chat.export).toEqual(first.exported)
        // The context it resumes with is the session's, as a new Assembler assembles it, true to the store.
        const resumed = yield* chat.history
        const again = yield* Effect.flatMap(Assembler.Assembler, (a) => a.assemble("agent", { budget: options.budget })).pipe(
          Effect.provide(Assembler.layerReadOnly())
        )
        expect(encode(resumed)).toEqual(encode(AiPrompt.toPrompt(again)))
        expect(again.summaries.length).toBeGreaterThan(0)
        expect(yield* StoreInvariants.contextViolations("agent", again)).toEqual([])
        // It continues from there: the next request starts with that context (the cache breakpoint moved to its end).
        yield* task(chat, "Task 12: run the whole suite")
        const requests = yield* Effect.flatMap(Scripted.ScriptedLanguageModel, (r) => r.requests)
        const next = messages(requests[0]!.prompt)
        expect(next.slice(0, resumed.content.length)).toEqual(messages(resumed))
        expect(next.length).toBeGreaterThan(resumed.content.length)
        expect(Option.isSome(yield* chat.lastRequest)).toBe(true)
      }).pipe(Effect.provide(Layer.merge(stack(filename), Scripted.layer(script(1)))))
      fs.rmSync(dir, { recursive: true, force: true })
    }), 60_000)
})
