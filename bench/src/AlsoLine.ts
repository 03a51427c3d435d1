/**
 * Section `also`, the fact check and its `Also:` line: a scripted model that
 * forgets details (every line naming a path, a code span or an error, and
 * every second line of the rest, so that it shortens any material) writes
 * the summaries of each input, compacted with and without the Also line; the
 * share of the input's facts the summaries keep is measured with this
 * package's own extractor (`Facts`), which is independent of the fact check.
 * Plus the cost of the check (`FactCheck.check`) on each input, in MB/s of
 * material, against the offline extractive summary of the same material
 * measured in the same rounds.
 *
 * @since 0.1.0
 */
import { CompactionManager } from "@precis/compaction"
import { AlsoLine, FactCheck, Provider, type Summary, TokenEstimator, Transcript } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { Store } from "@precis/store"
import { ScriptedProvider } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Facts from "./Facts.js"
import type * as Inputs from "./Inputs.js"
import * as stack from "./internal/stack.js"
import { figure, type Figure } from "./Results.js"
import * as Stats from "./Stats.js"

/**
 * Whether the forgetful model drops a line of its material: every second line
 * (so that its reply is shorter than any material, summaries included), and
 * every line whose content (without its `[time] role:` head) names a path,
 * holds a code span or an error.
 *
 * @since 0.1.0
 */
export const forgets = (line: string, index: number): boolean => {
  if (index % 2 === 1) return true
  const content = Transcript.turnHead(line)?.content ?? line
  // The back quote as an escape (\x60), so that tools reading the source as text see no string open.
  return /\/|\x60|Error\b|Exception\b/.test(content)
}

// The model as a Provider layer (the recorder the scripted layer also holds is not needed).
const forgetful: Layer.Layer<Provider.Provider> = Layer.project(
  ScriptedProvider.dropping(forgets),
  Provider.Provider,
  Provider.Provider,
  (provider) => provider
)

/** The compaction options of the section: every turn summarized, the CLI's leaf chunk for its default budget. */
const options = { freshTailTurns: 0, leafChunkTokens: 2_000 } as const

/**
 * What the summaries of one compaction keep.
 *
 * @since 0.1.0
 */
export interface Kept {
  /** Share of the input's facts found in the leaves. */
  readonly leaves: number
  /** Share found in the top-level (parentless) summaries: what the context holds. */
  readonly top: number
  readonly leafTokens: number
  readonly topTokens: number
  readonly alsoLines: number
  readonly summaries: number
  /** The tiers of the summaries (a fallback truncates, whatever the model wrote). */
  readonly tiers: Summary.TierCounts
}

/**
 * One input's row.
 *
 * @since 0.1.0
 */
export interface Row {
  readonly input: string
  readonly facts: number
  readonly withoutAlso: Kept
  readonly withAlso: Kept
  readonly keys: number
  readonly checkMBps: number
  readonly extractiveMBps: number
}

const keptBy = (facts: ReadonlyArray<Facts.Fact>, alsoLine: boolean, turns: Inputs.Input["turns"]) =>
  stack.runWithStack(
    forgetful,
    { ...options, alsoLine },
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("also", turns)
      const stats = yield* (yield* CompactionManager.CompactionManager).compact("also")
      const all = yield* store.summaries("also")
      const leaves = all.filter((s) => s.depth === 0)
      const top = all.filter((s) => s.parentId === undefined)
      const text = (ss: typeof all) => ss.map((s) => s.content).join("\n\n")
      const tokens = (ss: typeof all) => ss.reduce((n, s) => n + (s.tokenEstimate ?? 0), 0)
      const kept: Kept = {
        leaves: Facts.retention(facts, text(leaves)),
        top: Facts.retention(facts, text(top)),
        leafTokens: tokens(leaves),
        topTokens: tokens(top),
        alsoLines: all.filter((s) => s.content.includes(`\n${AlsoLine.prefix}`)).length,
        summaries: all.length,
        tiers: stats.tiersUsed
      }
      return kept
    })
  )

// MB/s of `f` over `material`, per round; the rounds of the two functions interleave.
const throughput = (material: string, rounds: number, fs: ReadonlyArray<() => unknown>) => {
  const megabytes = Buffer.byteLength(material) / 1e6
  const samples = fs.map(() => [] as Array<number>)
  for (let round = 0; round < rounds; round++) {
    fs.forEach((f, i) => {
      const t0 = performance.now()
      f()
      samples[i]!.push(megabytes / ((performance.now() - t0) / 1000))
    })
  }
  return samples.map(Stats.median)
}

/**
 * Measures one input.
 *
 * @since 0.1.0
 */
export const measure = async (input: Inputs.Input, rounds: number): Promise<Row> => {
  const material = Transcript.formatTurns(input.turns)
  const facts = Facts.extract(material)
  const without = await keptBy(facts, false, input.turns)
  const withAlso = await keptBy(facts, true, input.turns)
  const estimator = TokenEstimator.approximate
  const targetTokens = Math.max(1, Math.floor(estimator.estimate(material) / 10))
  const summary = ExtractiveProvider.extract({ kind: "leaf", turns: input.turns, targetTokens }, estimator)
  const [checkMBps, extractiveMBps] = throughput(material, rounds, [
    () => FactCheck.checkTask({ kind: "leaf", turns: input.turns, targetTokens }, summary),
    () => ExtractiveProvider.extract({ kind: "leaf", turns: input.turns, targetTokens }, estimator)
  ])
  return {
    input: input.name,
    facts: facts.length,
    withoutAlso: without,
    withAlso,
    keys: FactCheck.keysOf({ kind: "leaf", turns: input.turns, targetTokens }).length,
    checkMBps: checkMBps!,
    extractiveMBps: extractiveMBps!
  }
}

/**
 * The section's figures: per input, the facts the leaves and the top-level
 * summaries keep with the Also line against without it, and the check's MB/s
 * against the extractive summary's.
 *
 * @since 0.1.0
 */
export const run = async (
  inputs: ReadonlyArray<Inputs.Input>,
  ctx: { readonly quick: boolean }
): Promise<{ figures: ReadonlyArray<Figure>; rows: ReadonlyArray<Row> }> => {
  const rows: Array<Row> = []
  for (const input of inputs) rows.push(await measure(input, ctx.quick ? 5 : 15))
  const figures: Array<Figure> = []
  for (const row of rows) {
    const tiers = (kept: Kept) => `${kept.tiers.normal}/${kept.tiers.aggressive}/${kept.tiers.fallback}`
    const note = (kept: Kept, other: Kept) =>
      `${row.facts} facts; ${kept.alsoLines} of ${kept.summaries} summaries with an Also line; ` +
      `${kept.leafTokens} leaf tokens (${other.leafTokens} without); tiers n/a/f ${tiers(kept)} (${tiers(other)} without)`
    figures.push(figure({
      section: "also",
      name: `${row.input}: facts kept by the leaves of a forgetful model, with the Also line`,
      value: row.withAlso.leaves,
      unit: "share",
      baseline: { name: "without", value: row.withoutAlso.leaves, unit: "share" },
      target: { op: ">=", value: 1, on: "ratio" },
      note: note(row.withAlso, row.withoutAlso)
    }))
    figures.push(figure({
      section: "also",
      name: `${row.input}: facts kept by the top-level summaries, with the Also line`,
      value: row.withAlso.top,
      unit: "share",
      baseline: { name: "without", value: row.withoutAlso.top, unit: "share" },
      target: { op: ">=", value: 1, on: "ratio" },
      note: `${row.withAlso.topTokens} tokens (${row.withoutAlso.topTokens} without)`
    }))
    figures.push(figure({
      section: "also",
      name: `${row.input}: fact check (keys of the material, checked against a 10% summary)`,
      value: row.checkMBps,
      unit: "MB/s",
      baseline: { name: "extractive summary at 10%", value: row.extractiveMBps, unit: "MB/s" },
      note: `${row.keys} keys`
    }))
  }
  return { figures, rows }
}
