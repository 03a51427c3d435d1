/**
 * A failed decoding of user input as one sentence naming the field, what it
 * must be and what it got, never the Schema's type printed as a tree.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "../src/SchemaIssue.js"

const sentence = <A, I>(schema: Schema.Schema<A, I>, input: unknown, subject?: string): string => {
  const result = Schema.decodeUnknownEither(schema)(input, { errors: "all", onExcessProperty: "error" })
  if (Either.isRight(result)) return assert.fail(`${JSON.stringify(input)} decoded`)
  return SchemaIssue.sentence(result.left, subject)
}

const Params = Schema.Struct({
  query: Schema.String,
  limit: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 100)).annotations({ description: "at most this many hits (default 10)" })
  ),
  of: Schema.optional(Schema.Literal("children", "turns")),
  offset: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  ratio: Schema.optional(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(1))),
  name: Schema.optional(Schema.String.pipe(Schema.minLength(2), Schema.maxLength(4))),
  tags: Schema.optional(Schema.Array(Schema.String).pipe(Schema.maxItems(2))),
  retry: Schema.optional(Schema.Struct({ attempts: Schema.Int.pipe(Schema.positive()) })),
  when: Schema.optional(Schema.Union(Schema.Number, Schema.String))
})

describe("SchemaIssue", () => {
  it("names the field, the bound it passes over and the value", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ query: "x", limit: 500 }, "\"limit\" must be at most 100 (got 500)"],
      [{ query: "x", limit: 0 }, "\"limit\" must be at least 1 (got 0)"],
      [{ query: "x", limit: 2.5 }, "\"limit\" must be an integer (got 2.5)"],
      [{ query: "x", limit: "5" }, "\"limit\" must be an integer (got \"5\")"],
      [{ query: 3 }, "\"query\" must be a string (got 3)"],
      [{}, "\"query\" is missing"],
      [{ query: "x", of: "parents" }, "\"of\" must be one of \"children\", \"turns\" (got \"parents\")"],
      [{ query: "x", offset: -1 }, "\"offset\" must be at least 0 (got -1)"],
      [{ query: "x", ratio: 0 }, "\"ratio\" must be greater than 0 (got 0)"],
      [{ query: "x", ratio: 5 }, "\"ratio\" must be at most 1 (got 5)"],
      [{ query: "x", name: "a" }, "\"name\" must be at least 2 characters long (got \"a\")"],
      [{ query: "x", name: "abcdef" }, "\"name\" must be at most 4 characters long (got \"abcdef\")"],
      [{ query: "", name: "abcdef" }, "\"name\" must be at most 4 characters long (got \"abcdef\")"],
      [{ query: "x", tags: ["a", "b", "c"] }, "\"tags\" must be at most 2 items long (got [\"a\",\"b\",\"c\"])"],
      [{ query: "x", tags: ["a", 1] }, "\"tags[1]\" must be a string (got 1)"],
      [{ query: "x", retry: { attempts: 0 } }, "\"retry.attempts\" must be greater than 0 (got 0)"],
      [{ query: "x", when: true }, "\"when\" must be a number or a string (got true)"],
      [{ query: "x", extra: 1 }, "\"extra\" is not a field it takes"],
      [{ query: 1, limit: 1000 }, "\"query\" must be a string (got 1); \"limit\" must be at most 100 (got 1000)"],
      [[1], "the value must be an object (got [1])"]
    ]
    for (const [input, expected] of cases) assert.strictEqual(sentence(Params, input), expected, JSON.stringify(input))
  })

  it("reads JSON text as one sentence too, the subject named; long values are cut", () => {
    const Payload = Schema.parseJson(Schema.Struct({ hook_event_name: Schema.String, session_id: Schema.String }))
    expect(sentence(Payload, "{", "the hook payload")).toMatch(/^the hook payload could not be read: .*JSON/)
    assert.strictEqual(sentence(Payload, "[]", "the hook payload"), "the hook payload must be an object (got [])")
    assert.strictEqual(
      sentence(Payload, JSON.stringify({ hook_event_name: 3, session_id: "s" })),
      "\"hook_event_name\" must be a string (got 3)"
    )
    const long = sentence(Schema.Struct({ n: Schema.Number }), { n: "x".repeat(500) })
    assert.isBelow(long.length, 100)
    for (const text of [sentence(Payload, "{"), long]) expect(text).not.toMatch(/\n|readonly|└─|, actual/)
  })

  it("says a non-empty string is wanted in words, and a bound of one in the singular", () => {
    assert.strictEqual(sentence(Schema.Struct({ id: Schema.NonEmptyString }), { id: "" }), "\"id\" must be non-empty (got \"\")")
    assert.strictEqual(
      sentence(Schema.Struct({ c: Schema.String.pipe(Schema.maxLength(1)) }), { c: "ab" }),
      "\"c\" must be at most 1 character long (got \"ab\")"
    )
  })

  it("keeps a field's own message: a filter's reason, a message annotation", () => {
    const NoNul = Schema.String.pipe(Schema.filter((s) => s.includes("\u0000") ? "must not hold U+0000 (NUL)" : true))
    assert.strictEqual(sentence(Schema.Struct({ content: NoNul }), { content: "a\u0000" }), "\"content\" must not hold U+0000 (NUL)")
    const Sized = Schema.Int.annotations({ message: () => "must be a whole number of bytes" })
    assert.strictEqual(sentence(Schema.Struct({ size: Sized }), { size: 1.5 }), "\"size\" must be a whole number of bytes")
  })
})
