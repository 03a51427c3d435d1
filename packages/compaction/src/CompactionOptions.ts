/**
 * The options of a compaction as a Schema: their names, bounds and defaults,
 * and from them their validation and the variables they are read from.
 *
 * @since 0.1.0
 */
import { OptionConfig, OptionError, OptionSchema, Summarizer } from "@precis/core"
import type * as Config from "effect/Config"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as FreshTail from "./FreshTail.js"

/**
 * The defaults of {@link Options}.
 *
 * @since 0.1.0
 */
export const defaults = {
  freshTailTurns: 16,
  lowWater: 0.5,
  leafChunkTokens: 20_000,
  minFanIn: 4,
  maxFanIn: 8,
  threshold: 0.75,
  concurrency: 4,
  leafTargetTokens: Summarizer.defaults.leafTargetTokens,
  condenseTargetTokens: Summarizer.defaults.condenseTargetTokens,
  alsoLine: true
} as const

/**
 * A context budget, in tokens: an integer >= 1.
 *
 * @since 0.1.0
 */
export const Budget: Schema.Schema<number> = OptionSchema.int({ min: 1 })

const tokens = OptionSchema.int({ min: 1 })
const share = OptionSchema.number({ min: 0, max: 1, exclusiveMin: true })

/**
 * The options of a compaction, their bounds and defaults: the one source of
 * their names, of what {@link resolveOptions} checks and of the variables
 * {@link config} reads.
 *
 * | option | bounds | default |
 * |---|---|---|
 * | `freshTailTurns` | integer >= 0 | 16 |
 * | `freshTailTokens` | integer >= 0 | `FreshTail.tokensFor(budget)` with a budget, else unbounded |
 * | `budget` | integer >= 1 | none |
 * | `lowWater` | (0, 1] | 0.5 |
 * | `leafChunkTokens` | integer >= 1 | 20,000 |
 * | `maxTurns` | integer >= 1 | unbounded |
 * | `minFanIn` | integer >= 2 | 4 |
 * | `maxFanIn` | integer >= 2 and >= `minFanIn` | 8 |
 * | `threshold` | (0, 1] | 0.75 |
 * | `concurrency` | integer >= 1 | 4 |
 * | `leafTargetTokens` | integer >= 1 | 1200 |
 * | `condenseTargetTokens` | integer >= 1 | 2000 |
 * | `alsoLine` | boolean | true |
 *
 * @since 0.1.0
 */
export const Options = Schema.Struct({
  freshTailTurns: Schema.optionalWith(OptionSchema.int({ min: 0 }), { default: () => defaults.freshTailTurns })
    .annotations({ description: "newest uncovered turns never summarized" }),
  freshTailTokens: Schema.optional(OptionSchema.int({ min: 0 })).annotations({
    description: "the fresh tail's most tokens: its newest freshTailTurns turns, fewer when they hold more (a tool " +
      "pair stays whole); default FreshTail.tokensFor(budget) with a budget, else unbounded"
  }),
  budget: Schema.optional(Budget).annotations({
    description: "the context budget the session is assembled against: it sets the default freshTailTokens, and a " +
      "compaction brings the active context down to lowWater * budget, not just under the threshold"
  }),
  lowWater: Schema.optionalWith(share, { default: () => defaults.lowWater }).annotations({
    description: "fraction of the budget a compaction aims to leave in the active context"
  }),
  leafChunkTokens: Schema.optionalWith(tokens, { default: () => defaults.leafChunkTokens }).annotations({
    description: "largest chunk of turns per leaf, in estimated tokens"
  }),
  maxTurns: Schema.optional(OptionSchema.int({ min: 1 })).annotations({
    description: "most turns one compaction summarizes (the oldest evictable ones, a tool call with its results), " +
      "so a run in idle time stays short; default unbounded"
  }),
  minFanIn: Schema.optionalWith(OptionSchema.int({ min: 2 }), { default: () => defaults.minFanIn }).annotations({
    description: "fewest parentless siblings condensed together"
  }),
  maxFanIn: Schema.optionalWith(OptionSchema.int({ min: 2 }), { default: () => defaults.maxFanIn }).annotations({
    description: "most parentless siblings condensed together: at least minFanIn"
  }),
  threshold: Schema.optionalWith(share, { default: () => defaults.threshold }).annotations({
    description: "fraction of the budget the active context must exceed to compact"
  }),
  concurrency: Schema.optionalWith(tokens, { default: () => defaults.concurrency }).annotations({
    description: "condensation calls of one depth running at once"
  }),
  leafTargetTokens: Schema.optionalWith(tokens, { default: () => defaults.leafTargetTokens }).annotations({
    description: "targetTokens of leaf summaries"
  }),
  condenseTargetTokens: Schema.optionalWith(tokens, { default: () => defaults.condenseTargetTokens }).annotations({
    description: "targetTokens of condensed summaries"
  }),
  alsoLine: Schema.optionalWith(OptionSchema.boolean, { default: () => defaults.alsoLine }).annotations({
    description: "whether a summary that dropped must-survive keys of its material (Summary.dropped) gets the most " +
      "important of them appended as one \"Also: a; b; c\" line, when that fits within its target tokens"
  })
}).pipe(
  Schema.filter((options) =>
    options.maxFanIn >= options.minFanIn || {
      path: ["maxFanIn"],
      message: `must be an integer >= minFanIn (got ${options.maxFanIn} < ${options.minFanIn})`
    }
  )
)

/**
 * The options as given: any of {@link Options}'s fields. (A compaction's
 * progress is reported beside them: `CompactionProgress`.)
 *
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Encoded<typeof Options> {}

/**
 * Options with every default applied, validated.
 *
 * @since 0.1.0
 */
export interface ResolvedOptions extends Schema.Schema.Type<typeof Options> {
  /** `undefined`: no token bound. */
  readonly freshTailTokens: number | undefined
}

/**
 * The bounds {@link fromBudget} applies: the smallest leaf chunk (500
 * tokens), the fewest fresh-tail turns (4) and the tokens of budget per
 * fresh-tail turn (2,000).
 *
 * @since 0.1.0
 */
export const budgetRule = {
  minLeafChunkTokens: 500,
  minFreshTailTurns: 4,
  tokensPerTailTurn: 2_000
} as const

/**
 * The compaction options a context budget (in tokens) implies, for a caller
 * that knows its budget but sets no other option: `leafChunkTokens` is a
 * sixteenth of the budget within 500 and the default (20,000), so that a
 * budget holds several leaves, and `freshTailTurns` one turn per 2,000 tokens
 * within 4 and the default (16). `precis compact --budget N` uses them for
 * the flags not given. The `budget` option itself is not set: it also bounds
 * the tail in tokens and lowers the compaction to the low-water mark, which
 * the caller chooses apart.
 *
 * @example
 * ```ts
 * import { CompactionOptions } from "@precis/compaction"
 * CompactionOptions.fromBudget(32_000) // { leafChunkTokens: 2000, freshTailTurns: 16 }
 * CompactionOptions.fromBudget(16_000) // { leafChunkTokens: 1000, freshTailTurns: 8 }
 * ```
 * @since 0.1.0
 */
export const fromBudget = (budget: number): {
  readonly leafChunkTokens: number
  readonly freshTailTurns: number
} => ({
  leafChunkTokens: Math.min(defaults.leafChunkTokens, Math.max(budgetRule.minLeafChunkTokens, Math.round(budget / 16))),
  freshTailTurns: Math.min(
    defaults.freshTailTurns,
    Math.max(budgetRule.minFreshTailTurns, Math.floor(budget / budgetRule.tokensPerTailTurn))
  )
})

/**
 * Options (or a budget) that make no sense, such as `minFanIn < 2`: every
 * problem found, one per option (or `budget`, or the `stateShare` of `@precis/context`'s
 * `Assembler.assemble`).
 *
 * @since 0.1.0
 */
export class InvalidOptionsError extends OptionError.InvalidOptions("InvalidOptionsError", "compaction") {}

const decodeOptions = OptionSchema.decode(Options, (problems) => problems)

const decodeBudget = OptionSchema.decode(Schema.Struct({ budget: Budget }), (problems) => problems)

/**
 * Applies the defaults to `options` and checks them against {@link Options};
 * and, when given, checks the `budget` argument (a `shouldCompact`/`status`
 * budget: an integer >= 1). Fails with every problem found.
 *
 * @example
 * ```ts
 * import { CompactionOptions } from "@precis/compaction"
 * import { Either } from "effect"
 * const result = CompactionOptions.resolveOptions({ minFanIn: 1, threshold: 2 })
 * // Left(InvalidOptionsError): problems for minFanIn and threshold
 * Either.isLeft(result)
 * ```
 * @since 0.1.0
 */
export const resolveOptions = (
  options: Options = {},
  budget?: number
): Either.Either<ResolvedOptions, InvalidOptionsError> => {
  const decoded = decodeOptions(options)
  const budgetProblems = budget === undefined ? [] : Option.getOrElse(Either.getLeft(decodeBudget({ budget })), () => [])
  if (Either.isLeft(decoded) || budgetProblems.length > 0) {
    const problems = Either.isLeft(decoded) ? decoded.left : []
    // A budget bad both as the option and as the argument is one problem.
    const more = problems.some((problem) => problem.option === "budget") ? [] : budgetProblems
    return Either.left(new InvalidOptionsError({ problems: [...problems, ...more] }))
  }
  const resolved = decoded.right
  return Either.right({
    ...resolved,
    // Only a budget given as an option bounds the tail by default: `status`'s budget argument does not.
    freshTailTokens: resolved.freshTailTokens ??
      (resolved.budget === undefined ? undefined : FreshTail.tokensFor(resolved.budget))
  })
}

/**
 * The prefix of the variables {@link config} reads.
 *
 * @since 0.1.0
 */
export const prefix = "PRECIS_COMPACTION_"

/**
 * {@link Options} read from `Config`, each option from its variable
 * (`PRECIS_COMPACTION_` and its name in capitals), all unset by default:
 * `PRECIS_COMPACTION_FRESH_TAIL_TURNS`, `..._FRESH_TAIL_TOKENS`, `..._BUDGET`,
 * `..._LOW_WATER`, `..._LEAF_CHUNK_TOKENS`, `..._MAX_TURNS`, `..._MIN_FAN_IN`,
 * `..._MAX_FAN_IN`, `..._THRESHOLD`, `..._CONCURRENCY`, `..._LEAF_TARGET_TOKENS`,
 * `..._CONDENSE_TARGET_TOKENS`, `..._ALSO_LINE` (`true`/`false`). Each is
 * checked against {@link Options}; a problem is an `InvalidData` error at its
 * variable (`PRECIS_COMPACTION_THRESHOLD: must be a number in (0, 1] (got 5)`).
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = OptionConfig.config(prefix, Options)
