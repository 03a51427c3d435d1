/**
 * What a Condenser stage is: an Effect from a context to a smaller one, with
 * what it did, and a pipeline of them. `Condenser` exports them; they live
 * here so that the stages' modules name them without importing it.
 *
 * @internal
 */
import { ActiveContext } from "@precis/compaction"
import { type ConversationTurn, type SummaryRecord, TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"

/** Summaries (oldest first) and turns (oldest first). */
export interface Context {
  readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
}

/**
 * What a stage did, by count: tool results masked, turns or summaries cut in
 * their middle, dropped, turns replaced by a summary, and summaries shown as
 * their children or turns.
 */
export interface Counts {
  readonly masked: number
  readonly trimmed: number
  readonly dropped: number
  readonly summarized: number
  readonly expanded: number
}

/** The output of a stage: the smaller context and what it did. */
export interface StageOutput {
  readonly context: Context
  readonly counts: Partial<Counts>
}

/** A stage: an Effect from a context (and its tokens) to a smaller one. It never fails. */
export interface Stage<R = never> {
  readonly name: string
  readonly run: (context: Context, tokens: number) => Effect.Effect<StageOutput, never, R>
}

/** The output of a stage that changed nothing. */
export const unchanged = (context: Context): StageOutput => ({ context, counts: {} })

/** One stage's line of the report. */
export interface StageReport extends Counts {
  readonly stage: string
  /** Whether the stage changed anything. */
  readonly acted: boolean
  readonly tokensBefore: number
  readonly tokensAfter: number
}

/** A pipeline's report: the tokens before and after, and a line per stage. */
export interface Report {
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly stages: ReadonlyArray<StageReport>
}

/** A condensed context, its tokens and the report of the pipeline that made it. */
export interface Condensed extends Context {
  readonly tokens: number
  readonly report: Report
}

/** Counts of nothing done. */
export const noCounts: Counts = { masked: 0, trimmed: 0, dropped: 0, summarized: 0, expanded: 0 }

/**
 * Runs `stages` in order over a context, measuring it (with the
 * `TokenEstimator` in context, as `ActiveContext.count` counts) before and
 * after each one.
 */
export const pipeline = <R>(stages: ReadonlyArray<Stage<R>>) => (context: Context): Effect.Effect<Condensed, never, R> =>
  Effect.gen(function*() {
    const estimator = yield* TokenEstimator.TokenEstimator
    const tokensBefore = ActiveContext.count(estimator, context)
    let current: Context = context
    let tokens = tokensBefore
    const reports: Array<StageReport> = []
    for (const stage of stages) {
      const output = yield* stage.run(current, tokens)
      const after = ActiveContext.count(estimator, output.context)
      reports.push({
        stage: stage.name,
        acted: output.context !== current,
        tokensBefore: tokens,
        tokensAfter: after,
        ...noCounts,
        ...output.counts
      })
      current = output.context
      tokens = after
    }
    return { ...current, tokens, report: { tokensBefore, tokensAfter: tokens, stages: reports } }
  }).pipe(Effect.withSpan("Condenser.pipeline"))
