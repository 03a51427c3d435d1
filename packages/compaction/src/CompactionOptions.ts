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
import type { ProgressEvent } from "./CompactionManager.js"

/**
 * @since 0.1.0
 */
export interface Options {
  /** Newest uncovered turns never summarized. Default 16. */
  readonly freshTailTurns?: number | undefined
  /** Largest chunk of turns per leaf, in estimated tokens. Default 20,000. */
  readonly leafChunkTokens?: number | undefined
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
  readonly leafChunkTokens: number
  readonly minFanIn: number
  readonly maxFanIn: number
  readonly threshold: number
  readonly concurrency: number
  readonly leafTargetTokens: number
  readonly condenseTargetTokens: number
  readonly onProgress: ((event: ProgressEvent) => Effect.Effect<void>) | undefined
}

/**
 * The defaults of {@link Options}.
 *
 * @since 0.1.0
 */
export const defaults = {
  freshTailTurns: 16,
  leafChunkTokens: 20_000,
  minFanIn: 4,
  maxFanIn: 8,
  threshold: 0.75,
  concurrency: 4,
  leafTargetTokens: Summarizer.defaults.leafTargetTokens,
  condenseTargetTokens: Summarizer.defaults.condenseTargetTokens
} as const

/**
 * What a problem is about: an option, or the budget given to `shouldCompact`/`status`.
 *
 * @since 0.1.0
 */
export type Subject = keyof Options | "budget"

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
 * `maxFanIn >= minFanIn` (all integers) and `0 < threshold <= 1`; and, when
 * given, that `budget` is a positive number. Fails with every problem found.
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
  const resolved: ResolvedOptions = {
    freshTailTurns: options.freshTailTurns ?? defaults.freshTailTurns,
    leafChunkTokens: options.leafChunkTokens ?? defaults.leafChunkTokens,
    minFanIn: options.minFanIn ?? defaults.minFanIn,
    maxFanIn: options.maxFanIn ?? defaults.maxFanIn,
    threshold: options.threshold ?? defaults.threshold,
    concurrency: options.concurrency ?? defaults.concurrency,
    leafTargetTokens: options.leafTargetTokens ?? defaults.leafTargetTokens,
    condenseTargetTokens: options.condenseTargetTokens ?? defaults.condenseTargetTokens,
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
  if (budget !== undefined && !(Number.isFinite(budget) && budget > 0)) {
    problems.push({ option: "budget", message: `must be a positive number (got ${budget})` })
  }
  return problems.length === 0 ? Either.right(resolved) : Either.left(new InvalidOptionsError({ problems }))
}

// The environment variable of each option that `config` reads.
const variables = {
  freshTailTurns: "PRECIS_COMPACTION_FRESH_TAIL_TURNS",
  leafChunkTokens: "PRECIS_COMPACTION_LEAF_CHUNK_TOKENS",
  minFanIn: "PRECIS_COMPACTION_MIN_FAN_IN",
  maxFanIn: "PRECIS_COMPACTION_MAX_FAN_IN",
  threshold: "PRECIS_COMPACTION_THRESHOLD",
  concurrency: "PRECIS_COMPACTION_CONCURRENCY",
  leafTargetTokens: "PRECIS_COMPACTION_LEAF_TARGET_TOKENS",
  condenseTargetTokens: "PRECIS_COMPACTION_CONDENSE_TARGET_TOKENS"
} as const

// Where `config` reports a problem: the variable of its option.
const pathOf = (option: Subject): Array<string> =>
  option === "budget" || option === "onProgress" ? ["PRECIS_COMPACTION"] : [variables[option]]

const intConfig = (option: Exclude<keyof typeof variables, "threshold">) =>
  Config.integer(variables[option]).pipe(Config.withDefault(defaults[option]))

/**
 * {@link Options} read from `Config` and validated with {@link resolveOptions}:
 * `PRECIS_COMPACTION_FRESH_TAIL_TURNS`, `..._LEAF_CHUNK_TOKENS`, `..._MIN_FAN_IN`,
 * `..._MAX_FAN_IN`, `..._THRESHOLD`, `..._CONCURRENCY`, `..._LEAF_TARGET_TOKENS`,
 * `..._CONDENSE_TARGET_TOKENS`, each with its default. Each problem is an
 * `InvalidData` error at its variable's path.
 *
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all({
  freshTailTurns: intConfig("freshTailTurns"),
  leafChunkTokens: intConfig("leafChunkTokens"),
  minFanIn: intConfig("minFanIn"),
  maxFanIn: intConfig("maxFanIn"),
  threshold: Config.number(variables.threshold).pipe(Config.withDefault(defaults.threshold)),
  concurrency: intConfig("concurrency"),
  leafTargetTokens: intConfig("leafTargetTokens"),
  condenseTargetTokens: intConfig("condenseTargetTokens")
}).pipe(
  Config.mapOrFail((options) =>
    Either.mapLeft(resolveOptions(options), (error) =>
      error.problems
        .map((problem) => ConfigError.InvalidData(pathOf(problem.option), describeProblem(problem)))
        .reduce(ConfigError.And))
  )
)
