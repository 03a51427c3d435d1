/**
 * Section `sleep`: the agent loop with a provider of realistic latency and
 * idle gaps between turns, with and without Sleep Mode, on a virtual clock
 * (`internal/virtualClock.ts`: hours of agent time run in seconds). Each agent turn appends a
 * turn, asks `status` against the budget and compacts when it says so (the
 * time this takes is the agent's *blocked time*), then calls its own model.
 * Between turns the user takes `gapSeconds`, and every `awayEvery` turns
 * `awayMinutes` (long enough for Sleep Mode's idle threshold). With Sleep
 * Mode, each agent turn runs inside `SleepMode.busy`, so an idle cycle never
 * runs while the agent works; the provider counts the calls made while the
 * agent is active by anyone but the agent.
 *
 * @since 0.1.0
 */
import { CompactionManager, SleepMode } from "@precis/compaction"
import { Provider } from "@precis/core"
import { Store } from "@precis/store"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import * as child from "./internal/child.js"
import * as simulated from "./internal/simulated.js"
import * as stack from "./internal/stack.js"
import * as VirtualClock from "./internal/virtualClock.js"
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
  /** Seconds per summary call of the simulated provider. */
  readonly latencySeconds: number
  /** Seconds of the agent's own model call per turn. */
  readonly agentSeconds: number
  readonly gapSeconds: number
  readonly awayEvery: number
  readonly awayMinutes: number
  readonly leafChunkTokens: number
  /** Sleep Mode's options; none: the loop without Sleep Mode. */
  readonly sleep?: {
    readonly batchSize: number
    readonly minUnprocessedTurns: number
    readonly softMark?: number | undefined
  } | undefined
}

/**
 * One loop's totals (times in virtual seconds).
 *
 * @since 0.1.0
 */
export interface Result {
  readonly args: Args
  readonly turns: number
  readonly calls: number
  readonly blockedSeconds: number
  readonly agentCompactions: number
  readonly sessionSeconds: number
  /** Provider calls made while the agent was active, by anything but the agent's own compaction. */
  readonly callsWhileActive: number
  readonly sleepStats: {
    readonly cyclesCompleted: number
    readonly cyclesInterrupted: number
    readonly turnsProcessed: number
    readonly errors: number
  } | undefined
  readonly wallMs: number
}

/**
 * Runs one loop (in this process).
 *
 * @since 0.1.0
 */
export const measureOne = async (args: Args): Promise<Result> => {
  const turns = Synthetic.session(args.sessionTokens, { seed: 21 })
  const flags = { agentActive: false, agentCompacting: false, callsWhileActive: 0 }
  const sim = simulated.make({ latencyMs: args.latencySeconds * 1000 })
  const provider = Provider.Provider.of({
    ...sim.service,
    chat: (request) =>
      Effect.suspend(() => {
        if (flags.agentActive && !flags.agentCompacting) flags.callsWhileActive++
        return sim.service.chat(request)
      })
  })
  const dir = stack.tempDir()
  const t0 = performance.now()

  const loop = Effect.gen(function*() {
    const store = yield* Store.all
    const manager = yield* CompactionManager.CompactionManager
    const sleep = yield* Effect.serviceOption(SleepMode.SleepMode)
    let blockedMs = 0
    let agentCompactions = 0
    const started = yield* Clock.currentTimeMillis
    for (const [i, turn] of turns.entries()) {
      const agentTurn = Effect.gen(function*() {
        flags.agentActive = true
        yield* store.appendTurns("agent", [turn])
        const status = yield* manager.status("agent", args.budget)
        if (status.shouldCompact) {
          const before = yield* Clock.currentTimeMillis
          flags.agentCompacting = true
          yield* manager.compact("agent")
          flags.agentCompacting = false
          blockedMs += (yield* Clock.currentTimeMillis) - before
          agentCompactions++
        }
        // The agent's own model call.
        yield* Effect.sleep(`${args.agentSeconds} seconds`)
        flags.agentActive = false
      })
      yield* Option.isSome(sleep) ? sleep.value.busy(agentTurn) : agentTurn
      const away = (i + 1) % args.awayEvery === 0
      yield* Effect.sleep(away ? `${args.awayMinutes} minutes` : `${args.gapSeconds} seconds`)
    }
    const sessionSeconds = ((yield* Clock.currentTimeMillis) - started) / 1000
    const stats = Option.isSome(sleep) ? yield* sleep.value.stats : undefined
    return {
      blockedSeconds: blockedMs / 1000,
      agentCompactions,
      sessionSeconds,
      sleepStats: stats === undefined ? undefined : {
        cyclesCompleted: stats.cyclesCompleted,
        cyclesInterrupted: stats.cyclesInterrupted,
        turnsProcessed: stats.turnsProcessed,
        errors: stats.errors
      }
    }
  })

  const base = stack.layer(path.join(dir, "bench.db"), Layer.succeed(Provider.Provider, provider), {
    leafChunkTokens: args.leafChunkTokens
  })
  const withSleep = args.sleep === undefined
    ? Effect.provide(loop, base)
    : Effect.provide(
      loop,
      SleepMode.layer({ budget: args.budget, ...args.sleep }).pipe(Layer.provideMerge(base))
    )

  try {
    const totals = await Effect.runPromise(VirtualClock.run(withSleep))
    return {
      args,
      turns: turns.length,
      calls: sim.counters.calls,
      callsWhileActive: flags.callsWhileActive,
      ...totals,
      wallMs: performance.now() - t0
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

/**
 * The two loops of a run: without and with Sleep Mode, the same session, provider and gaps.
 *
 * @since 0.1.0
 */
export const plan = (options: Options): ReadonlyArray<Args & { readonly label: string }> => {
  const common = {
    sessionTokens: options.quick ? 60_000 : 200_000,
    budget: 32_000,
    latencySeconds: 4,
    agentSeconds: 5,
    gapSeconds: 20,
    awayEvery: 10,
    awayMinutes: 10,
    leafChunkTokens: 8_000
  }
  return [
    { label: "without Sleep Mode", ...common },
    // The reference design's batch and turn count: each idle cycle summarizes what little arrived.
    { label: "with Sleep Mode, seed settings", ...common, sleep: { batchSize: 20, minUnprocessedTurns: 5 } },
    // Due only past the soft mark, then compacted as the trigger would, ahead of it.
    { label: "with Sleep Mode, soft mark 0.5 only", ...common, sleep: { batchSize: 200, minUnprocessedTurns: 10_000 } },
    {
      label: "with Sleep Mode, soft mark 0.65 only",
      ...common,
      sleep: { batchSize: 200, minUnprocessedTurns: 10_000, softMark: 0.65 }
    }
  ]
}

/**
 * The section's figures, each loop in a child process.
 *
 * @since 0.1.0
 */
export const run = async (
  options: Options
): Promise<{ figures: ReadonlyArray<Figure>; results: ReadonlyArray<Result & { maxRssMB: number }> }> => {
  const results: Array<Result & { maxRssMB: number }> = []
  const labels: Array<string> = []
  for (const item of plan(options)) {
    const { label, ...args } = item
    results.push(await child.run<Result>("sleep", args))
    labels.push(label)
  }
  const without = results[0]!
  const shape = `${without.turns} turns, ${without.args.latencySeconds} s per summary call, idle ` +
    `${without.args.awayMinutes} min every ${without.args.awayEvery} turns`
  const figures: Array<Figure> = results.slice(1).flatMap((r, i) => {
    const label = `${shape}, ${labels[i + 1]} (batch ${r.args.sleep?.batchSize}, min turns ` +
      `${r.args.sleep?.minUnprocessedTurns})`
    return [
      figure({
        section: "sleep mode",
        name: `${label}: agent time blocked on compaction inside its turns`,
        value: r.blockedSeconds,
        unit: "s",
        baseline: { name: "without Sleep Mode", value: without.blockedSeconds, unit: "s" },
        target: { op: "<=", value: 0.1, on: "ratio" },
        note: `${r.agentCompactions} in-turn compactions, ${without.agentCompactions} without; ` +
          `${r.sleepStats?.cyclesCompleted ?? 0} idle cycles (${r.sleepStats?.cyclesInterrupted ?? 0} ` +
          `interrupted), ${r.sleepStats?.turnsProcessed ?? 0} turns compacted idle`
      }),
      figure({
        section: "sleep mode",
        name: `${label}: LLM calls`,
        value: r.calls,
        unit: "calls",
        baseline: { name: "without Sleep Mode", value: without.calls, unit: "calls" },
        target: { op: "<=", value: 1.1, on: "ratio" },
        note: `the target is within 10% either way; loop wall ${(r.wallMs / 1000).toFixed(1)} s`
      }),
      figure({
        section: "sleep mode",
        name: `${label}: summary calls made while the agent was active, not by the agent`,
        value: r.callsWhileActive,
        unit: "calls",
        target: { op: "<=", value: 0, on: "value" }
      })
    ]
  })
  return { figures, results }
}
