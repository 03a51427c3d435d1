/**
 * Section 2, latency bound under faults: one Summarizer call against a
 * provider that never answers, with short tier timeouts, against the sum of
 * the tier timeouts (the two LLM tiers; the fallback needs no model).
 *
 * @since 0.1.0
 */
import { Provider, Summarizer } from "@precis/core"
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
  /** Deadline of each LLM tier, in milliseconds. Default 50. */
  readonly timeoutMs?: number | undefined
}

const neverAnswers = Provider.Provider.of({ name: "never", chat: () => Effect.never })

/**
 * Wall times (ms) of sequential calls, each ending in the fallback tier.
 *
 * @since 0.1.0
 */
export const measure = (options: Options): Promise<{
  readonly wallMs: ReadonlyArray<number>
  readonly plainMs: ReadonlyArray<number>
  readonly tiers: ReadonlyArray<string>
}> => {
  const timeoutMs = options.timeoutMs ?? 50
  const calls = options.quick ? 10 : 40
  const turns = Synthetic.session(2000, { seed: 3 })
  return Effect.runPromise(Effect.gen(function*() {
    const summarizer = yield* Summarizer.make({ timeout: `${timeoutMs} millis` }).pipe(
      Effect.provideService(Provider.Provider, neverAnswers)
    )
    const baseline = plain.make({ chat: () => new Promise(() => {}) }, { timeoutMs })
    const wallMs: Array<number> = []
    const plainMs: Array<number> = []
    const tiers: Array<string> = []
    // One warm-up call, not recorded.
    yield* summarizer.summarizeTurns(turns)
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now()
      const summary = yield* summarizer.summarizeTurns(turns)
      wallMs.push(performance.now() - t0)
      tiers.push(summary.tier)
      // The same call written with plain promises, interleaved: what the timers
      // alone cost on this machine at this moment.
      const t1 = performance.now()
      yield* Effect.promise(() => baseline.summarizeTurns(turns))
      plainMs.push(performance.now() - t1)
    }
    return { wallMs, plainMs, tiers }
  }))
}

/**
 * The section's figures: median and worst wall time per call against the sum
 * of the tier timeouts.
 *
 * @since 0.1.0
 */
export const run = async (options: Options): Promise<ReadonlyArray<Figure>> => {
  const timeoutMs = options.timeoutMs ?? 50
  const { plainMs, tiers, wallMs } = await measure(options)
  const bound = { name: `sum of tier timeouts (2 × ${timeoutMs} ms)`, value: 2 * timeoutMs, unit: "ms" }
  const fallbacks = tiers.filter((t) => t === "fallback").length
  return [
    figure({
      section: "faults",
      name: "never-answering provider: wall time per call, median",
      value: Stats.median(wallMs),
      unit: "ms",
      baseline: bound,
      target: { op: "<=", value: 1.05, on: "ratio" },
      note: `${wallMs.length} sequential calls, ${fallbacks} ended in the fallback tier`
    }),
    figure({
      section: "faults",
      name: "never-answering provider: wall time per call, worst",
      value: Stats.max(wallMs),
      unit: "ms",
      baseline: bound,
      note: `p90 ${Stats.quantile(wallMs, 0.9).toFixed(1)} ms`
    }),
    figure({
      section: "faults",
      name: "never-answering provider: Summarizer vs plain promises, median",
      value: Stats.median(wallMs),
      unit: "ms",
      baseline: { name: "plain async/await tiers (Promise.race timeouts)", value: Stats.median(plainMs), unit: "ms" },
      note: "interleaved calls: the timer delay of the machine is in both"
    })
  ]
}
