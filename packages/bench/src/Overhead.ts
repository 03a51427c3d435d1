/**
 * Section 1, escalation overhead: Summarizer calls against an instantaneous
 * provider, looped inside one running fiber, against the same three tiers
 * written with plain async/await, for a tiny input and 80 KB / 800 KB
 * transcripts.
 *
 * @since 0.1.0
 */
import { type ConversationTurn, Provider, Summarizer, Transcript } from "@precis/core"
import * as Effect from "effect/Effect"
import * as plain from "./internal/plainSummarizer.js"
import { figure, type Figure } from "./Results.js"
import * as Stats from "./Stats.js"
import * as Synthetic from "./Synthetic.js"

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

interface Case {
  readonly name: string
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
  readonly iterations: number
}

type Scenario = "normal" | "escalate"

const SHORT_REPLY = "Fixed the login test."

// The instantaneous providers: a short reply at once (kept at tier 1), or a
// blank reply at once (both LLM tiers rejected, so the call runs all three).
const replyFor = (scenario: Scenario) => scenario === "normal" ? SHORT_REPLY : "   "

const effectProvider = (scenario: Scenario) => {
  const response = { text: replyFor(scenario) }
  return Provider.Provider.of({ name: "instant", chat: () => Effect.succeed(response) })
}

const plainProvider = (scenario: Scenario): plain.PlainProvider => {
  const response = { text: replyFor(scenario) }
  return { chat: () => Promise.resolve(response) }
}

const cases = (quick: boolean): ReadonlyArray<Case> => [
  {
    name: "tiny",
    turns: Synthetic.session(60, { seed: 7 }),
    iterations: quick ? 1000 : 4000
  },
  { name: "80 KB", turns: Synthetic.session(20_000, { seed: 8 }), iterations: quick ? 40 : 150 },
  { name: "800 KB", turns: Synthetic.session(200_000, { seed: 9 }), iterations: quick ? 6 : 20 }
]

/**
 * Per-call times of one case and scenario: medians over interleaved rounds.
 *
 * @since 0.1.0
 */
export interface Measurement {
  readonly case: string
  readonly bytes: number
  readonly scenario: Scenario
  readonly effectMicros: number
  readonly plainMicros: number
  readonly overheadMicros: number
  readonly ratio: number
}

/**
 * Runs every case in one `Effect.runPromise`: rounds of a batch of Summarizer
 * calls then a batch of plain calls, the first round a warm-up.
 *
 * @since 0.1.0
 */
export const measure = (options: Options): Promise<ReadonlyArray<Measurement>> => {
  const rounds = options.quick ? 5 : 11
  const program = Effect.gen(function*() {
    const results: Array<Measurement> = []
    for (const scenario of ["normal", "escalate"] as const) {
      const summarizer = yield* Summarizer.make().pipe(Effect.provideService(Provider.Provider, effectProvider(scenario)))
      const baseline = plain.make(plainProvider(scenario))
      for (const c of cases(options.quick)) {
        const n = c.iterations
        const effectLoop = Effect.gen(function*() {
          for (let i = 0; i < n; i++) yield* summarizer.summarizeTurns(c.turns)
        })
        const plainLoop = async () => {
          for (let i = 0; i < n; i++) await baseline.summarizeTurns(c.turns)
        }
        const effectSamples: Array<number> = []
        const plainSamples: Array<number> = []
        for (let round = 0; round <= rounds; round++) {
          const t0 = performance.now()
          yield* effectLoop
          const t1 = performance.now()
          yield* Effect.promise(plainLoop)
          const t2 = performance.now()
          if (round > 0) {
            effectSamples.push(((t1 - t0) * 1000) / n)
            plainSamples.push(((t2 - t1) * 1000) / n)
          }
        }
        const effectMicros = Stats.median(effectSamples)
        const plainMicros = Stats.median(plainSamples)
        results.push({
          case: c.name,
          bytes: Buffer.byteLength(Transcript.formatTurns(c.turns)),
          scenario,
          effectMicros,
          plainMicros,
          overheadMicros: effectMicros - plainMicros,
          ratio: effectMicros / plainMicros
        })
      }
    }
    // The reference: the per-tier deadline alone, Effect.timeout around an
    // instantaneous effect against a Promise.race timeout.
    const n = options.quick ? 2000 : 8000
    const timeoutSamples: Array<number> = []
    const raceSamples: Array<number> = []
    const instant = Effect.succeed(SHORT_REPLY)
    for (let round = 0; round <= rounds; round++) {
      const t0 = performance.now()
      for (let i = 0; i < n; i++) yield* Effect.timeout(instant, Summarizer.defaults.timeout)
      const t1 = performance.now()
      yield* Effect.promise(async () => {
        for (let i = 0; i < n; i++) await plain.withTimeout(Promise.resolve(SHORT_REPLY), 120_000)
      })
      const t2 = performance.now()
      if (round > 0) {
        timeoutSamples.push(((t1 - t0) * 1000) / n)
        raceSamples.push(((t2 - t1) * 1000) / n)
      }
    }
    const effectMicros = Stats.median(timeoutSamples)
    const plainMicros = Stats.median(raceSamples)
    results.push({
      case: "Effect.timeout alone",
      bytes: 0,
      scenario: "normal",
      effectMicros,
      plainMicros,
      overheadMicros: effectMicros - plainMicros,
      ratio: effectMicros / plainMicros
    })
    return results
  })
  return Effect.runPromise(program)
}

/**
 * The section's figures: µs per call, its ratio to the plain implementation,
 * and the overhead per call against the 60 µs target.
 *
 * @since 0.1.0
 */
export const run = async (options: Options): Promise<ReadonlyArray<Figure>> => {
  const ms = await measure(options)
  const reference = ms.find((m) => m.bytes === 0)
  const tiny = ms.find((m) => m.case === "tiny" && m.scenario === "normal")
  const beyond = reference === undefined || tiny === undefined ? [] : [figure({
    section: "overhead",
    name: "tiny, tier 1 accepted: overhead beyond one Effect.timeout",
    value: tiny.overheadMicros - reference.overheadMicros,
    unit: "µs",
    note: "the Summarizer's own bookkeeping (span, Ref, metric, escalation chain), same run"
  })]
  return [...beyond, ...ms.flatMap((m) => {
    if (m.bytes === 0) {
      return [figure({
        section: "overhead",
        name: "reference: Effect.timeout around an instantaneous effect",
        value: m.effectMicros,
        unit: "µs",
        baseline: { name: "Promise.race with setTimeout", value: m.plainMicros, unit: "µs" },
        note: "the per-tier deadline alone, which every LLM tier pays"
      })]
    }
    const label = `${m.case}, ${m.scenario === "normal" ? "tier 1 accepted" : "all 3 tiers"}`
    return [
      figure({
        section: "overhead",
        name: `${label}: Summarizer per call`,
        value: m.effectMicros,
        unit: "µs",
        baseline: { name: "plain async/await", value: m.plainMicros, unit: "µs" },
        note: `${m.bytes} bytes of transcript`
      }),
      figure({
        section: "overhead",
        name: `${label}: overhead per call`,
        value: m.overheadMicros,
        unit: "µs",
        target: { op: "<=", value: 60, on: "value" },
        note: "Summarizer minus plain, same run"
      })
    ]
  })]
}
