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
  /** Newest uncovered turns never summarized. */
  freshTailTurns: Schema.optionalWith(OptionSchema.int({ min: 0 }), { default: () => defaults.freshTailTurns }),
  /**
   * The fresh tail's most tokens: the tail is the newest `freshTailTurns`
   * turns, fewer when they hold more (a tool pair stays whole). Default
   * `FreshTail.tokensFor(budget)` when a budget is given, else unbounded.
   */
  freshTailTokens: Schema.optional(OptionSchema.int({ min: 0 })),
  /**
   * The context budget (tokens) the session is assembled against. When given,
   * it sets the default `freshTailTokens`, and a compaction brings the active
   * context down to `lowWater * budget`, not just under the threshold.
   */
  budget: Schema.optional(Budget),
  /** Fraction of `budget` a compaction aims to leave in the active context. */
  lowWater: Schema.optionalWith(share, { default: () => defaults.lowWater }),
  /** Largest chunk of turns per leaf, in estimated tokens. */
  leafChunkTokens: Schema.optionalWith(tokens, { default: () => defaults.leafChunkTokens }),
  /**
   * Most turns one compaction summarizes (the oldest evictable ones; a tool
   * call and its results stay together, see the engine's notes), so a run in
   * idle time stays short. Default unbounded.
   */
  maxTurns: Schema.optional(OptionSchema.int({ min: 1 })),
  /** Fewest parentless siblings condensed together. */
  minFanIn: Schema.optionalWith(OptionSchema.int({ min: 2 }), { default: () => defaults.minFanIn }),
  /** Most parentless siblings condensed together: at least `minFanIn`. */
  maxFanIn: Schema.optionalWith(OptionSchema.int({ min: 2 }), { default: () => defaults.maxFanIn }),
  /** Fraction of the budget the active context must exceed to compact. */
  threshold: Schema.optionalWith(share, { default: () => defaults.threshold }),
  /** Condensation calls of one depth running at once. */
  concurrency: Schema.optionalWith(tokens, { default: () => defaults.concurrency }),
  /** `targetTokens` of leaf summaries. */
  leafTargetTokens: Schema.optionalWith(tokens, { default: () => defaults.leafTargetTokens }),
  /** `targetTokens` of condensed summaries. */
  condenseTargetTokens: Schema.optionalWith(tokens, { default: () => defaults.condenseTargetTokens }),
  /**
   * Whether a summary that dropped must-survive keys of its material (its
   * fact check, `Summary.dropped`) gets the most important of them appended as
   * one `Also: a; b; c` line, when that fits within its target tokens.
   */
  alsoLine: Schema.optionalWith(OptionSchema.boolean, { default: () => defaults.alsoLine })
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
