/**
 * Section 3c of `pnpm bench loop`, what an agent pays: a session streamed into
 * an agent loop turn by turn (the generated coding session, and each Claude
 * Code fixture up to its compact boundary), the agent sending its context
 * after every turn, with a simulated model that answers a summary request
 * with the first 10% of its material. Per loop: the requests whose start is
 * not the previous request's (a prompt cache lost), the agent's input per raw
 * token, the same priced with a prompt cache (the prefix shared with the
 * previous request at 0.1, the rest at 1) plus the summarizer's input, the
 * summarizer's calls per turn, the largest request against the budget, and
 * the probe facts (the fidelity bench's) the last request holds.
 *
 * Two methods on the same stream: precis (`Assembler.assemble(session, {
 * budget })` then `Layout.render`) and the baseline (`internal/rollingSummary.ts`:
 * keep the first events, one rolling summary, the newest events; condense to
 * half the budget when the view passes it).
 *
 * @since 0.1.0
 */
import { Assembler, Layout } from "@precis/context"
import { ConversationTurn, TokenEstimator, Transcript } from "@precis/core"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Probe from "./fidelity/Probe.js"
import * as Sessions from "./fidelity/Sessions.js"
import * as child from "./internal/child.js"
import * as Requests from "./internal/requests.js"
import * as RollingSummary from "./internal/rollingSummary.js"
import * as simulated from "./internal/simulated.js"
import * as stack from "./internal/stack.js"
import { figure, type Figure } from "./Results.js"
import * as Synthetic from "./Synthetic.js"

/**
 * The share of its material the simulated model answers with.
 *
 * @since 0.1.0
 */
export const materialShare = 0.1

/**
 * The name of the generated session ({@link Synthetic.codingSession}).
 *
 * @since 0.1.0
 */
export const generated = "generated coding session"

/**
 * One loop's settings: the session (the {@link generated} one or a fidelity
 * session's name), the method, and the budget.
 *
 * @since 0.1.0
 */
export interface Args {
  readonly session: string
  readonly method: "precis" | "baseline"
  readonly budget: number
  /** The generated session's size. */
  readonly sessionTokens: number
  /** precis's assembly options besides the budget (the header's placement, the low-water mark, ...). */
  readonly assemble?: Omit<Assembler.AssembleOptions, "budget"> | undefined
}

/**
 * One loop's totals.
 *
 * @since 0.1.0
 */
export interface Result extends Requests.Totals {
  readonly args: Args
  readonly turns: number
  readonly rawTokens: number
  readonly summarizerCalls: number
  readonly summarizerTokens: number
  /** Turns after which the summarizer was called (a compaction, for either method). */
  readonly compactions: number
  /** Assemblies after the first that rebuilt the context (precis's `Assembled.rebuilt`). */
  readonly rebuilds: number
  readonly probes: { readonly kept: number; readonly total: number; readonly missed: ReadonlyArray<string> } | undefined
  /** Whether every request kept each tool result right after its call (precis). */
  readonly pairsWhole: boolean
  readonly wallMs: number
}

/**
 * The probes of the generated session: each task as the user asked it
 * ("Please fix `X` in F"), read from its requests.
 *
 * @since 0.1.0
 */
export const generatedProbes = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>): ReadonlyArray<Probe.Probe> =>
  turns.flatMap((turn, i) => {
    const task = turn.role === "user" ? /Please fix `[^`]+` in \S+?(?=\.?$)/.exec(turn.content)?.[0] : undefined
    return task === undefined ? [] : [{ id: `task-${i}`, category: "task" as const, description: task, needles: [task] as const }]
  })

/**
 * The suffix of a session kept aside: a fixture's span after its compact
 * boundary, which no default was tuned on (it has no probes: Claude Code's
 * reference covers the span before).
 *
 * @since 0.1.0
 */
export const keptAside = ", after its compact boundary (kept aside)"

/**
 * A loop's session: its turns and its probes.
 *
 * @since 0.1.0
 */
export const session = (args: Pick<Args, "session" | "sessionTokens">): {
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
  readonly probes: ReadonlyArray<Probe.Probe>
} => {
  if (args.session === generated) {
    const turns = Synthetic.codingSession(args.sessionTokens, { seed: 21 })
    return { turns, probes: generatedProbes(turns) }
  }
  const name = args.session.endsWith(keptAside) ? args.session.slice(0, -keptAside.length) : args.session
  const found = Sessions.all.find((s) => s.name === name)
  if (found === undefined) throw new Error(`unknown session ${args.session}`)
  return name === args.session
    ? { turns: Sessions.span(found.file).turns, probes: found.probes }
    : { turns: Sessions.continuation(found.file), probes: [] }
}

// Whether every tool result of `sent` follows the turn it followed in the session.
const pairsKept = (
  sent: ReadonlyArray<ConversationTurn.ConversationTurn>,
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  position: ReadonlyMap<string, number>
): boolean =>
  sent.every((t, k) => {
    if (!ConversationTurn.isToolResult(t)) return true
    const i = position.get(t.id ?? "") ?? 0
    return i === 0 || (k > 0 && sent[k - 1]!.id === turns[i - 1]!.id)
  })

// The requests precis sends: `assemble` after every turn, rendered.
const precisLoop = (
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  options: Assembler.AssembleOptions,
  onRequest: (request: Requests.Request, called: boolean) => void,
  calls: () => number
) => {
  const position = new Map(turns.map((turn, i) => [turn.id ?? "", i]))
  return Effect.gen(function*() {
    const store = yield* Store.all
    const assembler = yield* Assembler.make
    let pairsWhole = true
    let rebuilds = -1
    let last = ""
    for (const turn of turns) {
      const before = calls()
      yield* store.appendTurns("agent", [turn])
      const assembled = yield* assembler.assemble("agent", options)
      last = Layout.render(assembled)
      // The header placed at the end is the volatile tail: the next request need not start with it.
      onRequest({ text: last, stable: Layout.renderStable(assembled).length }, calls() > before)
      pairsWhole &&= pairsKept(assembled.turns, turns, position)
      if (assembled.rebuilt) rebuilds++
    }
    return { pairsWhole, last, rebuilds }
  })
}

// The requests the baseline sends: its view after every turn.
const baselineLoop = (
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  budget: number,
  provider: simulated.Simulated,
  onRequest: (request: Requests.Request, called: boolean) => void
) =>
  Effect.gen(function*() {
    const condenser = RollingSummary.make(provider.service, { ...RollingSummary.defaults, budget })
    let last = ""
    for (const turn of turns) {
      const before = provider.counters.calls
      yield* condenser.push(turn)
      last = condenser.view()
      onRequest({ text: last, stable: last.length }, provider.counters.calls > before)
    }
    return { pairsWhole: true, last, rebuilds: condenser.condensations() }
  })

/**
 * Runs one loop (in this process).
 *
 * @since 0.1.0
 */
export const measureOne = async (args: Args): Promise<Result> => (await measureWithLast(args)).result

/**
 * Runs one loop (in this process): its totals and the last request sent, to read.
 *
 * @since 0.1.0
 */
export const measureWithLast = async (args: Args): Promise<{ readonly result: Result; readonly last: string }> => {
  const { probes, turns } = session(args)
  const sim = simulated.make({ latencyMs: 0, materialShare })
  const requests = Requests.tally()
  let compactions = 0
  const onRequest = (request: Requests.Request, called: boolean) => {
    requests.add(request)
    if (called) compactions++
  }
  const t0 = performance.now()
  const out = args.method === "precis"
    ? await stack.runWithStack(sim.service, {}, precisLoop(turns, { ...args.assemble, budget: args.budget }, onRequest, () => sim.counters.calls))
    : await Effect.runPromise(baselineLoop(turns, args.budget, sim, onRequest))
  const score = probes.length === 0 ? undefined : Probe.score(probes, out.last)
  const result: Result = {
    args,
    turns: turns.length,
    rawTokens: turns.reduce((sum, t) => sum + TokenEstimator.approximate.estimate(Transcript.formatTurn(t)), 0),
    ...requests.totals(),
    summarizerCalls: sim.counters.calls,
    summarizerTokens: sim.counters.inputTokens,
    compactions,
    rebuilds: out.rebuilds,
    probes: score === undefined ? undefined : { kept: score.kept.length, total: probes.length, missed: score.missed },
    pairsWhole: out.pairsWhole,
    wallMs: performance.now() - t0
  }
  return { result, last: out.last }
}

/**
 * The sessions of a run: the generated one, then the fixtures present, then
 * each fixture's span after its compact boundary ({@link keptAside}).
 *
 * @since 0.1.0
 */
export const sessions = (): ReadonlyArray<string> => {
  const fixtures = Sessions.available().filter((s) => s.reference !== undefined).map((s) => s.name)
  return [generated, ...fixtures, ...fixtures.map((name) => `${name}${keptAside}`)]
}

/**
 * What an agent pays per raw token: its input priced with a prompt cache,
 * plus the summarizer's input.
 *
 * @since 0.1.0
 */
export const costPerRawToken = (r: Result): number => (Requests.priced(r) + r.summarizerTokens) / r.rawTokens

/**
 * The figures of one session: precis's loop against the baseline's.
 *
 * @since 0.1.0
 */
export const figures = (precis: Result, baseline: Result): ReadonlyArray<Figure> => {
  const label = `${precis.args.session}, ${precis.rawTokens} raw tokens, ${precis.turns} turns, budget ${
    precis.args.budget
  }, ${variantName(precis.args)}`
  const section = "agent loop: what an agent pays"
  const out: Array<Figure> = [
    figure({
      section,
      name: `${label}: turns after which the start of the request changed`,
      value: precis.prefixChanges,
      unit: "turns",
      baseline: { name: "compactions + 1", value: precis.compactions + 1, unit: "turns" },
      target: { op: "<=", value: 1, on: "ratio" },
      note: `rebuilds ${precis.rebuilds}; baseline condenser ${baseline.prefixChanges} (${baseline.compactions} condensations)`
    }),
    figure({
      section,
      name: `${label}: agent input per raw token`,
      value: precis.tokens / precis.rawTokens,
      unit: "tokens/token",
      baseline: { name: "baseline condenser", value: baseline.tokens / baseline.rawTokens, unit: "tokens/token" }
    }),
    figure({
      section,
      name: `${label}: agent input priced with a prompt cache, plus the summarizer's, per raw token`,
      value: costPerRawToken(precis),
      unit: "tokens/token",
      baseline: { name: "baseline condenser", value: costPerRawToken(baseline), unit: "tokens/token" },
      target: { op: "<=", value: 0.8, on: "ratio" },
      note: `summarizer input ${precis.summarizerTokens} vs ${baseline.summarizerTokens} tokens`
    }),
    figure({
      section,
      name: `${label}: summarizer calls per turn`,
      value: precis.summarizerCalls / precis.turns,
      unit: "calls/turn",
      target: { op: "<=", value: 0.03, on: "value" },
      note: `baseline condenser ${(baseline.summarizerCalls / baseline.turns).toFixed(3)}`
    }),
    figure({
      section,
      name: `${label}: largest request`,
      value: precis.maxTokens,
      unit: "tokens",
      baseline: { name: "budget", value: precis.args.budget, unit: "tokens" },
      target: { op: "<=", value: 1, on: "ratio" },
      note: `baseline condenser ${baseline.maxTokens}; tool calls kept with their results: ${precis.pairsWhole}`
    })
  ]
  if (precis.probes !== undefined && baseline.probes !== undefined) {
    out.push(figure({
      section,
      name: `${label}: probe facts in the last request`,
      value: precis.probes.kept,
      unit: "probes",
      baseline: { name: "baseline condenser", value: baseline.probes.kept, unit: "probes" },
      target: { op: ">=", value: 1.25, on: "ratio" },
      note: `of ${precis.probes.total}`
    }))
  }
  return out
}

/**
 * precis's variants measured: the defaults (the header in the frame), the
 * header at the end, and the hysteresis' marks moved one way each (from
 * which the defaults were chosen: see BENCHMARKS.md).
 *
 * @since 0.1.0
 */
export const variants: ReadonlyArray<Omit<Assembler.AssembleOptions, "budget">> = [
  {},
  { statePlacement: "end" },
  { lowWater: 0.6 },
  { highWater: 0.85 },
  { highWater: 1 }
]

const variantName = (args: Args): string => {
  const { highWater, lowWater, statePlacement } = args.assemble ?? {}
  return [
    `precis, header ${statePlacement === "end" ? "at the end" : "in the frame"}`,
    ...(lowWater === undefined ? [] : [`lowWater ${lowWater}`]),
    ...(highWater === undefined ? [] : [`highWater ${highWater}`])
  ].join(", ")
}

/**
 * The section's loops, each in a child process: every session, precis (each variant) and the baseline.
 *
 * @since 0.1.0
 */
export const run = async (options: { readonly quick: boolean }): Promise<{
  figures: ReadonlyArray<Figure>
  results: ReadonlyArray<Result>
}> => {
  const results: Array<Result> = []
  const out: Array<Figure> = []
  for (const name of sessions()) {
    const base = { session: name, budget: 32_000, sessionTokens: options.quick ? 60_000 : 200_000 }
    const baseline = await child.run<Result>("pays", { ...base, method: "baseline" })
    results.push(baseline)
    for (const assemble of variants) {
      const precis = await child.run<Result>("pays", { ...base, method: "precis", assemble })
      results.push(precis)
      out.push(...figures(precis, baseline))
    }
  }
  return { figures: out, results }
}
