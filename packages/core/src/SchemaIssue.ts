/**
 * A failed decoding of user input as one sentence that names the field, what
 * it must be and what it got: `"limit" must be at most 50 (got 500)`, where
 * Effect's formatters print the Schema (`Expected at most this many hits,
 * actual 500` under a tree of the struct's type). A field's own message
 * (a `message` annotation, a filter that returns its reason) is kept as is.
 *
 * @example
 * ```ts
 * import { SchemaIssue } from "@precis/core"
 * import { Either, Schema } from "effect"
 * const Params = Schema.Struct({ limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 50))) })
 * const result = Schema.decodeUnknownEither(Params)({ limit: 500 })
 * if (Either.isLeft(result)) SchemaIssue.sentence(result.left) // "\"limit\" must be at most 50 (got 500)"
 * ```
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"

/**
 * One field that does not decode: its path (empty for the value itself) and
 * what is wrong, without the field's name (`must be a string (got 3)`, `is missing`).
 *
 * @since 0.1.0
 */
export interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const MAX_SHOWN = 60

/** A value as a message shows it: JSON, cut when long. */
const show = (value: unknown): string => {
  if (value === undefined) return "nothing"
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text
}

type JsonBounds = {
  readonly type?: unknown
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly exclusiveMaximum?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly minItems?: number
  readonly maxItems?: number
  readonly pattern?: string
}

const jsonBounds = (ast: AST.AST): JsonBounds =>
  Option.getOrElse(AST.getJSONSchemaAnnotation(ast), () => ({})) as JsonBounds

const literal = (value: AST.LiteralValue): string => typeof value === "bigint" ? `${value}` : JSON.stringify(value)

/** What a Schema takes, in words: `a string`, `an integer`, `one of "a", "b"`. */
export const expected = (ast: AST.AST): string => {
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "true or false"
    case "BigIntKeyword":
      return "an integer"
    case "UndefinedKeyword":
    case "VoidKeyword":
      return "absent"
    case "Literal":
      return literal(ast.literal)
    case "Enums":
      return `one of ${ast.enums.map(([, value]) => JSON.stringify(value)).join(", ")}`
    case "ObjectKeyword":
    case "TypeLiteral":
      return "an object"
    case "TupleType":
      return "an array"
    case "Union": {
      const members = ast.types.filter((member) => member._tag !== "UndefinedKeyword")
      if (members.every(AST.isLiteral)) return `one of ${members.map((member) => literal(member.literal)).join(", ")}`
      return Arr.dedupe(members.map(expected)).join(" or ")
    }
    case "Refinement":
      return jsonBounds(ast).type === "integer" ? "an integer" : expected(ast.from)
    case "Transformation":
      return expected(ast.from)
    case "Suspend":
      return expected(ast.f())
    default:
      return Option.getOrElse(AST.getTitleAnnotation(ast), () => "a valid value")
  }
}

/** What a refinement that failed on `actual` asks for: its bound, the one `actual` passes over. */
const bound = (ast: AST.Refinement, actual: unknown): string => {
  const js = jsonBounds(ast)
  const size = typeof actual === "string" || Array.isArray(actual) ? actual.length : undefined
  const unit = typeof actual === "string" ? "characters" : "items"
  if (typeof actual === "number") {
    if (js.type === "integer" && !Number.isInteger(actual)) return "an integer"
    if (js.maximum !== undefined && actual > js.maximum) return `at most ${js.maximum}`
    if (js.minimum !== undefined && actual < js.minimum) return `at least ${js.minimum}`
    if (js.exclusiveMaximum !== undefined && actual >= js.exclusiveMaximum) return `less than ${js.exclusiveMaximum}`
    if (js.exclusiveMinimum !== undefined && actual <= js.exclusiveMinimum) return `greater than ${js.exclusiveMinimum}`
  }
  if (size !== undefined) {
    const max = js.maxLength ?? js.maxItems
    const min = js.minLength ?? js.minItems
    const units = (n: number) => `${n} ${n === 1 ? unit.slice(0, -1) : unit}`
    if (max !== undefined && size > max) return `at most ${units(max)} long`
    if (min === 1 && size === 0) return "non-empty"
    if (min !== undefined && size < min) return `at least ${units(min)} long`
    if (js.pattern !== undefined) return `a string matching /${js.pattern}/`
  }
  return Option.getOrElse(
    Option.orElse(AST.getDescriptionAnnotation(ast), () => AST.getTitleAnnotation(ast)),
    () => `valid ${expected(ast.from)}`
  )
}

/** The message a field's own `message` annotation gives, if it has one. */
const annotated = (issue: ParseResult.ParseIssue): string | undefined =>
  "ast" in issue && Option.isSome(AST.getMessageAnnotation(issue.ast))
    ? ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message
    : undefined

const issuesOf = (issue: ParseResult.Composite): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]

/** In a union, the member that came nearest (its type matched, a refinement or a field failed): none when no type matched. */
const nearest = (issues: ReadonlyArray<ParseResult.ParseIssue>): ParseResult.ParseIssue | undefined =>
  issues.find((member) => member._tag !== "Type")

const walk = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>, out: Array<Problem>): void => {
  const own = annotated(issue)
  if (own !== undefined) {
    out.push({ path, message: own })
    return
  }
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])], out)
    case "Type":
      out.push({ path, message: issue.message ?? `must be ${expected(issue.ast)} (got ${show(issue.actual)})` })
      return
    case "Missing":
      out.push({ path, message: "is missing" })
      return
    case "Unexpected":
      out.push({ path, message: "is not a field it takes" })
      return
    case "Forbidden":
      out.push({ path, message: issue.message ?? "cannot be checked here" })
      return
    case "Refinement": {
      if (issue.kind === "From") {
        // The type under the refinement did not match: say the refined type (`an integer`, not `a number`).
        if (issue.issue._tag !== "Type" || issue.issue.message !== undefined) return walk(issue.issue, path, out)
        out.push({ path, message: `must be ${expected(issue.ast)} (got ${show(issue.actual)})` })
        return
      }
      // A filter over several fields points at the one it blames (`{ path, message }`).
      if (issue.issue._tag !== "Type") return walk(issue.issue, path, out)
      const reason = issue.issue.message
      out.push({ path, message: reason ?? `must be ${bound(issue.ast, issue.actual)} (got ${show(issue.actual)})` })
      return
    }
    case "Transformation": {
      const inner = issue.issue
      // A transformation's own failure (text that is no JSON, no number) says why in its message.
      if (issue.kind === "Transformation" && inner._tag === "Type" && inner.message !== undefined) {
        out.push({ path, message: `could not be read: ${inner.message}` })
        return
      }
      return walk(inner, path, out)
    }
    case "Composite": {
      const issues = issuesOf(issue)
      if (AST.isUnion(issue.ast)) {
        const member = nearest(issues)
        if (member !== undefined) return walk(member, path, out)
        out.push({ path, message: `must be ${expected(issue.ast)} (got ${show(issue.actual)})` })
        return
      }
      for (const inner of issues) walk(inner, path, out)
      return
    }
  }
}

/**
 * Every field that does not decode, the first problem of each.
 *
 * @since 0.1.0
 */
export const problems = (error: ParseResult.ParseError | ParseResult.ParseIssue): ReadonlyArray<Problem> => {
  const out: Array<Problem> = []
  walk(ParseResult.isParseError(error) ? error.issue : error, [], out)
  const seen = new Set<string>()
  return out.filter((problem) => {
    const key = pathText(problem.path)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** A path as a field's name: `retry.maxAttempts`, `items[2].id`. */
const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) => typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`).join("")

/**
 * A problem as text: `"limit" must be at most 50 (got 500)`; the value
 * itself is named `subject`.
 *
 * @since 0.1.0
 */
export const describe = (problem: Problem, subject = "the value"): string =>
  `${problem.path.length === 0 ? subject : JSON.stringify(pathText(problem.path))} ${problem.message}`

/**
 * A failed decoding as one line: each field's problem (see {@link describe}),
 * `; ` between them.
 *
 * @since 0.1.0
 */
export const sentence = (error: ParseResult.ParseError | ParseResult.ParseIssue, subject?: string): string =>
  problems(error).map((problem) => describe(problem, subject)).join("; ")
