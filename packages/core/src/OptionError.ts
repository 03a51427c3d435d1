/**
 * What options that make no sense are: one {@link Problem} per option, read
 * from a failed decoding ({@link problemsOf}), described in one line
 * ({@link describeProblem}: a CLI names its flags instead of the options),
 * and the class of an options module's typed error ({@link InvalidOptions}).
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import type * as ParseResult from "effect/ParseResult"
import * as SchemaIssue from "./SchemaIssue.js"

/**
 * One option that makes no sense: `message` says what it must be
 * (`must be an integer >= 2 (got 1)`), without the option's name. `option` is
 * the option's name, dotted when nested (`retry.maxAttempts`); when the
 * message refers to another option of the same options, `other` names it.
 *
 * @since 0.1.0
 */
export interface Problem {
  readonly option: string
  readonly message: string
  readonly other?: string | undefined
}

/**
 * A problem as text, its option (and the option it refers to, if any) named
 * by `nameOf`: `maxFanIn must be an integer >= minFanIn (got 8 < 9)` by
 * default; a CLI passes its flag names instead.
 *
 * @example
 * ```ts
 * import { OptionError } from "@precis/core"
 * OptionError.describeProblem({ option: "maxTokens", message: "must be an integer >= 1 (got 0)" })
 * // "maxTokens must be an integer >= 1 (got 0)"
 * ```
 * @since 0.1.0
 */
export const describeProblem = (problem: Problem, nameOf: (option: string) => string = (option) => option): string =>
  `${nameOf(problem.option)} ${messageOf(problem, nameOf)}`

/**
 * A problem's message, the option it refers to (if any) named by `nameOf`.
 *
 * @since 0.1.0
 */
export const messageOf = (problem: Problem, nameOf: (option: string) => string): string =>
  problem.other === undefined ? problem.message : problem.message.split(problem.other).join(nameOf(problem.other))

/**
 * Problems as one line, `; ` between them (see {@link describeProblem}).
 *
 * @since 0.1.0
 */
export const describeProblems = (
  problems: ReadonlyArray<Problem>,
  nameOf?: (option: string) => string
): string => problems.map((problem) => describeProblem(problem, nameOf)).join("; ")

/**
 * The class of an options module's typed error: `tag` is its `_tag`, and its
 * message names what the options are of (`invalid Summarizer options:
 * maxTokens must be an integer >= 1 (got 0)`), followed by every problem.
 *
 * @example
 * ```ts
 * import { OptionError } from "@precis/core"
 * class InvalidWidgetOptionsError extends OptionError.InvalidOptions("InvalidWidgetOptionsError", "widget") {}
 * new InvalidWidgetOptionsError({ problems: [{ option: "size", message: "must be an integer >= 1 (got 0)" }] }).message
 * // "invalid widget options: size must be an integer >= 1 (got 0)"
 * ```
 * @since 0.1.0
 */
export const InvalidOptions = <const Tag extends string>(
  tag: Tag,
  subject: string
): new(args: { readonly problems: ReadonlyArray<Problem> }) => InvalidOptionsError<Tag> =>
  class extends Data.TaggedError(tag)<{ readonly problems: ReadonlyArray<Problem> }> {
    override get message(): string {
      return `invalid ${subject} options: ${describeProblems(this.problems)}`
    }
  }

/**
 * What an {@link InvalidOptions} class makes: a yieldable error tagged `Tag`
 * with every problem found.
 *
 * @since 0.1.0
 */
export interface InvalidOptionsError<Tag extends string> extends Cause.YieldableError {
  readonly _tag: Tag
  readonly problems: ReadonlyArray<Problem>
}

/**
 * A failed decoding as problems, one per option (the first issue of each,
 * in words: `SchemaIssue.problems`), each named by its path (`retry.maxAttempts`; a nested struct's problems are
 * its fields'). `options` are the names that
 * a message may refer to (the other options of the same struct): the first
 * one a message mentions becomes the problem's `other`.
 *
 * @since 0.1.0
 */
export const problemsOf = (
  error: ParseResult.ParseError,
  options: ReadonlyArray<string> = []
): ReadonlyArray<Problem> => {
  const seen = new Set<string>()
  const problems: Array<Problem> = []
  for (const issue of SchemaIssue.problems(error)) {
    const option = issue.path.map(String).join(".")
    // A nested struct fails as a whole after its field did: the field's problem says it.
    if (seen.has(option) || [...seen].some((known) => known.startsWith(`${option}.`))) continue
    seen.add(option)
    const message = issue.message
    const other = options.find((name) => name !== option && new RegExp(`\\b${name}\\b`).test(message))
    problems.push(other === undefined ? { option, message } : { option, message, other })
  }
  return problems
}
