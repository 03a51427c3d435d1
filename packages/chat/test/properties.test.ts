/**
 * The chat's property over random tool-using sessions (a scripted model):
 * never over the budget; the start of what is sent changes no more often than
 * compactions happen, plus one; the last request is what `Assembler.assemble`
 * gives on the same turns; every tool call's result is stored right after
 * its call, in the order the model saw the results.
 */
import * as Prompt from "@effect/ai/Prompt"
import { describe, expect, it } from "@effect/vitest"
import { CompactionManager } from "@precis/compaction"
import { AiPrompt, Assembler, Layout } from "@precis/context"
import { ConversationTurn, Summarizer, ToolMetadata } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { DagStore, TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { ScriptedLanguageModel as Scripted, StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type AgentResponse, call, chatOf, options, stack, Tools } from "./agent.js"

/** A task: rounds of tool calls (kind, output lines), then an answer. */
const Task = FastCheck.array(
  FastCheck.array(FastCheck.tuple(FastCheck.constantFrom(0 as const, 1 as const, 2 as const), FastCheck.integer({ min: 1, max: 150 })), {
    minLength: 1,
    maxLength: 3
  }),
  { maxLength: 3 }
)
const Session = FastCheck.array(Task, { minLength: 8, maxLength: 16 })

const scriptOf = (session: ReadonlyArray<ReadonlyArray<ReadonlyArray<readonly [0 | 1 | 2, number]>>>) =>
  session.flatMap((rounds, t) => [
    ...rounds.map((calls, r) => Scripted.toolCalls(calls.map(([kind, lines], c) => call(kind, t + r + c, lines)))),
    Scripted.text(`Task ${t} done: src/module${t % 7}.ts fixed, tests pass.`)
  ])

const encode = Schema.encodeSync(Prompt.Prompt)

// The same turns, appended to a store of its own in the same batches, and assembled by an Assembler of the
// same options at the same points as the chat assembled: after each request's prompt (the Assembler's frame, and
// so when it compacts, depends on when it is asked, not only on the turns).
const replay = (requests: ReadonlyArray<Request>) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const assembler = yield* Assembler.Assembler
    const append = (batch: ReadonlyArray<TurnStore.StoredTurn>) =>
      store.appendTurns("p", batch.map(({ content, id, metadata, role, timestamp }) =>
        ConversationTurn.make({ content, id, metadata, role, timestamp })
      ))
    let last: Assembler.Assembled | undefined
    for (const [i, { prompt }] of requests.entries()) {
      if (i > 0) yield* append(requests[i - 1]!.response)
      yield* append(prompt)
      last = yield* assembler.assemble("p", { budget: options.budget })
    }
    return { assembled: last!, summaryIds: yield* summaryIds }
  }).pipe(Effect.provide(Assembler.layer().pipe(
    Layer.provideMerge(CompactionManager.layer(options.compactionDefaults)),
    Layer.provideMerge(SqliteStore.layer({ filename: ":memory:" })),
    Layer.provide(Summarizer.layer()),
    Layer.provide(ExtractiveProvider.layer())
  )))

// The session's summary ids in conversation order.
const summaryIds = Effect.flatMap(DagStore.DagStore, (dag) => dag.summaries("p")).pipe(
  Effect.map((summaries) => summaries.map((summary) => summary.id))
)

// A Prompt as JSON with each summary id (whole, or the short id a marker names) replaced by its place among
// the session's summaries: the ids are the store's own, random, and differ between two stores.
const withoutIds = (prompt: Prompt.Prompt, ids: ReadonlyArray<string>) =>
  ids.reduce(
    (text, id, i) => text.replaceAll(id, `summary#${i}`).replaceAll(id.slice(0, 8), `summary#${i}`),
    JSON.stringify(encode(prompt))
  )

/** The turns one request stored: its prompt's (before the context was assembled), then its response's. */
interface Request {
  readonly prompt: ReadonlyArray<TurnStore.StoredTurn>
  readonly response: ReadonlyArray<TurnStore.StoredTurn>
}

// Each assistant turn's calls are followed by their results, in the order the response gave them.
const pairsInOrder = (turns: ReadonlyArray<TurnStore.StoredTurn>, responses: ReadonlyArray<AgentResponse>) => {
  const stored = turns.flatMap((turn, i) => {
    const calls = ToolMetadata.read(turn.metadata).toolCalls ?? []
    if (calls.length === 0) return []
    return [turns.slice(i + 1, i + 1 + calls.length).map((t) => ToolMetadata.read(t.metadata).toolCallId)]
  })
  const seen = responses.filter((r) => r.toolCalls.length > 0).map((r) => r.toolResults.map((result) => result.id))
  return { stored, seen }
}

describe("PrecisChat properties", () => {
  it.effect.prop(
    "over random tool-using sessions: within budget, prefix stable between compactions, the Assembler's context, results in order",
    [Session],
    ([session]) =>
      Effect.gen(function*() {
        const chat = yield* chatOf("p")
        const turnStore = yield* TurnStore.TurnStore
        const dag = yield* DagStore.DagStore
        const responses: Array<AgentResponse> = []
        const requestTurns: Array<Request> = []
        let stored = 0
        let previous: Assembler.Assembled | undefined
        let prefixChanges = 0
        let compactions = 0
        let summaries = 0
        for (const [t] of session.entries()) {
          let prompt: string | ReadonlyArray<never> = `Task ${t}: fix src/module${t % 7}.ts`
          let response: AgentResponse
          do {
            response = yield* chat.generateText({ prompt, toolkit: Tools })
            responses.push(response)
            const all = yield* turnStore.turns("p")
            // The request saw the turns stored before it and the prompt's.
            const seen = stored + (typeof prompt === "string" ? 1 : 0)
            requestTurns.push({ prompt: all.slice(stored, seen), response: all.slice(seen) })
            stored = all.length
            const sent = Option.getOrThrow(yield* chat.lastRequest)
            expect(sent.tokens).toBeLessThanOrEqual(options.budget!)
            if (previous !== undefined && !Layout.render(sent).startsWith(Layout.renderStable(previous))) prefixChanges++
            const now = (yield* dag.summaries("p")).length
            if (now > summaries) compactions++
            summaries = now
            previous = sent
            prompt = []
          } while (response.toolCalls.length > 0)
        }
        expect(prefixChanges).toBeLessThanOrEqual(compactions + 1)
        // The last request: what the Assembler gives on the same turns, and a context true to the store.
        const requests = yield* Effect.flatMap(Scripted.ScriptedLanguageModel, (r) => r.requests)
        const replayed = yield* replay(requestTurns)
        expect(withoutIds(requests.at(-1)!.prompt, yield* summaryIds)).toEqual(
          withoutIds(AiPrompt.toPrompt(replayed.assembled), replayed.summaryIds)
        )
        expect(yield* StoreInvariants.contextViolations("p", previous!)).toEqual([])
        const { seen, stored: pairs } = pairsInOrder(yield* turnStore.turns("p"), responses)
        expect(pairs).toEqual(seen)
      }).pipe(Effect.provide(Layer.merge(stack(), Scripted.layer(scriptOf(session))))),
    // A run takes about a second: fast-check's shrinking of a failure would take hours (it once looked like a
    // hang in CI), so a failure ends the check at once, its seed and path printed to replay it.
    { timeout: 180_000, fastCheck: { numRuns: 10, endOnFailure: true } }
  )
})
