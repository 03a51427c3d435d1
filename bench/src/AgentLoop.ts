/**
 * Section 3b, the agent loop: a session that grows turn by turn to 200k
 * tokens, with `shouldCompact` (and `compact` when it says so) after every
 * turn against a 32k-token budget, and an instantaneous simulated provider:
 * provider input tokens per raw token, LLM calls per turn, and the largest
 * context the agent assembled against its budget. (What an agent that sends
 * `Assembler.assemble`'s context pays is `AgentPays`.)
 *
 * @since 0.1.0
 */
import { CompactionManager } from "@precis/compaction"
import { TokenEstimator, Transcript } from "@precis/core"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as child from "./internal/child.js"
import * as simulated from "./internal/simulated.js"
import * as stack from "./internal/stack.js"
import { figure, type Figure } from "./Results.js"
import * as Synthetic from "./Synthetic.js"

/**
 * One loop's settings.
 *
 * @since 0.1.0
 */
export interface Args {
  readonly sessionTokens: number
  readonly budget: number
  readonly options: { readonly leafChunkTokens?: number; readonly freshTailTurns?: number }
  /** `synthetic` (the default, `Synthetic.session`) or `coding` (`Synthetic.codingSession`: mostly tool output). */
  readonly shape?: "synthetic" | "coding"
}

/**
 * One loop's totals.
 *
 * @since 0.1.0
 */
export interface Result {
  readonly args: Args
  readonly turns: number
  readonly rawTokens: number
  readonly calls: number
  readonly inputTokens: number
  readonly compactions: number
  readonly maxContextTokens: number
  readonly maxContextBeforeCompaction: number
  readonly wallMs: number
}

/**
 * Runs one loop (in this process).
 *
 * @since 0.1.0
 */
export const measureOne = async (args: Args): Promise<Result> => {
  const turns = args.shape === "coding"
    ? Synthetic.codingSession(args.sessionTokens, { seed: 21 })
    : Synthetic.session(args.sessionTokens, { seed: 21 })
  const sim = simulated.make({ latencyMs: 0 })
  const t0 = performance.now()
  const totals = await stack.runWithStack(sim.service, args.options, Effect.gen(function*() {
    const store = yield* Store.all
    const manager = yield* CompactionManager.CompactionManager
    let compactions = 0
    let maxContextTokens = 0
    let maxContextBeforeCompaction = 0
    for (const turn of turns) {
      yield* store.appendTurns("agent", [turn])
      const status = yield* manager.status("agent", args.budget)
      maxContextBeforeCompaction = Math.max(maxContextBeforeCompaction, status.activeTokens)
      if (status.shouldCompact) {
        yield* manager.compact("agent")
        compactions++
      }
      // What the agent sends to its model next.
      const context = yield* manager.context("agent")
      maxContextTokens = Math.max(maxContextTokens, context.tokens)
    }
    return { compactions, maxContextTokens, maxContextBeforeCompaction }
  }))
  return {
    args,
    turns: turns.length,
    rawTokens: turns.reduce((sum, t) => sum + TokenEstimator.approximate.estimate(Transcript.formatTurn(t)), 0),
    calls: sim.counters.calls,
    inputTokens: sim.counters.inputTokens,
    ...totals,
    wallMs: performance.now() - t0
  }
}

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

/**
 * The loops of a run: the defaults, and the tuned options the figures report.
 *
 * @since 0.1.0
 */
export const plan = (options: Options): ReadonlyArray<Args & { readonly label: string }> => {
  const sessionTokens = options.quick ? 60_000 : 200_000
  return [
    { label: "default options", sessionTokens, budget: 32_000, options: {} },
    { label: "leafChunkTokens 8000", sessionTokens, budget: 32_000, options: { leafChunkTokens: 8_000 } },
    { label: "coding-agent session, status/compact", sessionTokens, budget: 32_000, options: {}, shape: "coding" }
  ]
}

/**
 * The section's figures, each loop in a child process.
 *
 * @since 0.1.0
 */
export const run = async (options: Options): Promise<{ figures: ReadonlyArray<Figure>; results: ReadonlyArray<Result & { maxRssMB: number }> }> => {
  const results: Array<Result & { maxRssMB: number }> = []
  const figures: Array<Figure> = []
  for (const item of plan(options)) {
    const { label: _label, ...args } = item
    const r = await child.run<Result>("loop", args)
    results.push(r)
    const label = `${item.label}, ${r.rawTokens} raw tokens, ${r.turns} turns`
    figures.push(
      figure({
        section: "agent loop",
        name: `${label}: provider input tokens per raw token`,
        value: r.inputTokens / r.rawTokens,
        unit: "tokens/token",
        target: { op: "<=", value: 1.15, on: "value" },
        note: `${r.inputTokens} tokens sent`
      }),
      figure({
        section: "agent loop",
        name: `${label}: LLM calls per turn`,
        value: r.calls / r.turns,
        unit: "calls/turn",
        target: { op: "<=", value: 0.05, on: "value" },
        note: `${r.calls} calls in ${r.compactions} compactions`
      }),
      figure({
        section: "agent loop",
        name: `${label}: largest assembled context`,
        value: r.maxContextTokens,
        unit: "tokens",
        baseline: { name: "budget", value: r.args.budget, unit: "tokens" },
        target: { op: "<=", value: 0.85, on: "ratio" },
        note: `largest before compaction ${r.maxContextBeforeCompaction}; loop wall ${(r.wallMs / 1000).toFixed(1)} s`
      })
    )
  }
  return { figures, results }
}
