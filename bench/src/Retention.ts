/**
 * Section 5, fact retention: the share of an input's facts that the extractive
 * summary keeps at 5%, 10% and 20% of the input's tokens, against head
 * truncation (the fallback) and the greedy whole-line oracle (an upper bound).
 *
 * @since 0.1.0
 */
import { type SummaryTask, TokenEstimator, Transcript } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import * as Facts from "./Facts.js"
import type * as Inputs from "./Inputs.js"
import * as Oracle from "./Oracle.js"
import { figure, type Figure } from "./Results.js"
import * as Stats from "./Stats.js"

/**
 * The budgets, as fractions of the input's tokens.
 *
 * @since 0.1.0
 */
export const budgets: ReadonlyArray<number> = [0.05, 0.1, 0.2]

/**
 * The retention of one input at one budget.
 *
 * @since 0.1.0
 */
export interface Row {
  readonly input: string
  readonly budget: number
  readonly budgetTokens: number
  readonly facts: number
  readonly extractive: number
  readonly head: number
  readonly oracle: number
  readonly extractiveTokens: number
  /** The shares over the facts other than numbers (most numbers are line numbers, sizes and times of tool output). */
  readonly withoutNumbers: { readonly facts: number; readonly extractive: number; readonly head: number; readonly oracle: number }
  /** The same shares per kind of fact. */
  readonly byKind: Partial<Record<Facts.Kind, { readonly facts: number; readonly extractive: number; readonly head: number; readonly oracle: number }>>
}

/**
 * Measures the material of `turns` (`Transcript.formatTurns`) at every budget.
 *
 * @since 0.1.0
 */
export const measure = (name: string, turns: ReadonlyArray<SummaryTask.Turn>): ReadonlyArray<Row> => {
  const estimator = TokenEstimator.approximate
  const material = Transcript.formatTurns(turns)
  const facts = Facts.extract(material)
  const inputTokens = estimator.estimate(material)
  return budgets.map((budget) => {
    const budgetTokens = Math.max(1, Math.floor(inputTokens * budget))
    const summary = ExtractiveProvider.extract({ kind: "leaf", turns, targetTokens: budgetTokens }, estimator)
    const head = Oracle.head(material, budgetTokens)
    const oracle = Oracle.greedy(material, budgetTokens).text
    const byKind: Row["byKind"] = {}
    for (const kind of new Set(facts.map((f) => f.kind))) {
      const subset = facts.filter((f) => f.kind === kind)
      byKind[kind] = {
        facts: subset.length,
        extractive: Facts.retention(subset, summary),
        head: Facts.retention(subset, head),
        oracle: Facts.retention(subset, oracle)
      }
    }
    const words = facts.filter((f) => f.kind !== "number")
    return {
      input: name,
      budget,
      budgetTokens,
      facts: facts.length,
      extractive: Facts.retention(facts, summary),
      head: Facts.retention(facts, head),
      oracle: Facts.retention(facts, oracle),
      extractiveTokens: estimator.estimate(summary),
      withoutNumbers: {
        facts: words.length,
        extractive: Facts.retention(words, summary),
        head: Facts.retention(words, head),
        oracle: Facts.retention(words, oracle)
      },
      byKind
    }
  })
}

/**
 * The section's figures: per input and budget, the extractive share against
 * the oracle's; the mean over inputs against the oracle and head truncation.
 *
 * @since 0.1.0
 */
export const run = (inputs: ReadonlyArray<Inputs.Input>): { figures: ReadonlyArray<Figure>; rows: ReadonlyArray<Row> } => {
  const rows = inputs.flatMap((input) => measure(input.name, input.turns))
  const figures: Array<Figure> = []
  for (const row of rows) {
    figures.push(figure({
      section: "retention",
      name: `${row.input} @${row.budget * 100}%: extractive fact share`,
      value: row.extractive,
      unit: "share",
      baseline: { name: "greedy oracle", value: row.oracle, unit: "share" },
      ...(row.budget === 0.1 ? { target: { op: ">=", value: 0.9, on: "ratio" } as const } : {}),
      note: `${row.facts} facts; head truncation ${row.head.toFixed(3)}; summary ${row.extractiveTokens}/${row.budgetTokens} tokens`
    }))
  }
  for (const budget of budgets) {
    const at = rows.filter((r) => r.budget === budget)
    if (at.length === 0) continue
    const extractive = Stats.mean(at.map((r) => r.extractive))
    figures.push(figure({
      section: "retention",
      name: `mean over ${at.length} inputs @${budget * 100}%: extractive vs oracle`,
      value: extractive,
      unit: "share",
      baseline: { name: "greedy oracle", value: Stats.mean(at.map((r) => r.oracle)), unit: "share" },
      ...(budget === 0.1 ? { target: { op: ">=", value: 0.9, on: "ratio" } as const } : {})
    }))
    figures.push(figure({
      section: "retention",
      name: `mean over ${at.length} inputs @${budget * 100}%, facts other than numbers: extractive vs oracle`,
      value: Stats.mean(at.map((r) => r.withoutNumbers.extractive)),
      unit: "share",
      baseline: { name: "greedy oracle", value: Stats.mean(at.map((r) => r.withoutNumbers.oracle)), unit: "share" },
      note: `head truncation ${Stats.mean(at.map((r) => r.withoutNumbers.head)).toFixed(3)}`
    }))
    figures.push(figure({
      section: "retention",
      name: `mean over ${at.length} inputs @${budget * 100}%: extractive vs head truncation`,
      value: extractive,
      unit: "share",
      baseline: { name: "head truncation", value: Stats.mean(at.map((r) => r.head)), unit: "share" },
      ...(budget === 0.1 ? { target: { op: ">=", value: 2, on: "ratio" } as const } : {})
    }))
  }
  return { figures, rows }
}
