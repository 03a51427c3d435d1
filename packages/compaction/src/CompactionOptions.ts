/**
 * The options of a compaction: their defaults, their validation and how they
 * are read from `Config`.
 *
 * @since 0.1.0
 */
import { Summarizer } from "@precis/core"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { ProgressEvent } from "./CompactionManager.js"

/**
 * @since 0.1.0
 */
export interface Options {
  /** Newest uncovered turns never summarized. Default 16. */
  readonly freshTailTurns?: number | undefined
  /**
   * The fresh tail's most tokens: the tail is the newest `freshTailTurns`
   * turns, fewer when they hold more (a tool pair stays whole). Default
   * {@link tailTokensFor} of `budget` when a budget is given, else unbounded.
   */
  readonly freshTailTokens?: number | undefined
  /**
   * The context budget (tokens) the session is assembled against. When given,
   * it sets the default `freshTailTokens`, and a compaction brings the active
   * context down to `lowWater * budget`, not just under the threshold.
   */
  readonly budget?: number | undefined
  /** Fraction of `budget` a compaction aims to leave in the active context. Default 0.5. */
  readonly lowWater?: number | undefined
  /** Largest chunk of turns per leaf, in estimated tokens. Default 20,000. */
  readonly leafChunkTokens?: number | undefined
  /**
   * Most turns one compaction summarizes (the oldest evictable ones; a tool
   * call and its results stay together, see the engine's notes), so a run in
   * idle time stays short. Default unbounded.
   */
  readonly maxTurns?: number | undefined
  /** Fewest parentless siblings condensed together. Default 4. */
  readonly minFanIn?: number | undefined
  /** Most parentless siblings condensed together. Default 8. */
  readonly maxFanIn?: number | undefined
  /** Fraction of the budget the active context must exceed to compact. Default 0.75. */
  readonly threshold?: number | undefined
  /** Condensation calls of one depth running at once. Default 4. */
  readonly concurrency?: number | undefined
  /** `targetTokens` of leaf summaries. Default 1200. */
  readonly leafTargetTokens?: number | undefined
  /** `targetTokens` of condensed summaries. Default 2000. */
  readonly condenseTargetTokens?: number | undefined
  /**
   * Whether a summary that dropped must-survive keys of its material (its
   * fact check, `Summary.dropped`) gets the most important of them appended as
   * one `Also: a; b; c` line, when that fits within its target tokens. Default true.
   *
   * @since 0.3.0
   */
  readonly alsoLine?: boolean | undefined
  /** Called after each step of a compaction (a progress bar, say). */
  readonly onProgress?: ((event: ProgressEvent) => Effect.Effect<void>) | undefined
}

/**
 * Options with every default applied, validated.
 *
 * @since 0.1.0
 */
export interface ResolvedOptions {
  readonly freshTailTurns: number
  /** `undefined`: no token bound. */
  readonly freshTailTokens: number | undefined
  readonly budget: number | undefined
  readonly lowWater: number
  readonly leafChunkTokens: number
  /** `undefined`: unbounded. */
  readonly maxTurns: number | undefined
  readonly minFanIn: number
  readonly maxFanIn: number
  readonly threshold: number
  readonly concurrency: number
  readonly leafTargetTokens: number
  readonly condenseTargetTokens: number
  /** @since 0.3.0 */
  readonly alsoLine: boolean
  readonly onProgress: ((event: ProgressEvent) => Effect.Effect<void>) | undefined
}

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
 * The default token bound of the fresh tail (and of the part of the context
 * the condenser's mask stage protects) for a budget: a quarter of it,
 * clamped to 1,000..32,000 tokens, and never more than the budget.
 *
 * @example
 * ```ts
 * import { CompactionOptions } from "@precis/compaction"
 * CompactionOptions.tailTokensFor(32_000) // 8000
 * CompactionOptions.tailTokensFor(2_000) // 1000
 * ```
 * @since 0.1.0
 */
export const tailTokensFor = (budget: number): number =>
  Math.min(Math.floor(budget), Math.max(1_000, Math.min(32_000, Math.floor(budget / 4))))

/**
 * The bounds {@link fromBudget} applies: the smallest leaf chunk (500
 * tokens), the fewest fresh-tail turns (4) and the tokens of budget per
 * fresh-tail turn (2,000).
 *
 * @since 0.3.0
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
 * @since 0.3.0
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
 * What a problem is about: an option, the budget given to `shouldCompact`/`status`,
 * or `CompactionManager.assemble`'s `stateShare`.
 *
 * @since 0.1.0
 */
export type Subject = keyof Options | "budget" | "stateShare"

/**
 * One value that makes no sense. `message` says what it must be, without the
 * subject's name (`must be an integer >= 2 (got 1)`); when it refers to another
 * option, `other` names that option (as the message spells it).
 *
 * @since 0.1.0
 */
export interface OptionProblem {
  readonly option: Subject
  readonly message: string
  readonly other?: keyof Options | undefined
}

/**
 * A problem as text, its subject (and the option it refers to, if any) named by
 * `nameOf`: `maxFanIn must be an integer >= minFanIn (got 8 < 9)` by default; a
 * CLI passes its flag names instead.
 *
 * @since 0.1.0
 */
export const describeProblem = (
  problem: OptionProblem,
  nameOf: (option: Subject) => string = (option) => option
): string => {
  const message = problem.other === undefined
    ? problem.message
    : problem.message.split(problem.other).join(nameOf(problem.other))
  return `${nameOf(problem.option)} ${message}`
}

/**
 * Options (or a budget) that make no sense, such as `minFanIn < 2`: every
 * problem found, one per option.
 *
 * @since 0.1.0
 */
export class InvalidOptionsError extends Data.TaggedError("InvalidOptionsError")<{
  readonly problems: ReadonlyArray<OptionProblem>
}> {
  /** @since 0.1.0 */
  override get message(): string {
    return `invalid compaction options: ${this.problems.map((problem) => describeProblem(problem)).join("; ")}`
  }
}

const isInt = (n: number, min: number) => Number.isSafeInteger(n) && n >= min

const integerProblem = (option: keyof Options, value: number, min: number): Array<OptionProblem> =>
  isInt(value, min) ? [] : [{ option, message: `must be an integer >= ${min} (got ${value})` }]

/**
 * Applies the defaults to `options` and checks them: `freshTailTurns >= 0`,
 * `leafChunkTokens`, `concurrency` and the targets `>= 1`, `minFanIn >= 2`,
 * `maxFanIn >= minFanIn` (all integers), `0 < threshold <= 1`,
 * `0 < lowWater <= 1`, `freshTailTokens >= 0` and `maxTurns >= 1` (integers, when given); and, when
 * given (as the `budget` argument or option), that the budget is a positive
 * number. Fails with every problem found.
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
  const isBudget = (value: number) => Number.isFinite(value) && value > 0
  const resolved: ResolvedOptions = {
    freshTailTurns: options.freshTailTurns ?? defaults.freshTailTurns,
    // Only a budget given as an option bounds the tail by default: `status`'s budget argument does not.
    freshTailTokens: options.freshTailTokens ??
      (options.budget !== undefined && isBudget(options.budget) ? tailTokensFor(options.budget) : undefined),
    budget: options.budget,
    lowWater: options.lowWater ?? defaults.lowWater,
    leafChunkTokens: options.leafChunkTokens ?? defaults.leafChunkTokens,
    maxTurns: options.maxTurns,
    minFanIn: options.minFanIn ?? defaults.minFanIn,
    maxFanIn: options.maxFanIn ?? defaults.maxFanIn,
    threshold: options.threshold ?? defaults.threshold,
    concurrency: options.concurrency ?? defaults.concurrency,
    leafTargetTokens: options.leafTargetTokens ?? defaults.leafTargetTokens,
    condenseTargetTokens: options.condenseTargetTokens ?? defaults.condenseTargetTokens,
    alsoLine: options.alsoLine ?? defaults.alsoLine,
    onProgress: options.onProgress
  }
  const problems: Array<OptionProblem> = [
    ...integerProblem("freshTailTurns", resolved.freshTailTurns, 0),
    ...integerProblem("leafChunkTokens", resolved.leafChunkTokens, 1),
    ...integerProblem("concurrency", resolved.concurrency, 1),
    ...integerProblem("leafTargetTokens", resolved.leafTargetTokens, 1),
    ...integerProblem("condenseTargetTokens", resolved.condenseTargetTokens, 1),
    ...integerProblem("minFanIn", resolved.minFanIn, 2)
  ]
  if (!isInt(resolved.maxFanIn, resolved.minFanIn)) {
    problems.push({
      option: "maxFanIn",
      message: `must be an integer >= minFanIn (got ${resolved.maxFanIn} < ${resolved.minFanIn})`,
      other: "minFanIn"
    })
  }
  if (!(resolved.threshold > 0 && resolved.threshold <= 1)) {
    problems.push({ option: "threshold", message: `must be in (0, 1] (got ${resolved.threshold})` })
  }
  if (resolved.freshTailTokens !== undefined) {
    problems.push(...integerProblem("freshTailTokens", resolved.freshTailTokens, 0))
  }
  if (resolved.maxTurns !== undefined) {
    problems.push(...integerProblem("maxTurns", resolved.maxTurns, 1))
  }
  if (!(resolved.lowWater > 0 && resolved.lowWater <= 1)) {
    problems.push({ option: "lowWater", message: `must be in (0, 1] (got ${resolved.lowWater})` })
  }
  const badBudget = [budget, options.budget].find((value) => value !== undefined && !isBudget(value))
  if (badBudget !== undefined) {
    problems.push({ option: "budget", message: `must be a positive number (got ${badBudget})` })
  }
  return problems.length === 0 ? Either.right(resolved) : Either.left(new InvalidOptionsError({ problems }))
}

// The environment variable of each option that `config` reads.
const variables = {
  freshTailTurns: "PRECIS_COMPACTION_FRESH_TAIL_TURNS",
  freshTailTokens: "PRECIS_COMPACTION_FRESH_TAIL_TOKENS",
  budget: "PRECIS_COMPACTION_BUDGET",
  lowWater: "PRECIS_COMPACTION_LOW_WATER",
  leafChunkTokens: "PRECIS_COMPACTION_LEAF_CHUNK_TOKENS",
  maxTurns: "PRECIS_COMPACTION_MAX_TURNS",
  minFanIn: "PRECIS_COMPACTION_MIN_FAN_IN",
  maxFanIn: "PRECIS_COMPACTION_MAX_FAN_IN",
  threshold: "PRECIS_COMPACTION_THRESHOLD",
  concurrency: "PRECIS_COMPACTION_CONCURRENCY",
  leafTargetTokens: "PRECIS_COMPACTION_LEAF_TARGET_TOKENS",
  condenseTargetTokens: "PRECIS_COMPACTION_CONDENSE_TARGET_TOKENS",
  alsoLine: "PRECIS_COMPACTION_ALSO_LINE"
} as const

// Where `config` reports a problem: the variable of its option.
const pathOf = (option: Subject): Array<string> =>
  option === "onProgress" || option === "stateShare" ? ["PRECIS_COMPACTION"] : [variables[option]]

const intConfig = (option: Exclude<keyof typeof defaults, "threshold" | "lowWater" | "alsoLine">) =>
  Config.integer(variables[option]).pipe(Config.withDefault(defaults[option]))

const optionalConfig = (config: Config.Config<number>) =>
  Config.option(config).pipe(Config.map(Option.getOrUndefined))

/**
 * {@link Options} read from `Config` and validated with {@link resolveOptions}:
 * `PRECIS_COMPACTION_FRESH_TAIL_TURNS`, `..._FRESH_TAIL_TOKENS` and `..._BUDGET`
 * (both unset by default), `..._LOW_WATER`, `..._LEAF_CHUNK_TOKENS`, `..._MAX_TURNS` (unset by default), `..._MIN_FAN_IN`,
 * `..._MAX_FAN_IN`, `..._THRESHOLD`, `..._CONCURRENCY`, `..._LEAF_TARGET_TOKENS`,
 * `..._CONDENSE_TARGET_TOKENS`, `..._ALSO_LINE` (`true`/`false`), each with its default. Each problem is an
 * `InvalidData` error at its variable's path.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all({
  freshTailTurns: intConfig("freshTailTurns"),
  freshTailTokens: optionalConfig(Config.integer(variables.freshTailTokens)),
  budget: optionalConfig(Config.number(variables.budget)),
  lowWater: Config.number(variables.lowWater).pipe(Config.withDefault(defaults.lowWater)),
  leafChunkTokens: intConfig("leafChunkTokens"),
  maxTurns: optionalConfig(Config.integer(variables.maxTurns)),
  minFanIn: intConfig("minFanIn"),
  maxFanIn: intConfig("maxFanIn"),
  threshold: Config.number(variables.threshold).pipe(Config.withDefault(defaults.threshold)),
  concurrency: intConfig("concurrency"),
  leafTargetTokens: intConfig("leafTargetTokens"),
  condenseTargetTokens: intConfig("condenseTargetTokens"),
  alsoLine: Config.boolean(variables.alsoLine).pipe(Config.withDefault(defaults.alsoLine))
}).pipe(
  Config.mapOrFail((options) =>
    Either.mapLeft(resolveOptions(options), (error) =>
      error.problems
        .map((problem) => ConfigError.InvalidData(pathOf(problem.option), describeProblem(problem)))
        .reduce(ConfigError.And))
  )
)
