/**
 * The extractive summary: choose segments under a token budget by the new
 * facts they add per character they cost, render them in material order with
 * their turn prefixes and omission marks. The steps, each in its module:
 * read the items (`segments.ts`), drop duplicates (`eligibility.ts`), weigh facts and
 * emphasis (`coverage.ts`), take the reserved shares (`priorities.ts`), choose
 * the rest greedily (`scoring.ts`, `select.ts`), fit the rendered text to the
 * budget (`fit.ts`, `render.ts`).
 *
 * @internal
 */
import { type Provider, SummaryTask, type TokenEstimator } from "@precis/core"
import { budget, defaults, finite, type Options } from "./budget.js"
import { coverage } from "./coverage.js"
import { eligibility, priorKeysOf } from "./eligibility.js"
import { bestCut, type Fitted, fit } from "./fit.js"
import { priorities, takeReserved } from "./priorities.js"
import { chooser } from "./scoring.js"
import { firstRequestGroup, parse } from "./segments.js"

/**
 * The extractive summary of `task` (read from its items) under the budget of `budget.ts`.
 * Deterministic: same task, estimator and options, same text.
 */
export const extract = (
  task: Provider.SummaryTask,
  estimator: TokenEstimator.Service,
  options: Options = {}
): string => extractFrom(task, estimator.estimate(SummaryTask.material(task)), estimator, options).text

/**
 * {@link extract} given the estimate of the material (`inputTokens`), with the
 * estimate of the text (`outputTokens`), so that a caller that needs them too
 * estimates neither again.
 */
export const extractFrom = (
  task: Provider.SummaryTask,
  inputTokens: number,
  estimator: TokenEstimator.Service,
  options: Options = {}
): Fitted => {
  const empty = () => ({ text: "", outputTokens: estimator.estimate("") })
  const maxSegmentChars = Math.max(40, Math.floor(finite(options.maxSegmentChars, defaults.maxSegmentChars)))
  const parsed = parse(task, maxSegmentChars)
  if (parsed.segments.length === 0) return empty()
  const limit = budget(task, inputTokens, options)
  const flags = eligibility(parsed, options, priorKeysOf(SummaryTask.priorSummary(task), maxSegmentChars))
  const candidates: Array<number> = []
  for (let s = 0; s < parsed.segments.length; s++) if (flags.eligible[s] === 1) candidates.push(s)
  if (candidates.length === 0) return empty()
  const requestGroup = firstRequestGroup(parsed.lines)
  const cover = coverage(parsed, candidates, flags, requestGroup, SummaryTask.priorSummary(task))
  const reserved = priorities(task, options, parsed, candidates, flags, cover, requestGroup)
  const run = chooser(parsed, candidates, flags, cover)
  const choose = (budgetChars: number) => takeReserved(run(budgetChars), reserved, budgetChars)
  // Characters stand in for tokens while choosing; the estimator has the last word.
  const charsPerToken = SummaryTask.material(task).length / Math.max(1, inputTokens)
  return fit(parsed, limit, charsPerToken, estimator, choose) ?? bestCut(parsed, candidates, cover, limit, estimator)
}
