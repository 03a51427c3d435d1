/**
 * Section 3a, compaction cost: one compaction of a whole session (the example
 * session and synthetic sessions of 10^4, 10^5 and 10^6 tokens) against a
 * simulated provider of fixed latency: LLM calls, provider input tokens per
 * raw token compacted, wall time against the critical path (the leaf chain
 * plus one call per depth), and peak memory (each size in its own process).
 *
 * @since 0.1.0
 */
import { CompactionManager, CompactionProgress } from "@precis/compaction"
import { type ConversationTurn, TokenEstimator, Transcript } from "@precis/core"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as os from "node:os"
import * as child from "./internal/child.js"
import * as simulated from "./internal/simulated.js"
import * as stack from "./internal/stack.js"
import * as Inputs from "./Inputs.js"
import { figure, type Figure } from "./Results.js"
import * as Stats from "./Stats.js"
import * as Synthetic from "./Synthetic.js"

/**
 * What to compact: the example session or a synthetic session of `tokens`.
 *
 * @since 0.1.0
 */
export type Source = { readonly kind: "example" } | { readonly kind: "synthetic"; readonly tokens: number }

/**
 * The measurement of one session.
 *
 * @since 0.1.0
 */
export interface Result {
  readonly source: string
  readonly rawTokens: number
  readonly turns: number
  readonly compactedRawTokens: number
  readonly calls: number
  readonly leafCalls: number
  readonly condenseCalls: number
  readonly depths: number
  readonly inputTokens: number
  readonly wallMs: number
  /** CPU time of the process during the compaction (user + system). */
  readonly cpuMs: number
  /** The 1-minute load average of the machine after the compaction. */
  readonly loadAverage: number
  readonly runs: number
  readonly latencyMs: number
  readonly criticalPathMs: number
  readonly sleepChainMs: number
}

const turnsOf = (source: Source): ReadonlyArray<ConversationTurn.ConversationTurn> =>
  source.kind === "example" ? Inputs.load(Inputs.exampleSession).turns : Synthetic.session(source.tokens, { seed: 11 })

const tokensOf = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>) =>
  turns.reduce((sum, t) => sum + TokenEstimator.approximate.estimate(Transcript.formatTurn(t)), 0)

/**
 * Compacts one session with default options (in this process).
 *
 * @since 0.1.0
 */
export const measureOne = async (
  args: { readonly source: Source; readonly latencyMs: number; readonly repeats?: number }
): Promise<Result> => {
  const turns = turnsOf(args.source)
  // Warm-up: one small compaction on its own store (with a provider that
  // sleeps), so that the measured ones are not the first run of the code.
  await stack.runWithStack(
    simulated.make({ latencyMs: 1 }).service,
    {},
    Effect.gen(function*() {
      yield* (yield* Store.all).appendTurns("warm-up", Synthetic.session(3_000, { seed: 5 }))
      yield* (yield* CompactionManager.CompactionManager).compact("warm-up", { freshTailTurns: 2, leafChunkTokens: 1_000 })
    })
  )
  const runs: Array<{
    stats: CompactionManager.CompactionStats
    wallMs: number
    cpuMs: number
    depths: number
    sim: simulated.Simulated
  }> = []
  for (let i = 0; i < Math.max(1, args.repeats ?? 1); i++) {
    const sim = simulated.make({ latencyMs: args.latencyMs })
    const depths = new Set<number>()
    const run = await stack.runWithStack(sim.service, {}, Effect.gen(function*() {
      const store = yield* Store.all
      const manager = yield* CompactionManager.CompactionManager
      yield* store.appendTurns("bench", turns)
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      const stats = yield* manager.compact("bench").pipe(
        CompactionProgress.reporting((event) =>
          Effect.sync(() => event._tag === "CondenseStarted" && depths.add(event.depth))
        )
      )
      const wallMs = performance.now() - t0
      const cpu = process.cpuUsage(cpu0)
      return { stats, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 }
    }))
    runs.push({ ...run, depths: depths.size, sim })
  }
  // The median run by wall time.
  const sorted = [...runs].sort((a, b) => a.wallMs - b.wallMs)
  const { cpuMs, depths, sim, stats, wallMs } = sorted[Math.floor((sorted.length - 1) / 2)]!
  const chain = stats.leafSummariesCreated + depths
  // What the critical path takes on this machine now: as many sequential
  // sleeps of the provider's latency, in the same runtime.
  const sleepChainMs = await Effect.runPromise(Effect.gen(function*() {
    const t0 = performance.now()
    for (let i = 0; i < chain; i++) yield* Effect.sleep(args.latencyMs)
    return performance.now() - t0
  }))
  return {
    source: args.source.kind === "example" ? "example session" : `synthetic ${args.source.tokens} tokens`,
    rawTokens: tokensOf(turns),
    turns: turns.length,
    compactedRawTokens: tokensOf(turns.slice(0, stats.turnsCompacted)),
    calls: sim.counters.calls,
    leafCalls: sim.counters.leafCalls,
    condenseCalls: sim.counters.condenseCalls,
    depths,
    inputTokens: sim.counters.inputTokens,
    wallMs,
    cpuMs,
    loadAverage: os.loadavg()[0]!,
    runs: runs.length,
    latencyMs: args.latencyMs,
    criticalPathMs: chain * args.latencyMs,
    sleepChainMs
  }
}

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

/**
 * The sources, the provider latency (50 ms) and the number of runs (the
 * median is reported) of a run; 10^6 tokens (about 50 leaves in a chain)
 * once, and not with `quick`.
 *
 * @since 0.1.0
 */
export const plan = (
  options: Options
): ReadonlyArray<{ readonly source: Source; readonly latencyMs: number; readonly repeats: number }> => [
  { source: { kind: "example" }, latencyMs: 50, repeats: options.quick ? 1 : 3 },
  { source: { kind: "synthetic", tokens: 10_000 }, latencyMs: 50, repeats: options.quick ? 1 : 3 },
  { source: { kind: "synthetic", tokens: 100_000 }, latencyMs: 50, repeats: options.quick ? 1 : 3 },
  ...(options.quick ? [] : [{ source: { kind: "synthetic", tokens: 1_000_000 } as const, latencyMs: 50, repeats: 1 }])
]

/**
 * The section's figures, each size measured in a child process.
 *
 * @since 0.1.0
 */
export const run = async (options: Options): Promise<{ figures: ReadonlyArray<Figure>; results: ReadonlyArray<Result & { maxRssMB: number }> }> => {
  const results: Array<Result & { maxRssMB: number }> = []
  for (const item of plan(options)) results.push(await child.run<Result>("compaction", item))
  const idle = await child.idleRss("compaction")
  const figures: Array<Figure> = []
  for (const r of results) {
    figures.push(
      figure({
        section: "compaction",
        name: `${r.source}: LLM calls`,
        value: r.calls,
        unit: "calls",
        note: `${r.leafCalls} leaf + ${r.condenseCalls} condense; ${r.depths} condensed depth(s); ${r.turns} turns, ${r.rawTokens} raw tokens`
      }),
      figure({
        section: "compaction",
        name: `${r.source}: provider input tokens per raw token compacted`,
        value: r.inputTokens / Math.max(1, r.compactedRawTokens),
        unit: "tokens/token",
        note: `${r.inputTokens} sent for ${r.compactedRawTokens} raw tokens compacted`
      }),
      figure({
        section: "compaction",
        name: `${r.source}: wall time`,
        value: r.wallMs,
        unit: "ms",
        baseline: { name: `critical path (${r.latencyMs} ms × (leaves + depths))`, value: r.criticalPathMs, unit: "ms" },
        target: { op: "<=", value: 1.1, on: "ratio" },
        note: `median of ${r.runs} run(s); CPU time ${r.cpuMs.toFixed(0)} ms; load average ${r.loadAverage.toFixed(1)} on ${os.availableParallelism()} cores`
      }),
      figure({
        section: "compaction",
        name: `${r.source}: wall time vs measured sleep chain`,
        value: r.wallMs,
        unit: "ms",
        baseline: { name: "as many sequential 50 ms sleeps, same process", value: r.sleepChainMs, unit: "ms" },
        note: "the timer lateness of the machine is in both"
      }),
      figure({
        section: "compaction",
        name: `${r.source}: peak RSS of the process`,
        value: r.maxRssMB,
        unit: "MB",
        baseline: { name: "idle process with the same modules", value: idle, unit: "MB" }
      })
    )
  }
  const synthetic = results.filter((r) => r.source.startsWith("synthetic"))
  if (synthetic.length >= 2) {
    const growth = (y: (r: Result & { maxRssMB: number }) => number) =>
      Stats.growthExponent(synthetic.map((r) => [r.rawTokens, y(r)] as const))
    figures.push(
      figure({
        section: "compaction",
        name: "growth with session size: LLM calls ~ size^k",
        value: growth((r) => r.calls),
        unit: "k",
        note: "least-squares slope on log-log over the synthetic sizes; 1 = linear"
      }),
      figure({ section: "compaction", name: "growth with session size: wall time ~ size^k", value: growth((r) => r.wallMs), unit: "k" }),
      figure({
        section: "compaction",
        name: "growth with session size: provider input tokens ~ size^k",
        value: growth((r) => r.inputTokens),
        unit: "k"
      }),
      figure({
        section: "compaction",
        name: "growth with session size: peak RSS above idle ~ size^k",
        value: growth((r) => r.maxRssMB - idle),
        unit: "k"
      })
    )
  }
  return { figures, results }
}
