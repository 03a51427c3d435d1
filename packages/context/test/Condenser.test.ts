import { assert, describe, expect, expectTypeOf, it } from "@effect/vitest"
import { ActiveContext } from "@precis/compaction"
import { ConversationTurn, SessionState, Summarizer, SummaryRecord, TokenEstimator } from "@precis/core"
import { ScriptedProvider } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Condenser from "../src/Condenser.js"
import type { InvalidContextOptionsError } from "../src/ContextError.js"
import * as Layout from "../src/Layout.js"
import * as Forget from "../src/internal/forget.js"
import { requestCount, shortReply } from "./helpers.js"

const estimator = TokenEstimator.approximate
const turn = (role: string, content: string, id: string, metadata?: Record<string, unknown>) =>
  ConversationTurn.make({ role, content, id, ...(metadata === undefined ? {} : { metadata }) })
const call = (id: string, command: string) =>
  turn("assistant", `Running ${command}.`, id, {
    toolCalls: [{ id: `call-${id}`, name: "bash", arguments: JSON.stringify({ command }) }]
  })
const result = (id: string, callId: string, content: string) =>
  turn("tool", content, id, { toolCallId: `call-${callId}`, toolName: "bash" })
const log = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `  PASS test/case${i}.test.ts (12 tests) ${i}ms`).join("\n")
const tokensOf = (context: Condenser.Context) => ActiveContext.count(estimator, context)

// Every kept tool result sits right after the turn it followed originally (a pair is never split).
const pairsWhole = (original: ReadonlyArray<ConversationTurn.ConversationTurn>, kept: Condenser.Context) => {
  const index = new Map(original.map((t, i) => [t.id, i]))
  return kept.turns.every((t, k) => {
    if (!ConversationTurn.isToolResult(t)) return true
    const i = index.get(t.id)!
    return i === 0 || (k > 0 && kept.turns[k - 1]!.id === original[i - 1]!.id)
  })
}

const session = [
  turn("user", "Fix the failing totals test in src/totals.ts please.", "u0"),
  call("a1", "npm test"),
  result("r1", "a1", `$ npm test\n${log(200)}\nTypeError: cannot read 'label' of undefined\nexit code 1`),
  turn("assistant", "The discount is undefined for invoices without one.", "a2"),
  call("a3", "cat src/totals.ts"),
  result("r3", "a3", log(300)),
  turn("assistant", "Found it; editing.", "a4")
]

// Runs of this property take seconds: a failure ends the check at once (`endOnFailure`, its seed and path
// printed to replay it) instead of a shrinking that would run for hours and look like a hang.
describe("Condenser", () => {
  it("stages never fail: `never` in the error channel; the entry points fail only on bad options", () => {
    expectTypeOf<Effect.Effect.Error<ReturnType<Condenser.Stage["run"]>>>().toEqualTypeOf<never>()
    expectTypeOf<Effect.Effect.Error<ReturnType<Condenser.Stage<Summarizer.Summarizer>["run"]>>>()
      .toEqualTypeOf<never>()
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof Condenser.fit>>>()
      .toEqualTypeOf<InvalidContextOptionsError>()
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof Condenser.condense>>>()
      .toEqualTypeOf<InvalidContextOptionsError>()
  })

  it.effect("fit and condense refuse a budget that is not a positive integer, and stage options out of bounds", () =>
    Effect.gen(function*() {
      for (const budget of [0, -5, Number.NaN, 1.5, Number.POSITIVE_INFINITY]) {
        const fitted = yield* Effect.flip(Condenser.fit({ summaries: [], turns: session }, { budget }))
        assert.strictEqual(fitted._tag, "InvalidContextOptionsError")
        assert.deepStrictEqual(fitted.problems.map((p) => p.option), ["budget"])
        expect(fitted.message).toContain(`budget must be an integer >= 1 (got ${budget})`)
        const condensed = yield* Effect.flip(Condenser.condense(session, { budget }))
        assert.strictEqual(condensed._tag, "InvalidContextOptionsError")
      }
      const stages = yield* Effect.flip(Condenser.fit({ summaries: [], turns: session }, {
        budget: 100,
        mask: { protectTokens: -1 },
        forget: { decay: -0.1, minScore: Number.NaN },
        summarize: { targetTokens: 0 }
      }))
      assert.deepStrictEqual(stages.problems.map((p) => p.option), [
        "mask.protectTokens",
        "forget.minScore",
        "forget.decay",
        "summarize.targetTokens"
      ])
    }).pipe(Effect.provide(Summarizer.layer().pipe(Layer.provide(ScriptedProvider.alwaysReply("x"))))))

  it.effect("mask and cut notes name a turn by its short id, the one recall's read resolves", () =>
    Effect.gen(function*() {
      const uuid = "d35f0cc4-428d-436c-b878-0a1b2c3d4e5f"
      const turns = session.map((turn, i) => (i === 2 || i === 5 ? ConversationTurn.make({ ...turn, id: `${uuid}#${i}` }) : turn))
      const out = yield* Condenser.pipeline([Condenser.mask({ protectTokens: 1000 })])({ summaries: [], turns })
      expect(out.turns[2]!.content).toContain("full text: turn d35f0cc4#2]")
      expect(out.turns[5]!.content).toContain("full text: turn d35f0cc4#5 ...]")
      expect(SessionState.cites("d35f0cc4#2", `${uuid}#2`)).toBe(true)
    }))

  it.effect("mask: an old tool result becomes one line naming tool, command, size, exit, first error and turn", () =>
    Effect.gen(function*() {
      const out = yield* Condenser.pipeline([Condenser.mask({ protectTokens: 1000 })])({ summaries: [], turns: session })
      const line = out.turns[2]!.content
      expect(line).toContain("[tool output masked: bash npm test;")
      expect(line).toContain(`${session[2]!.content.length} chars`)
      expect(line).toContain("exit 1")
      expect(line).toContain("first error: TypeError: cannot read 'label' of undefined")
      expect(line).toContain("full text: turn r1]")
      // The newest result reaches past the protected part: cut in its middle, not masked.
      expect(out.turns[5]!.content).toMatch(/\[\.\.\. \d+ chars cut; full text: turn r3 \.\.\.\]/)
      expect(out.turns[5]!.content.startsWith("  PASS test/case0.test.ts")).toBe(true)
      expect(ActiveContext.turnTokens(estimator, out.turns[5]!)).toBeLessThanOrEqual(1000 - ActiveContext.turnTokens(estimator, session[6]!))
      // With less than `minTokens` left of the protected part, it is masked instead.
      const less = yield* Condenser.pipeline([Condenser.mask({ protectTokens: 100 })])({ summaries: [], turns: session })
      expect(less.turns[5]!.content).toContain("[tool output masked: bash cat src/totals.ts;")
      // Turns other than tool results, ids and metadata are kept.
      expect(out.turns.map((t) => t.id)).toEqual(session.map((t) => t.id))
      expect(out.turns[2]!.metadata).toEqual(session[2]!.metadata)
      expect(out.turns[0]).toBe(session[0])
      assert.deepStrictEqual(out.report.stages[0], {
        stage: "mask",
        acted: true,
        tokensBefore: tokensOf({ summaries: [], turns: session }),
        tokensAfter: out.tokens,
        masked: 1,
        trimmed: 1,
        dropped: 0,
        summarized: 0,
        expanded: 0
      })
    }))

  it.effect("mask: protected and small tool results stay verbatim", () =>
    Effect.gen(function*() {
      const small = [turn("user", "hi", "u"), call("a", "ls"), result("r", "a", "a.ts b.ts")]
      const out = yield* Condenser.pipeline([Condenser.mask({ protectTokens: 0 })])({ summaries: [], turns: small })
      expect(out.turns).toEqual(small)
      expect(out.report.stages[0]!.acted).toBe(false)
      const all = yield* Condenser.pipeline([Condenser.mask({ protectTokens: 1_000_000 })])({ summaries: [], turns: session })
      expect(all.turns).toEqual(session)
    }))

  it.effect("forget: drops the lowest-scoring old units until it fits, never the first request nor half a pair", () =>
    Effect.gen(function*() {
      const chat = [
        turn("user", "Please rename the flag.", "u0"),
        ...Array.from({ length: 30 }, (_, i) => turn("assistant", `thinking step ${i} ${"x".repeat(200)}`, `s${i}`)),
        call("c", "grep -rn flag"),
        result("r", "c", `output ${"y".repeat(400)}`),
        ...Array.from({ length: 4 }, (_, i) => turn("assistant", `recent ${i}`, `n${i}`))
      ]
      const before = tokensOf({ summaries: [], turns: chat })
      const out = yield* Condenser.pipeline([Condenser.forget({ maxTokens: before - 200 })])({ summaries: [], turns: chat })
      expect(out.tokens).toBeLessThanOrEqual(before - 200)
      expect(out.turns[0]!.id).toBe("u0")
      // The oldest (lowest) scores go first, and only as many as needed.
      expect(out.turns[1]!.id).not.toBe("s0")
      expect(out.turns.some((t) => t.id === "s29")).toBe(true)
      expect(out.turns.slice(-4).map((t) => t.id)).toEqual(["n0", "n1", "n2", "n3"])
      expect(pairsWhole(chat, out)).toBe(true)
      expect(out.report.stages[0]!.dropped).toBe(chat.length - out.turns.length)
      // Under the budget: nothing dropped.
      const fits = yield* Condenser.pipeline([Condenser.forget({ maxTokens: before })])({ summaries: [], turns: chat })
      expect(fits.turns).toEqual(chat)
    }))

  it.effect("forget and window keep the first real request, as the header names it, not a command echo before it", () =>
    Effect.gen(function*() {
      const chat = [
        turn("user", "<command-name>/clear</command-name>\n<command-message>clear</command-message>", "echo"),
        turn("user", "Please rename the flag.", "u0"),
        ...Array.from({ length: 30 }, (_, i) => turn("assistant", `thinking step ${i} ${"x".repeat(200)}`, `s${i}`))
      ]
      assert.strictEqual(SessionState.fold(chat).firstRequest?.turnId, "u0")
      const before = tokensOf({ summaries: [], turns: chat })
      const forgot = yield* Condenser.pipeline([Condenser.forget({ maxTokens: before - 200 })])({ summaries: [], turns: chat })
      expect(forgot.turns.map((t) => t.id)).toContain("u0")
      expect(forgot.turns.map((t) => t.id)).not.toContain("echo")
      const windowed = yield* Condenser.pipeline([Condenser.window({ maxTokens: 300 })])({ summaries: [], turns: chat })
      expect(windowed.turns[0]!.id).toBe("u0")
      expect(windowed.turns.map((t) => t.id)).not.toContain("echo")
    }))

  it("forget: the seed's score", () => {
    const options = Condenser.defaults.forget
    expect(Forget.score(turn("assistant", "ok", "a"), 9, 10, options)).toBe(1)
    expect(Forget.score(turn("tool", "build output", "t"), 0, 11, options)).toBeCloseTo(1 - 0.5 + 0.2 + 0.1)
  })

  it.effect("window: a single turn over the budget is cut in its middle with a marker, never over", () =>
    Effect.gen(function*() {
      const huge = [turn("user", `Here is the log:\n${log(2000)}`, "u0")]
      const out = yield* Condenser.pipeline([Condenser.window({ maxTokens: 500 })])({ summaries: [], turns: huge })
      expect(out.tokens).toBeLessThanOrEqual(500)
      expect(out.tokens).toBeGreaterThan(450)
      expect(out.turns[0]!.content).toContain("chars cut; full text: turn u0")
      expect(out.turns[0]!.content.startsWith("Here is the log:")).toBe(true)
      expect(out.report.stages[0]!.trimmed).toBe(1)
    }))

  it.effect("window: keeps the first request and the newest turns, drops the middle, cuts summaries last", () =>
    Effect.gen(function*() {
      const summaries = [1, 2].map((i) =>
        SummaryRecord.make({ id: `s${i}`, depth: 0, content: `summary ${i} ${"z".repeat(4000)}`, tokenEstimate: 1002 })
      )
      const out = yield* Condenser.pipeline([Condenser.window({ maxTokens: 1500 })])({ summaries, turns: session })
      expect(out.tokens).toBeLessThanOrEqual(1500)
      expect(out.turns[0]!.id).toBe("u0")
      expect(out.turns[out.turns.length - 1]!.id).toBe("a4")
      expect(pairsWhole(session, out)).toBe(true)
      // The middle unit (a call and its long result) goes whole; the newest summary is kept whole,
      // the older one cut to what is left.
      expect(out.turns.map((t) => t.id)).toEqual(["u0", "a4"])
      expect(out.summaries.map((s) => s.id)).toEqual(["s1", "s2"])
      expect(out.summaries[0]!.content).toContain("chars cut; full text: summary s1")
      expect(out.summaries[1]).toBe(summaries[1])
      // Summaries alone over the budget: they are cut too.
      const tiny = yield* Condenser.pipeline([Condenser.window({ maxTokens: 300 })])({ summaries, turns: [] })
      expect(tiny.tokens).toBeLessThanOrEqual(300)
      expect(tiny.summaries[0]!.content).toContain("full text: summary s2")
      // A UUID is named by its short id (recall's `expand` opens it by that), never whole.
      const uuid = "d35f0cc4-428d-436c-b878-0a1b2c3d4e5f"
      const long = yield* Condenser.pipeline([Condenser.window({ maxTokens: 300 })])({
        summaries: [SummaryRecord.make({ ...summaries[1]!, id: uuid })],
        turns: []
      })
      expect(long.summaries[0]!.content).toMatch(/chars cut; full text: summary d35f0cc4 \.\.\.\]/)
      expect(long.summaries[0]!.content).not.toContain(uuid)
    }))

  it.effect("window: the budget holds for the text as sent, the summaries' header lines included", () =>
    Effect.gen(function*() {
      // Many short summaries: their headers (`[Summary 12, depth 1, START to END]`) cost more than their counts say.
      const summaries = Array.from({ length: 24 }, (_, i) =>
        SummaryRecord.make({
          id: `s${i}`,
          depth: 1,
          content: `summary ${i}: ${"fixed the loader ".repeat(4)}`,
          timeRangeStart: "2026-02-11T20:36:45Z",
          timeRangeEnd: "2026-02-11T20:46:33Z"
        })
      )
      for (const maxTokens of [300, 600, 900]) {
        const out = yield* Condenser.pipeline([Condenser.window({ maxTokens })])({ summaries, turns: session })
        expect(estimator.estimate(Layout.render(out))).toBeLessThanOrEqual(maxTokens)
        expect(out.turns.at(-1)!.id).toBe("a4")
      }
    }))

  it.effect("summarize (stateless): older turns become one summary, the newest and the first request stay", () =>
    Effect.gen(function*() {
      const out = yield* Condenser.pipeline([Condenser.summarize({ maxTokens: 100, keepRecentTurns: 2 })])({
        summaries: [],
        turns: session
      })
      expect(out.summaries).toHaveLength(1)
      expect(out.summaries[0]!.sourceTurnIds).toEqual(["a1", "r1", "a2", "a3", "r3"].slice(0, 3))
      expect(out.turns.map((t) => t.id)).toEqual(["u0", "a3", "r3", "a4"])
      expect(out.report.stages[0]!.summarized).toBe(3)
      expect(yield* requestCount).toBe(1)
    }).pipe(Effect.provide(Summarizer.layer().pipe(Layer.provideMerge(ScriptedProvider.respond(shortReply))))))

  it.effect.prop(
    "fit and condense: never over the budget, tool pairs whole, whatever the session",
    {
      sizes: FastCheck.array(
        FastCheck.record({
          kind: FastCheck.constantFrom("user", "assistant", "pair", "orphan"),
          chars: FastCheck.integer({ min: 0, max: 60_000 })
        }),
        { minLength: 0, maxLength: 25 }
      ),
      summaries: FastCheck.array(FastCheck.integer({ min: 0, max: 20_000 }), { maxLength: 4 }),
      budget: FastCheck.integer({ min: 1, max: 40_000 })
    },
    ({ budget, sizes, summaries }) =>
      Effect.gen(function*() {
        const turns = sizes.flatMap(({ chars, kind }, i) => {
          const text = "w ".repeat(Math.floor(chars / 2))
          if (kind === "pair") return [call(`c${i}`, `cat file${i}.ts`), result(`r${i}`, `c${i}`, text)]
          if (kind === "orphan") return [result(`o${i}`, `none${i}`, text)]
          return [turn(kind, text, `t${i}`)]
        })
        const context = {
          summaries: summaries.map((chars, i) => SummaryRecord.make({ id: `s${i}`, depth: 0, content: "v".repeat(chars) })),
          turns
        }
        const fitted = yield* Condenser.fit(context, { budget })
        expect(fitted.tokens).toBeLessThanOrEqual(budget)
        expect(fitted.tokens).toBe(tokensOf(fitted))
        expect(pairsWhole(turns, fitted)).toBe(true)
        const condensed = yield* Condenser.condense(turns, { budget })
        expect(condensed.tokens).toBeLessThanOrEqual(budget)
        expect(pairsWhole(turns, condensed)).toBe(true)
        expect(condensed.report.stages.map((s) => s.stage)).toEqual(["mask", "summarize", "forget", "window"])
      }).pipe(Effect.provide(Summarizer.layer().pipe(Layer.provideMerge(ScriptedProvider.respond(shortReply))))),
    { fastCheck: { numRuns: 30, endOnFailure: true }, timeout: 120_000 }
  )

  it.effect("summarize (stateless): its summary is a leaf no store holds, named so", () =>
    Effect.gen(function*() {
      const prior = SummaryRecord.make({ id: "s-1", depth: 1, content: "earlier" })
      const out = yield* Condenser.summarize({ maxTokens: 100, keepRecentTurns: 2 }).run(
        { summaries: [prior], turns: session },
        tokensOf({ summaries: [prior], turns: session })
      )
      const made = out.context.summaries[1]!
      assert.deepStrictEqual([made.id, made.depth], ["stateless-leaf-2", 0])
    }).pipe(Effect.provide(Summarizer.layer().pipe(Layer.provideMerge(ScriptedProvider.respond(shortReply))))))
})

describe("Condenser.registry", () => {
  it("is where the standard pipelines come from: with a store, without one, and without a model", () => {
    const options = { budget: 1000 }
    const dag: Condenser.Stage = { name: "dag", run: (context) => Effect.succeed({ context, counts: {} }) }
    expect(Condenser.registry.map((entry) => entry.name)).toEqual(["mask", "forget", "summarize", "window"])
    expect(Condenser.stages(options, dag).map((stage) => stage.name)).toEqual(["mask", "forget", "dag", "window"])
    expect(Condenser.fitStages(options).map((stage) => stage.name)).toEqual(["mask", "forget", "window"])
    for (const entry of Condenser.registry) expect(entry.make(options).name).toBe(entry.name)
  })

  it.effect("condense runs the stateless order: summarize before forget", () =>
    Effect.gen(function*() {
      const out = yield* Condenser.condense(session, { budget: 10_000 })
      expect(out.report.stages.map((stage) => stage.stage)).toEqual(["mask", "summarize", "forget", "window"])
    }).pipe(Effect.provide(Summarizer.layer().pipe(Layer.provide(ScriptedProvider.alwaysReply("x"))))))

  it("the stage table of docs/context.md is the registry's", () => {
    const readme = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/context.md"), "utf8")
    for (const entry of Condenser.registry) {
      expect(readme).toContain(`| \`${entry.name}\` | ${entry.description} | ${entry.defaults} |`)
    }
  })
})
