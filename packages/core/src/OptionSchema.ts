/**
 * Options as Schemas. An options type of precis is a `Schema.Struct` whose
 * fields carry their bounds and defaults; this module holds what they are made
 * of and what is derived from them:
 *
 * - **fields** ({@link int}, {@link number}, {@link boolean}, {@link duration},
 *   {@link nonEmptyString}, {@link url}, {@link literal}): each fails with a
 *   message saying what it must be and what it got
 *   (`must be an integer >= 1 (got -3)`), and knows how to read itself from
 *   text ({@link text}: `"30"`, `"yes"`, `"2 minutes"`);
 * - **problems** ({@link problemsOf}, {@link decode}): a failed decoding as one
 *   {@link Problem} per option, for the typed error of the options' module;
 * - **`Config`** ({@link config}): each field read from its own variable, the
 *   prefix followed by the field's name in capitals (`PRECIS_COMPACTION_` and
 *   `leafChunkTokens` give `PRECIS_COMPACTION_LEAF_CHUNK_TOKENS`), checked with
 *   the same Schema.
 *
 * So the library, its `Config` and the CLI agree on names, bounds and defaults.
 *
 * @example
 * ```ts
 * import { OptionSchema } from "@precis/core"
 * import { Schema } from "effect"
 * const Options = Schema.Struct({
 *   batchSize: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => 20 })
 * })
 * const config = OptionSchema.config("PRECIS_SLEEP_", Options) // reads PRECIS_SLEEP_BATCH_SIZE
 * ```
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

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
 * import { OptionSchema } from "@precis/core"
 * OptionSchema.describeProblem({ option: "maxTokens", message: "must be an integer >= 1 (got 0)" })
 * // "maxTokens must be an integer >= 1 (got 0)"
 * ```
 * @since 0.1.0
 */
export const describeProblem = (problem: Problem, nameOf: (option: string) => string = (option) => option): string =>
  `${nameOf(problem.option)} ${messageOf(problem, nameOf)}`

// The message, the option it refers to named by `nameOf`.
const messageOf = (problem: Problem, nameOf: (option: string) => string): string =>
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
 * import { OptionSchema } from "@precis/core"
 * class InvalidWidgetOptionsError extends OptionSchema.InvalidOptions("InvalidWidgetOptionsError", "widget") {}
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

// ---------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------

// How a field is read from text (a variable, a flag): the value handed to the field's Schema.
const TextAnnotationId: unique symbol = Symbol.for("@precis/core/OptionSchema/Text")

const show = (value: unknown): string =>
  typeof value === "string"
    ? JSON.stringify(value)
    : Duration.isDuration(value)
    ? Duration.format(value)
    : typeof value === "bigint"
    ? `${value}n`
    : String(value)

// A field that fails with `must be <description> (got <value>)`, whatever part of it failed.
const field = <A, I>(
  schema: Schema.Schema<A, I>,
  description: string,
  fromText: (text: string) => unknown
): Schema.Schema<A, I> =>
  schema.annotations({
    description,
    message: (issue) => ({ message: `must be ${description} (got ${show(issue.actual)})`, override: true }),
    [TextAnnotationId]: fromText
  })

// A number written in decimal (with an exponent, maybe); other text stays text, and fails as such.
const numberFromText = (text: string): unknown =>
  /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(text) ? Number(text) : text

const range = (options: {
  readonly min?: number | undefined
  readonly max?: number | undefined
  readonly exclusiveMin?: boolean | undefined
}): string => {
  const { exclusiveMin = false, max, min } = options
  if (min !== undefined && max !== undefined) return `in ${exclusiveMin ? "(" : "["}${min}, ${max}]`
  if (min !== undefined) return `${exclusiveMin ? ">" : ">="} ${min}`
  return max === undefined ? "" : `<= ${max}`
}

/**
 * An integer (a safe one) of at least `min` and, when given, at most `max`:
 * `must be an integer >= 1 (got 1.5)`. Read from decimal text.
 *
 * @since 0.1.0
 */
export const int = (options: { readonly min: number; readonly max?: number | undefined }): Schema.Schema<number> =>
  field(
    Schema.Number.pipe(
      Schema.filter((n) => Number.isSafeInteger(n) && n >= options.min && (options.max === undefined || n <= options.max))
    ),
    `an integer ${range(options)}`,
    numberFromText
  )

/**
 * A finite number within the bounds given (`min` excluded with
 * `exclusiveMin`): `must be a number in (0, 1] (got 5)`. Read from decimal text.
 *
 * @since 0.1.0
 */
export const number = (options: {
  readonly min?: number | undefined
  readonly max?: number | undefined
  readonly exclusiveMin?: boolean | undefined
} = {}): Schema.Schema<number> => {
  const { exclusiveMin = false, max, min } = options
  const bounds = range(options)
  return field(
    Schema.Number.pipe(
      Schema.filter((n) =>
        Number.isFinite(n) &&
        (min === undefined || (exclusiveMin ? n > min : n >= min)) &&
        (max === undefined || n <= max)
      )
    ),
    bounds.length === 0 ? "a finite number" : `a number ${bounds}`,
    numberFromText
  )
}

const TRUE_WORDS = new Set(["true", "yes", "on", "1", "y"])
const FALSE_WORDS = new Set(["false", "no", "off", "0", "n"])

/**
 * A boolean, read from text as `Config.boolean` reads it (`true`/`false`,
 * `yes`/`no`, `on`/`off`, `1`/`0`, `y`/`n`, in any case).
 *
 * @since 0.1.0
 */
export const boolean: Schema.Schema<boolean> = field(Schema.Boolean, "true or false", (text) => {
  const word = text.trim().toLowerCase()
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : text
})

/**
 * A string that is not blank.
 *
 * @since 0.1.0
 */
export const nonEmptyString: Schema.Schema<string> = field(
  Schema.String.pipe(Schema.filter((s) => s.trim().length > 0)),
  "a non-empty string",
  (text) => text
)

/**
 * An absolute `http:` or `https:` URL.
 *
 * @since 0.1.0
 */
export const url: Schema.Schema<string> = field(
  Schema.String.pipe(Schema.filter((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol))),
  "an http(s) URL",
  (text) => text
)

/**
 * One of the given strings.
 *
 * @since 0.1.0
 */
export const literal = <const Literals extends ReadonlyArray<string>>(
  ...literals: Literals
): Schema.Schema<Literals[number]> =>
  field(
    Schema.String.pipe(Schema.filter((s): s is Literals[number] => literals.includes(s))),
    `one of ${literals.join(", ")}`,
    (text) => text
  )

// A negative input would be read as zero by `Duration.decode`: it is refused instead.
const isDurationInput = (u: unknown): u is Duration.DurationInput => {
  if (typeof u === "number" && !(u >= 0)) return false
  if (typeof u === "bigint" && u < 0n) return false
  if (typeof u === "string" && /^\s*-/.test(u)) return false
  return Option.isSome(Duration.decodeUnknown(u))
}

/**
 * A duration given as any `Duration.DurationInput` (a `Duration`, a number of
 * milliseconds, `"30 seconds"`, ...), decoded to a `Duration`: finite unless
 * `infinite` is allowed, and greater than zero with `positive` (at least zero
 * otherwise). A negative or unreadable input (`"abc"`) is a failure, never a
 * defect. Read from text as a bare number of seconds (`30`) or with a unit
 * (`2 minutes`, `500 millis`).
 *
 * @since 0.1.0
 */
export const duration = (options: {
  readonly positive?: boolean | undefined
  readonly infinite?: boolean | undefined
} = {}): Schema.Schema<Duration.Duration, Duration.DurationInput> => {
  const { infinite = false, positive = false } = options
  const description = `a ${positive ? "positive " : ""}${infinite ? "" : "finite "}duration such as "30 seconds"`
  return field(
    Schema.transform(
      Schema.declare(isDurationInput, { identifier: "DurationInput" }),
      Schema.DurationFromSelf,
      { strict: true, decode: (input) => Duration.decode(input), encode: (d) => d }
    ).pipe(
      Schema.filter((d) => (infinite || Duration.isFinite(d)) && (!positive || Duration.greaterThan(d, Duration.zero)))
    ),
    description,
    (text) => /^\s*\d+(\.\d+)?\s*$/.test(text) ? Duration.seconds(Number(text)) : text
  )
}

/**
 * The Schema reading a field from text, as a variable or a flag gives it
 * (numbers in decimal, booleans as words, durations as `30` or `2 minutes`),
 * with the field's own bounds and messages; `undefined` for a field that is
 * not read from text (a function, a `Redacted`, a record).
 *
 * @example
 * ```ts
 * import { OptionSchema } from "@precis/core"
 * import { Schema } from "effect"
 * const fromText = OptionSchema.text(OptionSchema.int({ min: 1 }))!
 * Schema.decodeUnknownSync(fromText)("12") // 12
 * ```
 * @since 0.1.0
 */
export const text = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<A, string, R> | undefined =>
  Option.match(AST.getAnnotation<(text: string) => unknown>(schema.ast, TextAnnotationId), {
    onNone: () => undefined,
    onSome: (fromText) =>
      Schema.String.pipe(
        Schema.compose(Schema.transform(Schema.String, Schema.Unknown, { decode: fromText, encode: String })),
        Schema.compose(schema, { strict: false })
      )
  })

// ---------------------------------------------------------------------------
// Problems
// ---------------------------------------------------------------------------

/**
 * A failed decoding as problems, one per option (the first issue of each),
 * each named by its path (`retry.maxAttempts`; a nested struct's problems are
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
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const option = issue.path.map(String).join(".")
    // A nested struct fails as a whole after its field did: the field's problem says it.
    if (seen.has(option) || [...seen].some((known) => known.startsWith(`${option}.`))) continue
    seen.add(option)
    const message = issue._tag === "Missing" ? "is missing" : issue.message
    const other = options.find((name) => name !== option && new RegExp(`\\b${name}\\b`).test(message))
    problems.push(other === undefined ? { option, message } : { option, message, other })
  }
  return problems
}

/**
 * A Schema of options: a struct, or a struct with rules across its fields
 * (`Schema.filter`).
 *
 * @since 0.1.0
 */
export type Struct<A, I> =
  & Schema.Schema<A, I>
  & ({ readonly fields: Schema.Struct.Fields } | { readonly from: { readonly fields: Schema.Struct.Fields } })

const fieldsOf = (schema: { readonly fields: Schema.Struct.Fields } | { readonly from: unknown }) =>
  "fields" in schema ? schema.fields : (schema.from as { readonly fields: Schema.Struct.Fields }).fields

// The Schema of a field's value: the field itself, or what an `optional`/`optionalWith` wraps.
const valueOf = (field: Schema.Struct.Field): Schema.Schema.Any =>
  Schema.isSchema(field) ? field : (field as unknown as { readonly from: Schema.Schema.Any }).from

/**
 * The Schema of one field's value (what an `optional` or `optionalWith`
 * wraps), to read that option alone: from a flag, say.
 *
 * @example
 * ```ts
 * import { OptionSchema, Summarizer } from "@precis/core"
 * const timeout = OptionSchema.fieldOf(Summarizer.Options, "timeout") // Schema<Duration, DurationInput>
 * ```
 * @since 0.1.0
 */
export const fieldOf = <
  S extends Struct<Schema.Schema.Type<S>, Schema.Schema.Encoded<S>>,
  K extends keyof Schema.Schema.Type<S> & keyof Schema.Schema.Encoded<S> & string
>(
  schema: S,
  name: K
): Schema.Schema<NonNullable<Schema.Schema.Type<S>[K]>, NonNullable<Schema.Schema.Encoded<S>[K]>> =>
  valueOf(fieldsOf(schema)[name]!) as unknown as Schema.Schema<
    NonNullable<Schema.Schema.Type<S>[K]>,
    NonNullable<Schema.Schema.Encoded<S>[K]>
  >

const OPTIONS = { errors: "all", onExcessProperty: "ignore" } as const

/**
 * Decodes options with `schema` (every problem found, properties it does not
 * know ignored), failing with `onProblems` of the problems.
 *
 * @example
 * ```ts
 * import { OptionSchema } from "@precis/core"
 * import { Schema } from "effect"
 * const Options = Schema.Struct({ maxTokens: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => 4096 }) })
 * const decode = OptionSchema.decode(Options, (problems) => OptionSchema.describeProblems(problems))
 * decode({ maxTokens: 0 }) // Left("maxTokens must be an integer >= 1 (got 0)")
 * ```
 * @since 0.1.0
 */
export const decode = <A, I, E>(schema: Struct<A, I>, onProblems: (problems: ReadonlyArray<Problem>) => E) => {
  const names = Object.keys(fieldsOf(schema))
  const decodeEither = Schema.decodeUnknownEither(schema, OPTIONS)
  return (input: I): Either.Either<A, E> =>
    Either.mapLeft(decodeEither(input), (error) => onProblems(problemsOf(error, names)))
}

// ---------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------

/**
 * The variable of an option: `prefix` followed by its name in capitals, words
 * split at capitals and dots (`leafChunkTokens` -> `LEAF_CHUNK_TOKENS`,
 * `retry.maxAttempts` -> `RETRY_MAX_ATTEMPTS`).
 *
 * @since 0.1.0
 */
export const variable = (prefix: string, option: string): string =>
  `${prefix}${option.replace(/\./g, "_").replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}`

// Each field that reads from text, by its (dotted) name; a nested struct's fields too.
const textFields = (fields: Schema.Struct.Fields, path = ""): Array<[string, Schema.Schema<unknown, string>]> =>
  Object.entries(fields).flatMap(([name, field]): Array<[string, Schema.Schema<unknown, string>]> => {
    const value = valueOf(field)
    if ("fields" in value) return textFields((value as unknown as Schema.Struct<Schema.Struct.Fields>).fields, `${path}${name}.`)
    const fromText = text(value as Schema.Schema<unknown, unknown>)
    return fromText === undefined ? [] : [[`${path}${name}`, fromText]]
  })

const setPath = (target: Record<string, unknown>, path: ReadonlyArray<string>, value: unknown): void => {
  const [head, ...rest] = path
  if (rest.length === 0) {
    target[head!] = value
    return
  }
  const inner = (target[head!] ??= {}) as Record<string, unknown>
  setPath(inner, rest, value)
}

/**
 * The options of `schema` read from `Config`: each field that reads from text
 * (see {@link text}) from its {@link variable} under `prefix`, nested structs'
 * fields too (`PRECIS_OPENAI_RETRY_MAX_ATTEMPTS`). Only the variables that are
 * set give a value (the Schema's defaults apply when the options are
 * decoded), and the options they give are checked with `schema`: a problem is
 * an `InvalidData` error at its variable (a missing required option, a
 * `MissingData` one), its message saying what it must be
 * (`PRECIS_COMPACTION_THRESHOLD: must be a number in (0, 1] (got 5)`).
 *
 * @since 0.1.0
 */
export const config = <A, I>(prefix: string, schema: Struct<A, I>): Config.Config<I> => {
  const fields = textFields(fieldsOf(schema))
  const names = Object.keys(fieldsOf(schema))
  const read = fields.map(([option, fromText]) => {
    const name = variable(prefix, option)
    const decodeText = Schema.decodeEither(fromText)
    return Config.string(name).pipe(
      Config.mapOrFail((value) =>
        Either.mapLeft(decodeText(value), (error) =>
          ConfigError.InvalidData([], problemsOf(error)[0]?.message ?? ParseResult.TreeFormatter.formatErrorSync(error)))
      ),
      Config.option,
      Config.map((value) => [option, value] as const)
    )
  })
  const decodeEither = Schema.decodeUnknownEither(schema, OPTIONS)
  return Config.all(read).pipe(
    Config.map((values) => {
      const options: Record<string, unknown> = {}
      for (const [option, value] of values) {
        if (Option.isSome(value)) setPath(options, option.split("."), value.value)
      }
      return options as I
    }),
    Config.mapOrFail((options) =>
      Either.match(decodeEither(options), {
        onLeft: (error) =>
          Either.left(
            problemsOf(error, names)
              .map((problem): ConfigError.ConfigError => {
                const at = [variable(prefix, problem.option)]
                return problem.message === "is missing"
                  ? ConfigError.MissingData(at, `${at[0]} is missing`)
                  : ConfigError.InvalidData(at, messageOf(problem, (option) => variable(prefix, option)))
              })
              .reduce(ConfigError.And)
          ),
        onRight: () => Either.right(options)
      })
    )
  )
}
