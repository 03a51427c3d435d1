/**
 * The recall toolkit driven through `@effect/ai`: a scripted LanguageModel
 * calls `describe`, `search` and `expand`, `LanguageModel.generateText`
 * resolves the calls with the handlers over a real (in-memory) store, and a
 * second step shows the model reading the results.
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { assert, describe, it } from "@effect/vitest"
import { Condenser } from "@precis/context"
import { TokenEstimator } from "@precis/core"
import { type SearchIndex, Store } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import { Fixtures } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as PrecisToolkit from "../src/PrecisToolkit.js"

const turns = [
  Fixtures.turn("user", "The deploy to staging fails with a flaky migration", { id: "u0" }),
  Fixtures.turn("assistant", "I will add a lock around the migration runner", { id: "a1" }),
  Fixtures.turn("user", "Also keep the retry budget at three attempts", { id: "u2" }),
  Fixtures.turn("assistant", "Done: retries capped at three, logged per call", { id: "a3" }),
  Fixtures.turn("user", "What is left?", { id: "u4" })
]

/** A store holding two leaves under one condensed summary, and one uncovered turn. */
const seeded = Effect.gen(function*() {
  const store = yield* Store.all
  yield* store.appendTurns("s", turns)
  const leaf = (ids: Array<string>, content: string) =>
    store.insertLeaf({ sessionId: "s", content, tier: "normal", tokenEstimate: 8, turnIds: ids })
  const first = yield* leaf(["u0", "a1"], "Fixed the flaky migration with a lock.")
  const second = yield* leaf(["u2", "a3"], "Retry budget: three attempts.")
  const root = yield* store.insertCondensed({
    sessionId: "s",
    content: "Staging deploy fixed; retries capped.",
    tier: "aggressive",
    tokenEstimate: 6,
    childIds: [first.id, second.id]
  })
  return { first, second, root }
})

const StoreLive = SqliteStore.layer({ filename: ":memory:" }).pipe(Layer.orDie)
const ToolsLive = PrecisToolkit.layer.pipe(Layer.provideMerge(StoreLive))

const finish: Response.PartEncoded = {
  type: "finish",
  reason: "tool-calls",
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
}

/** A model that calls the given tools on its first step and, once it has results, says what it read. */
const scriptedModel = (calls: ReadonlyArray<{ readonly name: string; readonly params: unknown }>) =>
  Effect.gen(function*() {
    const prompts = yield* Ref.make<ReadonlyArray<Prompt.Prompt>>([])
    const model = yield* LanguageModel.make({
      generateText: (options): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> =>
        Effect.gen(function*() {
          yield* Ref.update(prompts, (all) => [...all, options.prompt])
          const results = options.prompt.content.flatMap((m) =>
            m.role === "tool" ? m.content.map((part) => JSON.stringify(part.result)) : []
          )
          if (results.length > 0) return [{ type: "text", text: `read ${results.length} results` }, finish]
          return [...calls.map((call, i) => ({ type: "tool-call" as const, id: `call-${i}`, ...call })), finish]
        }),
      streamText: () => Stream.die("not used")
    })
    return { model, prompts: Ref.get(prompts) }
  })

describe("PrecisToolkit through @effect/ai", () => {
  it.effect("a model's describe, search and expand calls are answered from the store", () =>
    Effect.gen(function*() {
      const { first, root } = yield* seeded
      const { model, prompts } = yield* scriptedModel([
        { name: "describe", params: { session: "s" } },
        { name: "search", params: { query: "migration lock", session: "s" } },
        { name: "expand", params: { summaryId: root.id } },
        { name: "expand", params: { summaryId: first.id } }
      ])
      const response = yield* LanguageModel.generateText({
        prompt: "What did we do about the migration?",
        toolkit: PrecisToolkit.PrecisToolkit
      }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      const results = response.toolResults
      assert.deepStrictEqual(results.map((r) => [r.name, r.isFailure]), [
        ["describe", false],
        ["search", false],
        ["expand", false],
        ["expand", false]
      ])
      const [outline, hits, children, source] = results.map((r) => r.result) as [
        typeof PrecisToolkit.Outline.Type,
        ReadonlyArray<SearchIndex.SearchHit>,
        typeof PrecisToolkit.ExpandPage.Type,
        typeof PrecisToolkit.ExpandPage.Type
      ]
      assert.deepStrictEqual(
        { turns: outline.turns, uncovered: outline.uncoveredTurns, summaries: outline.summaries, tiers: outline.tiers },
        { turns: 5, uncovered: 1, summaries: 3, tiers: { normal: 2, aggressive: 1, fallback: 0 } }
      )
      assert.deepStrictEqual(outline.depths, [{ depth: 0, count: 2, tokens: 16 }, { depth: 1, count: 1, tokens: 6 }])
      assert.deepStrictEqual(outline.roots.map((r) => [r.id, r.depth, r.descendantCount]), [[root.id, 1, 2]])
      assert.deepStrictEqual(hits.map((h) => [h.kind, h.id]).sort(), [["summary", first.id], ["turn", "a1"]].sort())
      assert.strictEqual(hits.find((h) => h.kind === "turn")!.leafId, first.id)
      assert.strictEqual(children.of, "children")
      assert.deepStrictEqual(children.items.map((i) => i.content), [
        "Fixed the flaky migration with a lock.",
        "Retry budget: three attempts."
      ])
      assert.strictEqual(source.of, "turns")
      assert.deepStrictEqual(source.items.map((i) => [i.id, i.seq, i.role]), [["u0", 0, "user"], ["a1", 1, "assistant"]])
      assert.isNull(source.nextOffset)

      // The next step: the model reads the results from the prompt.
      const next = yield* LanguageModel.generateText({
        prompt: Prompt.merge(Prompt.make("What did we do about the migration?"), Prompt.fromResponseParts(response.content)),
        toolkit: PrecisToolkit.PrecisToolkit
      }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      assert.strictEqual(next.text, "read 4 results")
      const seen = yield* prompts
      assert.strictEqual(seen.length, 2)
      assert.include(JSON.stringify(seen[1]!.content), "Fixed the flaky migration with a lock.")
    }).pipe(Effect.provide(ToolsLive)))

  it.effect("expand pages within maxTokens, a root's turns on request; unknown ids are results the model sees", () =>
    Effect.gen(function*() {
      const { root } = yield* seeded
      const estimator = yield* TokenEstimator.TokenEstimator
      const { model } = yield* scriptedModel([
        { name: "expand", params: { summaryId: root.id, of: "turns", maxTokens: 50 } },
        { name: "expand", params: { summaryId: root.id, of: "turns", offset: 3, maxTokens: 50 } },
        { name: "expand", params: { summaryId: "nope" } },
        { name: "describe", params: { session: "nobody" } }
      ])
      const response = yield* LanguageModel.generateText({ prompt: "more", toolkit: PrecisToolkit.PrecisToolkit }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      const [firstPage, lastPage, unknown, noSession] = response.toolResults
      const page1 = firstPage!.result as typeof PrecisToolkit.ExpandPage.Type
      assert.strictEqual(page1.total, 4)
      assert.isAbove(page1.items.length, 0)
      assert.isAtMost(page1.tokens, 50)
      assert.strictEqual(page1.nextOffset, page1.items.length < 4 ? page1.items.length : null)
      const page2 = lastPage!.result as typeof PrecisToolkit.ExpandPage.Type
      assert.deepStrictEqual(page2.items.map((i) => i.id), ["a3"])
      assert.isNull(page2.nextOffset)
      assert.isTrue(unknown!.isFailure)
      const error = unknown!.result as PrecisToolkit.RecallError
      assert.deepStrictEqual([error._tag, error.message], ["RecallError", "no summary \"nope\""])
      assert.isTrue(noSession!.isFailure)
      assert.strictEqual((noSession!.result as PrecisToolkit.RecallError).message, "no session \"nobody\"")

      // A page never exceeds its cap: an item alone larger than it is cut.
      const big = [{ kind: "turn" as const, id: "x", content: "word ".repeat(400), tokens: 500, truncated: false }]
      const cut = PrecisToolkit.page(estimator, big, 0, 60)
      assert.isTrue(cut.items[0]!.truncated)
      assert.isAtMost(cut.tokens, 60)
      assert.isBelow(cut.items[0]!.content.length, big[0]!.content.length)
      assert.isNull(cut.nextOffset)
    }).pipe(Effect.provide(ToolsLive)))

  it.effect("read gives a cited turn back word for word, by its whole id or its short id, with its neighbours", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      const uuid = (n: number) => `d35f0cc${n}-428d-436c-b878-0a1b2c3d4e5f`
      yield* store.appendTurns("cc", [
        Fixtures.turn("user", "Deploy the API to staging", { id: uuid(0) }),
        Fixtures.turn("assistant", "Running the migration first", { id: uuid(1) }),
        Fixtures.turn("tool", "migration 0042 failed: lock timeout", { id: `${uuid(1)}#2` }),
        Fixtures.turn("assistant", "Retrying with a lock", { id: uuid(2) }),
        Fixtures.turn("user", "Good", { id: uuid(3) }),
        // Two UUIDs may share their first 8 characters: the short id then names both.
        Fixtures.turn("user", "twin a", { id: "abcdef01-0000-4000-8000-000000000001" }),
        Fixtures.turn("user", "twin b", { id: "abcdef01-0000-4000-8000-000000000002" })
      ])
      const { model } = yield* scriptedModel([
        { name: "read", params: { session: "cc", id: "d35f0cc1#2", around: 1 } },
        { name: "read", params: { session: "cc", id: uuid(3) } },
        { name: "read", params: { session: "cc", id: "abcdef01" } },
        { name: "read", params: { session: "cc", id: "d35f0cc" } },
        { name: "read", params: { session: "cc", id: "0000" } },
        { name: "read", params: { session: "cc", id: "d35f0cc2", around: 2, maxTokens: 50 } }
      ])
      const response = yield* LanguageModel.generateText({ prompt: "What failed?", toolkit: PrecisToolkit.PrecisToolkit })
        .pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      const [cited, whole, ambiguous, partial, missing, capped] = response.toolResults
      assert.isFalse(cited!.isFailure)
      const page = cited!.result as typeof PrecisToolkit.TurnsPage.Type
      assert.strictEqual(page.turnId, `${uuid(1)}#2`)
      assert.deepStrictEqual(page.items.map((i) => i.content), [
        "Running the migration first",
        "migration 0042 failed: lock timeout",
        "Retrying with a lock"
      ])
      const last = whole!.result as typeof PrecisToolkit.TurnsPage.Type
      assert.deepStrictEqual(last.items.map((i) => i.seq), [2, 3, 4, 5, 6])
      assert.isTrue(ambiguous!.isFailure)
      assert.match((ambiguous!.result as PrecisToolkit.RecallError).message, /^"abcdef01" names 2 turns of session "cc": pass a whole id/)
      assert.isTrue(partial!.isFailure)
      assert.match((partial!.result as PrecisToolkit.RecallError).message, /^no turn "d35f0cc" in session "cc"; ids starting with it: d35f0cc0-/)
      assert.isTrue(missing!.isFailure)
      assert.strictEqual((missing!.result as PrecisToolkit.RecallError).message, 'no turn "0000" in session "cc"')
      // Within a small cap the named turn is still shown.
      const small = capped!.result as typeof PrecisToolkit.TurnsPage.Type
      assert.isAtMost(small.tokens, 50)
      assert.include(small.items.map((i) => i.id), uuid(2))
    }).pipe(Effect.provide(ToolsLive)))

  it.effect("expand opens a summary by the short id a cut marker names; a prefix of several or of none says so", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      // 17 leaves: two of them share their first hex digit, whatever ids they get.
      yield* store.appendTurns("many", Array.from({ length: 17 }, (_, i) => Fixtures.turn("user", `turn ${i}`, { id: `m${i}` })))
      const leaves = yield* Effect.forEach(
        Array.from({ length: 17 }, (_, i) => `m${i}`),
        (id) => {
          const content = `leaf over ${id}: ${"detail ".repeat(400)}`
          return store.insertLeaf({ ...Fixtures.leaf("many", [id], content), tokenEstimate: TokenEstimator.approximate.estimate(content) })
        }
      )
      // The window cuts a leaf too long for its budget: its marker names the leaf by its short id.
      const cut = yield* Condenser.pipeline([Condenser.window({ maxTokens: 300 })])({ summaries: [leaves[0]!], turns: [] })
      const marker = /full text: summary (\S+) \.\.\.\]/.exec(cut.summaries[0]!.content)
      assert.isNotNull(marker)
      assert.notMatch(cut.summaries[0]!.content, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/)
      const digit = leaves.map((l) => l.id[0]!).find((d, i, all) => all.indexOf(d) !== i)!
      const { model } = yield* scriptedModel([
        { name: "expand", params: { summaryId: marker![1]! } },
        { name: "expand", params: { summaryId: digit } },
        { name: "expand", params: { summaryId: "zzzzzzzz" } }
      ])
      const response = yield* LanguageModel.generateText({ prompt: "more", toolkit: PrecisToolkit.PrecisToolkit }).pipe(
        Effect.provideService(LanguageModel.LanguageModel, model)
      )
      const [byShortId, shared, unknown] = response.toolResults
      assert.isFalse(byShortId!.isFailure)
      const opened = byShortId!.result as typeof PrecisToolkit.ExpandPage.Type
      assert.strictEqual(opened.summaryId, leaves[0]!.id)
      assert.deepStrictEqual(opened.items.map((i) => i.content), ["turn 0"])
      assert.isTrue(shared!.isFailure)
      assert.match(
        (shared!.result as PrecisToolkit.RecallError).message,
        new RegExp(`^no summary "${digit}"; ids starting with it: ${digit}[0-9a-f-]{35}, ${digit}`)
      )
      assert.strictEqual((unknown!.result as PrecisToolkit.RecallError).message, 'no summary "zzzzzzzz"')
    }).pipe(Effect.provide(ToolsLive)))

  it("the tools' parameter schemas are what a model is told", () => {
    const tools = PrecisToolkit.PrecisToolkit.tools
    assert.deepStrictEqual(Object.keys(tools).sort(), ["describe", "expand", "read", "recent", "search"])
    assert.include(tools.search.description ?? "", "Full-text search")
  })
})
