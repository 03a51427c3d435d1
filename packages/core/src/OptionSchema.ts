/**
 * Options as Schemas. An options type of precis is a `Schema.Struct` whose
 * fields carry their bounds and defaults: this module holds the fields they
 * are made of ({@link int}, {@link number}, {@link boolean}, {@link duration},
 * {@link nonEmptyString}, {@link url}, {@link literal}), each failing with a
 * message saying what it must be and what it got
 * (`must be an integer >= 1 (got -3)`) and knowing how to read itself from
 * text ({@link text}: `"30"`, `"yes"`, `"2 minutes"`), and {@link decode},
 * which applies the defaults and turns a failure into one problem per option
 * (`OptionError`). `OptionConfig` reads the same Schema from `Config`, so the
 * library, its variables and the CLI agree on names, bounds and defaults.
 *
 * @example
 * ```ts
 * import { OptionError, OptionSchema } from "@precis/core"
 * import { Schema } from "effect"
 * const Options = Schema.Struct({
 *   batchSize: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => 20 })
 * })
 * class InvalidBatchOptionsError extends OptionError.InvalidOptions("InvalidBatchOptionsError", "batch") {}
 * const decodeOptions = OptionSchema.decode(Options, (problems) => new InvalidBatchOptionsError({ problems }))
 * decodeOptions({ batchSize: 0 }) // Left: batchSize must be an integer >= 1 (got 0)
 * ```
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { fieldsOf, OPTIONS, valueOf } from "./internal/optionFields.js"
import { type Problem, problemsOf } from "./OptionError.js"
import * as Redact from "./Redact.js"

// How a field is read from text (a variable, a flag): the value handed to the field's Schema.
const TextAnnotationId: unique symbol = Symbol.for("@precis/core/OptionSchema/Text")

// A value as a message shows it; a URL without its secrets, whatever option it is given to.
const show = (value: unknown): string =>
  typeof value === "string"
    ? JSON.stringify(Redact.url(value))
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
  readonly exclusiveMax?: boolean | undefined
}): string => {
  const { exclusiveMax = false, exclusiveMin = false, max, min } = options
  if (min !== undefined && max !== undefined) {
    return `in ${exclusiveMin ? "(" : "["}${min}, ${max}${exclusiveMax ? ")" : "]"}`
  }
  if (min !== undefined) return `${exclusiveMin ? ">" : ">="} ${min}`
  return max === undefined ? "" : `${exclusiveMax ? "<" : "<="} ${max}`
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
 * `exclusiveMin`, `max` with `exclusiveMax`): `must be a number in (0, 1]
 * (got 5)`. Read from decimal text.
 *
 * @since 0.1.0
 */
export const number = (options: {
  readonly min?: number | undefined
  readonly max?: number | undefined
  readonly exclusiveMin?: boolean | undefined
  readonly exclusiveMax?: boolean | undefined
} = {}): Schema.Schema<number> => {
  const { exclusiveMax = false, exclusiveMin = false, max, min } = options
  const bounds = range(options)
  return field(
    Schema.Number.pipe(
      Schema.filter((n) =>
        Number.isFinite(n) &&
        (min === undefined || (exclusiveMin ? n > min : n >= min)) &&
        (max === undefined || (exclusiveMax ? n < max : n <= max))
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

// An http(s) URL without credentials (they would be shown wherever the URL is, and fetch
// refuses them) and without a fragment (never sent).
const isHttpUrl = (s: string): boolean => {
  if (!URL.canParse(s)) return false
  const parsed = new URL(s)
  return /^https?:$/.test(parsed.protocol) && parsed.username === "" && parsed.password === "" &&
    parsed.hash === "" && !s.includes("#")
}

/**
 * An absolute `http:` or `https:` URL, without a user or password (give a key
 * as a key) and without a `#fragment`. A query is allowed (`?api-version=...`);
 * messages show its values masked (`Redact.url`).
 *
 * @since 0.1.0
 */
export const url: Schema.Schema<string> = field(
  Schema.String.pipe(Schema.filter(isHttpUrl)),
  "an http(s) URL without user, password or #fragment",
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

/**
 * A Schema of options: a struct, or a struct with rules across its fields
 * (`Schema.filter`).
 *
 * @since 0.1.0
 */
export type Struct<A, I> =
  & Schema.Schema<A, I>
  & ({ readonly fields: Schema.Struct.Fields } | { readonly from: { readonly fields: Schema.Struct.Fields } })

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

/**
 * Decodes options with `schema` (every problem found, properties it does not
 * know ignored), failing with `onProblems` of the problems.
 *
 * @example
 * ```ts
 * import { OptionError, OptionSchema } from "@precis/core"
 * import { Schema } from "effect"
 * const Options = Schema.Struct({ maxTokens: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => 4096 }) })
 * const decode = OptionSchema.decode(Options, (problems) => OptionError.describeProblems(problems))
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

