/**
 * The assembler's frames: between two rebuilds, what is sent is the previous
 * request with text added at its end; rebuilds come past the high mark, with
 * a compaction; a compaction prepared in idle time is adopted only then.
 */
import type * as Prompt from "@effect/ai/Prompt"
import { assert, describe, expect, it } from "@effect/vitest"
import { CompactionManager, SleepMode } from "@precis/compaction"
import { ConversationTurn, TokenEstimator, ToolUse } from "@precis/core"
import { Store } from "@precis/store"
import { ScriptedProvider, StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { shortReply, waitUntil } from "../../compaction/test/helpers.js"
import * as AiPrompt from "../src/AiPrompt.js"
import * as Assembler from "../src/Assembler.js"
import * as AssemblerConfig from "../src/AssemblerConfig.js"
import * as Layout from "../src/Layout.js"
import { assemblerLayer, managerLayer, requestCount, runPumped } from "./helpers.js"

const estimator = TokenEstimator.approximate

/** A step of a session: a user request, tool calls (each answered by an output of `outputs[j]` characters), a reply. */
interface Step {
  readonly request: string
  readonly outputs: ReadonlyArray<number>
}

const output = (chars: number, seed: number) => {
  const lines: Array<string> = []
  for (let n = 0, i = 0; n < chars; i++) {
    const line = `  ${seed}:${i} PASS test/case${i % 97}.test.ts (${i % 13} tests)`
    lines.push(line)
    n += line.length + 1
  }
  return lines.join("\n").slice(0, chars)
}

/** The turns of `steps`: tool calls paired with their results by id. */
const sessionOf = (steps: ReadonlyArray<Step>): Array<ConversationTurn.ConversationTurn> =>
  steps.flatMap((step, i) => [
    ConversationTurn.make({ role: "user", content: step.request, id: `u${i}` }),
    ...step.outputs.flatMap((chars, j) => [
      ConversationTurn.make({
        role: "assistant",
        content: `Running check ${j}.`,
        id: `a${i}-${j}`,
        metadata: { toolCalls: [{ id: `c${i}-${j}`, name: "bash", arguments: JSON.stringify({ command: `npm test -- ${j}` }) }] }
      }),
      ConversationTurn.make({
        role: "tool",
        content: output(chars, i),
        id: `r${i}-${j}`,
        metadata: { toolCallId: `c${i}-${j}`, toolName: "bash" }
      })
    ]),
    ConversationTurn.make({ role: "assistant", content: `Step ${i} done.`, id: `d${i}` })
  ])

const steps = (count: number, chars: number): Array<Step> =>
  Array.from({ length: count }, (_, i) => ({ request: `step ${i}: check the build`, outputs: [chars, chars / 2] }))

/** Appends `turns` one at a time, assembling after each. */
const stream = (
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  options: Assembler.AssembleOptions,
  sessionId = "s",
  config?: AssemblerConfig.Config
) =>
  Effect.gen(function*() {
    const store = yield* Store.all
    // The assembler in context, or one of its own with `config`.
    const assembler = config === undefined ? yield* Assembler.Assembler : yield* Assembler.make(config)
    const out: Array<Assembler.Assembled> = []
    for (const turn of turns) {
      yield* store.appendTurns(sessionId, [turn])
      out.push(yield* runPumped(assembler.assemble(sessionId, options)))
    }
    return out
  })

// The blocks up to and including `index`, as the Prompt would send them.
const upTo = (assembled: Assembler.Assembled, index: number) =>
  Layout.blocks(assembled).slice(0, index + 1).map((b) => [b.kind, b.content])

// The text a Prompt sends: its messages' text parts.
const promptText = (prompt: Prompt.Prompt) =>
  prompt.content.map((m) =>
    typeof m.content === "string" ? m.content : m.content.map((part) => part.type === "text" ? part.text : "").join("")
  ).join("")

// Whether every tool result of `turns` comes right after the call it answers.
const pairsWhole = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>) =>
  turns.every((turn, i) => {
    const answer = ToolUse.result(turn)
    return answer === undefined || (i > 0 && ToolUse.callFor(answer, ToolUse.calls(turns[i - 1]!)) !== undefined)
  })

/** A session streamed a turn at a time: the frame's invariants after every assembly (see the property). */
const framesHold = ({ budget, prepare, recallNote, statePlacement, steps }: {
  readonly steps: ReadonlyArray<Step>
  readonly budget: number
  readonly statePlacement: Layout.StatePlacement
  readonly recallNote: boolean
  readonly prepare: ReadonlyArray<boolean>
}) =>
  Effect.gen(function*() {
    const store = yield* Store.all
    const manager = yield* CompactionManager.CompactionManager
    const assembler = yield* Assembler.make({ statePlacement, recallNote })
    const options = { budget }
    let previous: Assembler.Assembled | undefined
    for (const [i, step] of steps.entries()) {
      for (const turn of sessionOf([step]).map((t) => ConversationTurn.make({ ...t, id: `${i}-${t.id}` }))) {
        yield* store.appendTurns("p", [turn])
        const assembled = yield* runPumped(assembler.assemble("p", options))
        const text = Layout.render(assembled)
        expect(assembled.tokens).toBe(estimator.estimate(text))
        expect(assembled.tokens).toBeLessThanOrEqual(budget)
        expect(pairsWhole(assembled.turns)).toBe(true)
        // The Prompt marks the breakpoint, and only it; everything it sends is within the budget too.
        const prompt = AiPrompt.toPrompt(assembled)
        const marked = prompt.content.flatMap((m, k) => "anthropic" in m.options ? [k] : [])
        assert.deepStrictEqual(marked, [assembled.breakpoint])
        expect(estimator.estimate(promptText(prompt))).toBeLessThanOrEqual(budget)
        if (previous !== undefined && !assembled.rebuilt) {
          assert.isTrue(Layout.renderStable(assembled).startsWith(Layout.renderStable(previous)))
          expect(assembled.sharedTokens).toBeGreaterThanOrEqual(estimator.estimate(Layout.renderStable(previous)))
          assert.deepStrictEqual(upTo(assembled, previous.breakpoint), upTo(previous, previous.breakpoint))
          // A compaction prepared since is not adopted while the frame holds: the same summaries.
          assert.deepStrictEqual(assembled.summaries, previous.summaries)
        }
        previous = assembled
      }
      // In idle time, a compaction (as Sleep Mode runs one) that the next assembly must not adopt unless it rebuilds.
      if (prepare[i] === true) yield* runPumped(manager.compact("p", { budget }))
    }
    assert.deepStrictEqual(yield* StoreInvariants.violations(), [])
  }).pipe(Effect.provide(assemblerLayer()))

// Runs of this property take seconds: a failure ends the check at once (`endOnFailure`, its seed and path
// printed to replay it) instead of a shrinking that would run for hours and look like a hang.
describe("Assembler frames", () => {
  it.effect("between rebuilds each request is the previous one with text at its end; rebuilds past the high mark compact", () =>
    Effect.gen(function*() {
      const budget = 6000
      const all = yield* stream(sessionOf(steps(24, 3000)), { budget })
      const rebuilds = all.flatMap((a, i) => a.rebuilt ? [i] : [])
      expect(rebuilds.length).toBeGreaterThanOrEqual(3)
      expect(rebuilds[0]).toBe(0)
      for (const [i, assembled] of all.entries()) {
        expect(assembled.tokens).toBe(estimator.estimate(Layout.render(assembled)))
        expect(assembled.tokens).toBeLessThanOrEqual(Math.floor(budget * AssemblerConfig.defaults.highWater))
        assert.strictEqual(assembled.breakpoint, Layout.blocks(assembled).length - 1)
        if (i === 0) continue
        const previous = Layout.render(all[i - 1]!)
        if (assembled.rebuilt) {
          // Down to the low-water mark, and the session compacted (its summaries changed).
          expect(assembled.tokens).toBeLessThanOrEqual(Math.floor(budget * AssemblerConfig.defaults.lowWater))
          expect(assembled.report.stages.find((s) => s.stage === "summarize")!.acted).toBe(true)
          continue
        }
        assert.isTrue(Layout.render(assembled).startsWith(previous))
        assert.strictEqual(assembled.sharedTokens, estimator.estimate(previous))
      }
      assert.deepStrictEqual(yield* StoreInvariants.violations(), [])
    }).pipe(Effect.provide(assemblerLayer())), { timeout: 60_000 })

  it.effect("a turn enters cut past turnShare of the budget, and keeps that form until the next rebuild", () =>
    Effect.gen(function*() {
      const budget = 20_000
      const cap = Math.floor(budget * AssemblerConfig.defaults.turnShare)
      const turns = sessionOf([{ request: "read the log", outputs: [40_000] }, { request: "and now?", outputs: [] }])
      const all = yield* stream(turns, { budget })
      const first = all[2]!.turns.find((t) => t.id === "r0-0")!
      expect(estimator.estimate(`[?] tool: ${first.content}`)).toBeLessThanOrEqual(cap)
      assert.include(first.content, "chars cut; full text: turn r0-0")
      assert.isTrue(first.content.startsWith(output(40_000, 0).slice(0, 100)))
      for (const later of all.slice(3)) {
        assert.isFalse(later.rebuilt)
        assert.strictEqual(later.turns.find((t) => t.id === "r0-0")!.content, first.content)
      }
    }).pipe(Effect.provide(assemblerLayer())))

  it.effect("the header at the end is refreshed at every assembly, after the breakpoint; in the frame only at rebuilds", () =>
    Effect.gen(function*() {
      const turns = sessionOf(steps(3, 200))
      const end = yield* stream(turns, { budget: 20_000 }, "end", { statePlacement: "end" })
      const last = end.at(-1)!
      assert.include(last.header, "latest request: step 2: check the build")
      assert.isTrue(Layout.render(last).endsWith(`\n\n${last.header}`))
      assert.strictEqual(last.breakpoint, Layout.blocks(last).length - 2)
      for (const [i, assembled] of end.entries()) {
        if (i === 0) continue
        assert.isFalse(assembled.rebuilt)
        assert.isTrue(Layout.renderStable(assembled).startsWith(Layout.renderStable(end[i - 1]!)))
      }
      const frame = yield* stream(turns, { budget: 20_000 }, "frame")
      // Built at the first turn, never rebuilt: the header is as of the first turn.
      assert.isFalse(frame.at(-1)!.rebuilt)
      assert.strictEqual(frame.at(-1)!.header, frame[0]!.header)
      assert.notInclude(frame.at(-1)!.header, "latest request")
    }).pipe(Effect.provide(assemblerLayer())))

  it.scoped("a compaction Sleep Mode prepares in idle time is adopted at the next rebuild, without waiting for a model", () =>
    Effect.gen(function*() {
      const budget = 8000
      const turns = sessionOf(steps(20, 1600))
      // The agent works until its context is near the high mark, under it (one frame, never rebuilt).
      const sleep = yield* SleepMode.SleepMode
      // Each turn, as an agent does: activity, then the context to send.
      const turn = (next: ConversationTurn.ConversationTurn) =>
        Effect.zipRight(sleep.recordActivity, Effect.map(stream([next], { budget }), (all) => all[0]!))
      const before: Array<Assembler.Assembled> = []
      while (before.length === 0 || before.at(-1)!.tokens <= (AssemblerConfig.defaults.highWater - 0.1) * budget) {
        before.push(yield* turn(turns[before.length]!))
      }
      const idle = before.length
      assert.deepStrictEqual(before.map((a) => a.rebuilt).lastIndexOf(true), 0)
      const calls = yield* requestCount
      // The agent goes idle: Sleep Mode compacts the session.
      yield* TestClock.adjust("6 minutes")
      yield* waitUntil(Effect.map(sleep.stats, (s) => s.cyclesCompleted >= 1 && s.summariesCreated > 0))
      const prepared = yield* requestCount
      expect(prepared).toBeGreaterThan(calls)
      // Back to work: the frame that still fits keeps its text; the first rebuild adopts the prepared summaries.
      const after: Array<Assembler.Assembled> = []
      while (after.length === 0 || !after.at(-1)!.rebuilt) after.push(yield* turn(turns[idle + after.length]!))
      const rebuild = after.length - 1
      expect(rebuild).toBeGreaterThan(0)
      let previous = before.at(-1)!
      for (const assembled of after.slice(0, rebuild)) {
        assert.isTrue(Layout.render(assembled).startsWith(Layout.render(previous)))
        assert.deepStrictEqual(assembled.summaries, previous.summaries)
        previous = assembled
      }
      const adopted = after[rebuild]!
      expect(adopted.report.stages.find((s) => s.stage === "summarize")!.acted).toBe(false)
      expect(yield* requestCount).toBe(prepared)
      expect(adopted.summaries.length).toBeGreaterThan(0)
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          Assembler.layer(),
          SleepMode.layer({
            idleThreshold: "5 minutes",
            checkInterval: "1 minute",
            batchSize: 200,
            minUnprocessedTurns: 1,
            compaction: { freshTailTurns: 4 }
          })
        ).pipe(Layer.provideMerge(managerLayer(ScriptedProvider.respond(shortReply))))
      )
    ))

  it.effect.prop(
    "whatever the session and budget: between rebuilds text only added at the end, within the budget, the breakpoint kept",
    {
      steps: FastCheck.array(
        FastCheck.record({
          request: FastCheck.string({ minLength: 1, maxLength: 300 }),
          outputs: FastCheck.array(FastCheck.integer({ min: 0, max: 60_000 }), { maxLength: 3 })
        }),
        { minLength: 1, maxLength: 8 }
      ),
      budget: FastCheck.integer({ min: 200, max: 24_000 }),
      statePlacement: FastCheck.constantFrom("frame" as const, "end" as const),
      recallNote: FastCheck.boolean(),
      prepare: FastCheck.array(FastCheck.boolean(), { minLength: 8, maxLength: 8 })
    },
    framesHold,
    { fastCheck: { numRuns: 20, endOnFailure: true }, timeout: 240_000 }
  )

  // A counterexample the property found: at a budget of 320 a rebuild had no room for a call, and the
  // frame then appended its result alone; a result whose call the frame does not show now rebuilds.
  it.effect("a tool result never enters a frame that dropped its call", () =>
    framesHold({
      steps: [
        { request: "AqDF'#'", outputs: [45197, 4670] },
        { request: "%'42|*", outputs: [] },
        { request: "/yI", outputs: [12871] },
        { request: "^Zh]P4]-", outputs: [31073] },
        { request: "ZOpt|,u~f~", outputs: [6409, 29859] }
      ],
      budget: 320,
      statePlacement: "end",
      recallNote: false,
      prepare: [false, true, true, false, false, false, false, false]
    }))
})
