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
 * Four methods on the same stream: precis (`Assembler.assemble(session, {
 * budget })` then `Layout.render`), the OpenHands SDK's `LLMSummarizingCondenser`
 * ported (`internal/openHands.ts`) in its default config (`max_size=80,
 * keep_first=4`, the agent's context window set to the budget) and its token
 * route (`max_tokens` = the budget too), and the in-repo baseline
 * (`internal/rollingSummary.ts`: keep the first events, one rolling summary,
 * the newest events; condense to half the budget when the view passes it).
 *
 * @since 0.1.0
 */
import type { AssemblerConfig } from "@precis/context"
import { type ConversationTurn, TokenEstimator, Transcript } from "@precis/core"
import * as Probe from "./fidelity/Probe.js"
import * as Sessions from "./fidelity/Sessions.js"
import * as child from "./internal/child.js"
import * as Loops from "./internal/loops.js"
import * as Requests from "./internal/requests.js"
import * as simulated from "./internal/simulated.js"
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
 * The methods measured: precis, the OpenHands port in its default config and
 * its token route, and the in-repo baseline.
 *
 * @since 0.1.0
 */
export type Method = Loops.Method

/**
 * One loop's settings: the session (the {@link generated} one or a fidelity
 * session's name), the method, and the budget.
 *
 * @since 0.1.0
 */
export interface Args {
  readonly session: string
  readonly method: Method
  readonly budget: number
  /** The generated session's size. */
  readonly sessionTokens: number
  /** precis's assembly options besides the budget (the header's placement, the low-water mark, ...). */
  readonly assemble?: AssemblerConfig.Config | undefined
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
  /** The tokens of the turn labels (`[time] role: `) in the last request. */
  readonly labelTokens: number
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

/**
 * The tokens of the turn labels of `text`: the `[time] role: ` head of each
 * line that opens a turn (`Transcript.turnHead`).
 *
 * @since 0.1.0
 */
export const labelTokens = (text: string): number =>
  text.split("\n").reduce((sum, line) => {
    const turn = Transcript.turnHead(line)
    return turn === undefined ? sum : sum + TokenEstimator.approximate.estimate(line.slice(0, line.length - turn.content.length))
  }, 0)

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
  const out = await Loops.run(args, turns, sim, onRequest)
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
    labelTokens: labelTokens(out.last),
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
 * The cheaper (by {@link costPerRawToken}) of the OpenHands port's loops.
 *
 * @since 0.1.0
 */
export const cheaper = (peers: ReadonlyArray<Result>): Result =>
  peers.reduce((a, b) => (costPerRawToken(b) < costPerRawToken(a) ? b : a))

const section = "agent loop: what an agent pays"

const methodName = (method: Method): string =>
  method === "openhands" ? "OpenHands port (max_size 80, keep_first 4)" : "OpenHands port (max_tokens = budget)"

/**
 * The figures of one of the OpenHands port's loops: what it costs, its
 * summarizer's input per raw token, its largest request and the probe facts
 * its last request holds.
 *
 * @since 0.1.0
 */
export const peerFigures = (peer: Result): ReadonlyArray<Figure> => {
  const label = `${peer.args.session}, ${peer.rawTokens} raw tokens, ${peer.turns} turns, budget ${peer.args.budget}, ${
    methodName(peer.args.method)
  }`
  return [
    figure({
      section,
      name: `${label}: agent input priced with a prompt cache, plus the summarizer's, per raw token`,
      value: costPerRawToken(peer),
      unit: "tokens/token",
      note: `summarizer input ${(peer.summarizerTokens / peer.rawTokens).toFixed(2)} per raw token, ${peer.summarizerCalls} calls; ` +
        `prefix changes ${peer.prefixChanges}; largest request ${peer.maxTokens}` +
        (peer.probes === undefined ? "" : `; probe facts ${peer.probes.kept} of ${peer.probes.total}`)
    })
  ]
}

/**
 * The figures of one session: precis's loop against the OpenHands port's
 * cheaper config (`peer`) and the baseline's.
 *
 * @since 0.1.0
 */
export const figures = (precis: Result, baseline: Result, peer: Result): ReadonlyArray<Figure> => {
  const label = `${precis.args.session}, ${precis.rawTokens} raw tokens, ${precis.turns} turns, budget ${
    precis.args.budget
  }, ${variantName(precis.args)}`
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
      name: `${label}: agent input priced with a prompt cache, plus the summarizer's, per raw token, against the OpenHands port`,
      value: costPerRawToken(precis),
      unit: "tokens/token",
      baseline: { name: methodName(peer.args.method), value: costPerRawToken(peer), unit: "tokens/token" },
      target: { op: "<=", value: 0.8, on: "ratio" },
      note: `summarizer input ${precis.summarizerTokens} vs ${peer.summarizerTokens} tokens`
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
  if (precis.probes !== undefined && peer.probes !== undefined) {
    out.push(figure({
      section,
      name: `${label}: probe facts in the last request, against the OpenHands port`,
      value: precis.probes.kept,
      unit: "probes",
      baseline: { name: methodName(peer.args.method), value: peer.probes.kept, unit: "probes" },
      target: { op: ">=", value: 1, on: "ratio" },
      note: `of ${precis.probes.total}`
    }))
  }
  return out
}

/**
 * precis's variants measured: the defaults (the header in the frame), the
 * header at the end, the marks before 2026-12 (0.8 / 0.5) and the
 * hysteresis' marks moved both ways (from which the defaults were chosen:
 * see BENCHMARKS.md).
 *
 * @since 0.1.0
 */
export const variants: ReadonlyArray<AssemblerConfig.Config> = [
  {},
  { statePlacement: "end" },
  { highWater: 0.8, lowWater: 0.5 },
  { highWater: 0.4, lowWater: 0.2 },
  { highWater: 0.6, lowWater: 0.3 }
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
 * The section's loops, each in a child process: every session, the OpenHands
 * port (both configs), the baseline and precis (each variant).
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
    const peers = [
      await child.run<Result>("pays", { ...base, method: "openhands" }),
      await child.run<Result>("pays", { ...base, method: "openhands-tokens" })
    ]
    const baseline = await child.run<Result>("pays", { ...base, method: "baseline" })
    results.push(...peers, baseline)
    out.push(...peers.flatMap(peerFigures))
    for (const assemble of variants) {
      const precis = await child.run<Result>("pays", { ...base, method: "precis", assemble })
      results.push(precis)
      out.push(...figures(precis, baseline, cheaper(peers)))
    }
  }
  return { figures: out, results }
}
