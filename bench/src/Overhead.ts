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
  { name: "tiny", turns: Synthetic.session(60, { seed: 7 }), iterations: quick ? 1000 : 2500 },
  { name: "80 KB", turns: Synthetic.session(20_000, { seed: 8 }), iterations: quick ? 40 : 100 },
  { name: "800 KB", turns: Synthetic.session(200_000, { seed: 9 }), iterations: quick ? 6 : 12 }
]

/**
 * Per-call costs of one case and scenario, medians over interleaved rounds:
 * CPU time of this process (user + system), which other processes on a
 * shared machine disturb much less than wall time, and wall time.
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
  readonly effectWallMicros: number
  readonly plainWallMicros: number
}

const REFERENCE = "Effect.timeout alone"

// CPU microseconds and wall milliseconds since the start.
const clock = () => ({ cpu: process.cpuUsage(), wall: performance.now() })
const since = (start: ReturnType<typeof clock>) => {
  const cpu = process.cpuUsage(start.cpu)
  return { cpuMicros: cpu.user + cpu.system, wallMicros: (performance.now() - start.wall) * 1000 }
}

// Rounds of `a` then `b` (each `n` times), the first a warm-up: medians per call.
const interleave = <E>(
  rounds: number,
  n: number,
  a: Effect.Effect<void, E>,
  b: Effect.Effect<void>
): Effect.Effect<{ a: { cpu: number; wall: number }; b: { cpu: number; wall: number } }, E> =>
  Effect.gen(function*() {
    const samples = { aCpu: [] as Array<number>, aWall: [] as Array<number>, bCpu: [] as Array<number>, bWall: [] as Array<number> }
    for (let round = 0; round <= rounds; round++) {
      const t0 = clock()
      yield* a
      const da = since(t0)
      const t1 = clock()
      yield* b
      const db = since(t1)
      if (round > 0) {
        samples.aCpu.push(da.cpuMicros / n)
        samples.aWall.push(da.wallMicros / n)
        samples.bCpu.push(db.cpuMicros / n)
        samples.bWall.push(db.wallMicros / n)
      }
    }
    return {
      a: { cpu: Stats.median(samples.aCpu), wall: Stats.median(samples.aWall) },
      b: { cpu: Stats.median(samples.bCpu), wall: Stats.median(samples.bWall) }
    }
  })

const measurement = (
  name: string,
  bytes: number,
  scenario: Scenario,
  r: { a: { cpu: number; wall: number }; b: { cpu: number; wall: number } }
): Measurement => ({
  case: name,
  bytes,
  scenario,
  effectMicros: r.a.cpu,
  plainMicros: r.b.cpu,
  overheadMicros: r.a.cpu - r.b.cpu,
  ratio: r.a.cpu / r.b.cpu,
  effectWallMicros: r.a.wall,
  plainWallMicros: r.b.wall
})

/**
 * Runs every case in one `Effect.runPromise`: rounds of a batch of Summarizer
 * calls then a batch of plain calls, the first round a warm-up; then the
 * reference, `Effect.timeout` alone against a `Promise.race` timeout.
 *
 * @since 0.1.0
 */
export const measure = (options: Options): Promise<ReadonlyArray<Measurement>> => {
  const rounds = options.quick ? 4 : 7
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
        const plainLoop = Effect.promise(async () => {
          for (let i = 0; i < n; i++) await baseline.summarizeTurns(c.turns)
        })
        const bytes = Buffer.byteLength(Transcript.formatTurns(c.turns))
        results.push(measurement(c.name, bytes, scenario, yield* interleave(rounds, n, effectLoop, plainLoop)))
      }
    }
    const n = options.quick ? 2000 : 5000
    const instant = Effect.succeed(SHORT_REPLY)
    const timeoutLoop = Effect.gen(function*() {
      for (let i = 0; i < n; i++) yield* Effect.timeout(instant, Summarizer.defaults.timeout)
    })
    const raceLoop = Effect.promise(async () => {
      for (let i = 0; i < n; i++) await plain.withTimeout(Promise.resolve(SHORT_REPLY), 120_000)
    })
    results.push(measurement(REFERENCE, 0, "normal", yield* interleave(rounds, n, timeoutLoop, raceLoop)))
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
  const reference = ms.find((m) => m.case === REFERENCE)
  const tiny = ms.find((m) => m.case === "tiny" && m.scenario === "normal")
  const beyond = reference === undefined || tiny === undefined ? [] : [figure({
    section: "overhead",
    name: "tiny, tier 1 accepted: overhead beyond one Effect.timeout",
    value: tiny.overheadMicros - reference.overheadMicros,
    unit: "µs",
    note: "the Summarizer's own bookkeeping (span, Ref, metric, escalation chain), same run"
  })]
  return [...beyond, ...ms.flatMap((m) => {
    if (m.case === REFERENCE) {
      return [figure({
        section: "overhead",
        name: "reference: Effect.timeout around an instantaneous effect",
        value: m.effectMicros,
        unit: "µs",
        baseline: { name: "Promise.race with setTimeout", value: m.plainMicros, unit: "µs" },
        note: `CPU time; wall ${m.effectWallMicros.toFixed(1)} vs ${m.plainWallMicros.toFixed(1)} µs. The per-tier deadline alone, which every LLM tier pays`
      })]
    }
    const label = `${m.case}, ${m.scenario === "normal" ? "tier 1 accepted" : "all 3 tiers"}`
    return [
      figure({
        section: "overhead",
        name: `${label}: Summarizer CPU time per call`,
        value: m.effectMicros,
        unit: "µs",
        baseline: { name: "plain async/await", value: m.plainMicros, unit: "µs" },
        note: `${m.bytes} bytes of transcript; wall ${m.effectWallMicros.toFixed(1)} vs ${m.plainWallMicros.toFixed(1)} µs`
      }),
      figure({
        section: "overhead",
        name: `${label}: overhead per call`,
        value: m.overheadMicros,
        unit: "µs",
        target: { op: "<=", value: 60, on: "value" },
        note: "Summarizer minus plain CPU time per call, same run"
      })
    ]
  })]
}
