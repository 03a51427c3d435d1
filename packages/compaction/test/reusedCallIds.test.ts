/**
 * Call ids reused later in a session (`call_0` in every response, as agents
 * and providers that number their calls per response write them): each
 * result pairs with the nearest call of its id still waiting, so the fresh
 * tail, the calls in flight and the leaves' cuts are those of the same
 * session with ids unique in it, and compaction holds back nothing but the
 * tail. An ambiguous pairing is said.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConversationTurn, ToolMetadata, ToolUse } from "@precis/core"
import { Store } from "@precis/store"
import { Arbitraries, Fixtures, Logs, ScriptedProvider, StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as CompactionManager from "../src/CompactionManager.js"
import * as FreshTail from "../src/FreshTail.js"
import * as Chunking from "../src/internal/chunking.js"
import { managerLayer, runPumped, shortReply } from "./helpers.js"

/** The same session generated twice: call ids unique in it, and numbered again per response. */
const both = FastCheck.integer({ min: 0, max: 2 ** 31 - 1 }).map((seed) => {
  const sample = (callIds: "unique" | "per response") =>
    FastCheck.sample(Arbitraries.turns({ maxLength: 60, callIds }), { seed, numRuns: 1 })[0]!
  return { unique: sample("unique"), reused: sample("per response") }
})

const pairs = { calls: ToolUse.callIds, answers: ToolUse.answeredIds }

// Runs of this property take seconds: a failure ends the check at once (`endOnFailure`, its seed and path
// printed to replay it) instead of a shrinking that would run for hours and look like a hang.
describe("call ids reused per response", () => {
  it.prop("the fresh tail, the calls in flight and the leaves' cuts are those of unique ids", {
    sessions: both,
    count: FastCheck.integer({ min: 0, max: 12 }),
    limit: FastCheck.integer({ min: 1, max: 80 })
  }, ({ count, limit, sessions: { reused, unique } }) => {
    expect(reused.map((t) => t.content)).toEqual(unique.map((t) => t.content))
    expect(FreshTail.inFlight(reused)).toBe(FreshTail.inFlight(unique))
    expect(FreshTail.start(reused, count)).toBe(FreshTail.start(unique, count))
    const cuts = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>) =>
      Chunking.chunk(turns, (t) => t.content.length, limit, ConversationTurn.isToolResult, 0, { pairs }).map((c) => c.length)
    expect(cuts(reused)).toEqual(cuts(unique))
  }, { fastCheck: { numRuns: 200 } })

  const call = (id: string, n: number) =>
    Fixtures.turn("assistant", ToolMetadata.callLine("Bash", `{"n":${n}}`), {
      id: `a${n}`,
      metadata: ToolMetadata.make({ toolCalls: [{ id, name: "Bash", arguments: `{"n":${n}}` }] })
    })
  const result = (id: string, n: number) =>
    Fixtures.turn("tool", `ok ${n}`, { id: `r${n}`, metadata: ToolMetadata.make({ toolCallId: id, toolName: "Bash" }) })

  it("a long session of call_0 exchanges holds back only its tail", () => {
    const turns = Array.from({ length: 500 }, (_, n) => [call("call_0", n), result("call_0", n)]).flat()
    expect(FreshTail.start(turns, 4)).toBe(turns.length - 4)
    expect(FreshTail.inFlight([...turns, call("call_0", 500)])).toBe(turns.length)
    expect(FreshTail.ambiguousPairs(turns)).toEqual([])
  })

  it("a result whose id two waiting calls share pairs with the nearest, and is said to be ambiguous", () => {
    const turns = [call("call_0", 0), call("call_0", 1), result("call_0", 1), Fixtures.turn("user", "go on", { id: "u" })]
    expect(ToolUse.pair(turns)).toEqual({
      pairs: [{ id: "call_0", call: 1, result: 2, ambiguous: true }],
      open: [{ id: "call_0", call: 0 }]
    })
    expect(FreshTail.ambiguousPairs(turns).map((p) => p.result)).toEqual([2])
    // The call left without a result holds nothing back once the conversation goes on.
    expect(FreshTail.start(turns, 1)).toBe(3)
  })

  it.effect.prop(
    "compaction keeps every invariant, tool pairs included, and leaves only the fresh tail",
    {
      turns: Arbitraries.turns({ maxLength: 60, callIds: "per response" }),
      freshTail: FastCheck.integer({ min: 0, max: 8 }),
      leafChunkTokens: FastCheck.integer({ min: 1, max: 60 })
    },
    ({ freshTail, leafChunkTokens, turns }) =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const cm = yield* CompactionManager.CompactionManager
        yield* store.appendTurns("reused", turns)
        yield* runPumped(cm.compact("reused", { freshTailTurns: freshTail, leafChunkTokens }))
        expect(yield* StoreInvariants.violations({ freshTailTurns: freshTail, toolPairs: true })).toEqual([])
        const uncovered = yield* store.uncoveredTurns("reused")
        expect(FreshTail.start(uncovered, freshTail)).toBe(0)
        expect(uncovered.length).toBe(turns.length - FreshTail.start(turns, freshTail))
      }).pipe(Effect.provide(managerLayer(ScriptedProvider.respond(shortReply)))),
    { timeout: 120_000, fastCheck: { numRuns: 15, endOnFailure: true } }
  )

  it.effect("an ambiguous pairing is said once per compaction, as a warning", () => {
    const warnings = Logs.capture()
    return Effect.gen(function*() {
      const store = yield* Store.all
      const cm = yield* CompactionManager.CompactionManager
      const turns = [Fixtures.turn("user", "go", { id: "u0" }), call("call_0", 0), call("call_0", 1), result("call_0", 1)]
      yield* store.appendTurns("ambiguous", [...turns, ...Array.from({ length: 6 }, (_, i) => Fixtures.turn("user", `more ${i}`, { id: `m${i}` }))])
      yield* runPumped(cm.compact("ambiguous", { freshTailTurns: 2 }))
      expect(warnings.messages.filter((line) => line.includes("several waiting calls share"))).toEqual([
        "session ambiguous: 1 tool results answer a call id that several waiting calls share (first: \"call_0\"); " +
        "each is paired with the nearest call before it"
      ])
    }).pipe(Effect.provide(managerLayer(ScriptedProvider.respond(shortReply))), Effect.provide(warnings.layer))
  })
})
