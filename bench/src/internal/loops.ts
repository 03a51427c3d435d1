/**
 * The agent loops of `AgentPays`: one session streamed turn by turn, a
 * request sent after every turn, by each method measured: precis
 * (`Assembler.assemble` then `Layout.render`), the in-repo baseline
 * (`rollingSummary.ts`) and the OpenHands SDK's condenser (`openHands.ts`).
 */
import { Assembler, type AssemblerConfig, Layout } from "@precis/context"
import { ConversationTurn } from "@precis/core"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as OpenHands from "./openHands.js"
import type * as Requests from "./requests.js"
import * as RollingSummary from "./rollingSummary.js"
import type * as simulated from "./simulated.js"
import * as stack from "./stack.js"

/** The methods a loop runs: precis, the OpenHands port (its default config, its token route), the baseline. */
export type Method = "precis" | "openhands" | "openhands-tokens" | "baseline"

/** What a loop gives back: whether tool pairs stayed whole, the last request, and the rebuilds (or condensations). */
export interface Outcome {
  readonly pairsWhole: boolean
  readonly last: string
  readonly rebuilds: number
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
  budget: number,
  config: AssemblerConfig.Config,
  onRequest: (request: Requests.Request, called: boolean) => void,
  calls: () => number
) => {
  const position = new Map(turns.map((turn, i) => [turn.id ?? "", i]))
  return Effect.gen(function*() {
    const store = yield* Store.all
    const assembler = yield* Assembler.make(config)
    let pairsWhole = true
    let rebuilds = -1
    let last = ""
    for (const turn of turns) {
      const before = calls()
      yield* store.appendTurns("agent", [turn])
      const assembled = yield* assembler.assemble("agent", { budget })
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

// The requests the OpenHands SDK's condenser lets its agent send: its view after every turn.
const openHandsLoop = (
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  options: OpenHands.Options,
  provider: simulated.Simulated,
  onRequest: (request: Requests.Request, called: boolean) => void
) =>
  Effect.gen(function*() {
    const condenser = OpenHands.make(provider.service, options)
    let last = ""
    for (const turn of turns) {
      const before = provider.counters.calls
      yield* condenser.push(turn)
      last = condenser.view()
      onRequest({ text: last, stable: last.length }, provider.counters.calls > before)
    }
    return { pairsWhole: true, last, rebuilds: condenser.condensations() } satisfies Outcome
  })

/**
 * Runs the loop of `args.method` over `turns`, calling `onRequest` with each
 * request sent and whether the summarizer was called before it. The
 * OpenHands port runs with the agent's context window set to the budget
 * (and, for its token route, `max_tokens` too).
 */
export const run = (
  args: { readonly method: Method; readonly budget: number; readonly assemble?: AssemblerConfig.Config | undefined },
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  sim: simulated.Simulated,
  onRequest: (request: Requests.Request, called: boolean) => void
): Promise<Outcome> => {
  switch (args.method) {
    case "precis":
      return stack.runWithStack(
        sim.service,
        {},
        precisLoop(turns, args.budget, args.assemble ?? {}, onRequest, () => sim.counters.calls)
      )
    case "baseline":
      return Effect.runPromise(baselineLoop(turns, args.budget, sim, onRequest))
    case "openhands":
    case "openhands-tokens": {
      const options = {
        ...OpenHands.defaults,
        contextWindow: args.budget,
        maxTokens: args.method === "openhands-tokens" ? args.budget : undefined
      }
      return Effect.runPromise(openHandsLoop(turns, options, sim, onRequest))
    }
  }
}
