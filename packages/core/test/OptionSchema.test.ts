import { assert, describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as OptionConfig from "../src/OptionConfig.js"
import * as OptionError from "../src/OptionError.js"
import * as OptionSchema from "../src/OptionSchema.js"

const messageOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown): string | undefined =>
  Either.match(Schema.decodeUnknownEither(schema)(input), {
    onLeft: (error) => OptionError.problemsOf(error)[0]?.message,
    onRight: () => undefined
  })

describe("OptionSchema fields", () => {
  it("int: a safe integer within its bounds, with a message saying what it got", () => {
    const schema = OptionSchema.int({ min: 1 })
    assert.strictEqual(messageOf(schema, 1), undefined)
    assert.strictEqual(messageOf(schema, 0), "must be an integer >= 1 (got 0)")
    assert.strictEqual(messageOf(schema, 1.5), "must be an integer >= 1 (got 1.5)")
    assert.strictEqual(messageOf(schema, Number.NaN), "must be an integer >= 1 (got NaN)")
    assert.strictEqual(messageOf(schema, Number.MAX_SAFE_INTEGER + 1), `must be an integer >= 1 (got ${2 ** 53})`)
    assert.strictEqual(messageOf(schema, "3"), `must be an integer >= 1 (got "3")`)
    assert.strictEqual(messageOf(OptionSchema.int({ min: 0, max: 9 }), 10), "must be an integer in [0, 9] (got 10)")
  })

  it("number: finite, within its bounds, either one excluded on demand", () => {
    const share = OptionSchema.number({ min: 0, max: 1, exclusiveMin: true })
    assert.strictEqual(messageOf(share, 1), undefined)
    assert.strictEqual(messageOf(share, 0), "must be a number in (0, 1] (got 0)")
    assert.strictEqual(messageOf(OptionSchema.number(), Number.POSITIVE_INFINITY), "must be a finite number (got Infinity)")
    assert.strictEqual(messageOf(OptionSchema.number({ min: 0 }), -1), "must be a number >= 0 (got -1)")
    const below = OptionSchema.number({ min: 0, max: 1, exclusiveMax: true })
    assert.strictEqual(messageOf(below, 0), undefined)
    assert.strictEqual(messageOf(below, 1), "must be a number in [0, 1) (got 1)")
  })

  it("duration: any DurationInput decoded; negative, unreadable, infinite or (when positive) zero refused", () => {
    const schema = OptionSchema.duration({ positive: true })
    assert.deepStrictEqual(Schema.decodeUnknownSync(schema)("2 minutes"), Duration.minutes(2))
    assert.deepStrictEqual(Schema.decodeUnknownSync(schema)(1500), Duration.millis(1500))
    assert.deepStrictEqual(Schema.decodeUnknownSync(schema)(Duration.seconds(3)), Duration.seconds(3))
    for (const bad of ["abc", "-1 seconds", -5, 0, "0 seconds", Duration.infinity, Number.NaN, null]) {
      expect(messageOf(schema, bad)).toMatch(/^must be a positive finite duration such as "30 seconds" \(got /)
    }
    assert.strictEqual(messageOf(OptionSchema.duration(), 0), undefined)
    assert.strictEqual(messageOf(OptionSchema.duration({ infinite: true }), Duration.infinity), undefined)
  })

  it("strings, URLs and literals", () => {
    assert.strictEqual(messageOf(OptionSchema.nonEmptyString, " "), `must be a non-empty string (got " ")`)
    assert.strictEqual(messageOf(OptionSchema.url, "https://api.openai.com/v1"), undefined)
    const rule = "must be an http(s) URL without user, password or #fragment"
    assert.strictEqual(messageOf(OptionSchema.url, "localhost:11434"), `${rule} (got "localhost:11434")`)
    // A URL that holds a secret is refused without showing it, whatever the secret's place.
    assert.strictEqual(messageOf(OptionSchema.url, "http://u:PW@host/v1"), `${rule} (got "http://***@host/v1")`)
    assert.strictEqual(messageOf(OptionSchema.url, "ftp://u:PW@host"), `${rule} (got "ftp://***@host")`)
    assert.strictEqual(messageOf(OptionSchema.url, "http://host/v1#k=PW"), `${rule} (got "http://host/v1#k=***")`)
    assert.strictEqual(messageOf(OptionSchema.url, "https://TOKEN@host/v1"), `${rule} (got "https://***@host/v1")`)
    // A query is allowed (Azure's api-version, a gateway's key): shown masked wherever the URL is shown.
    assert.isUndefined(messageOf(OptionSchema.url, "http://host/v1?api_key=K"))
    assert.strictEqual(messageOf(OptionSchema.literal("a", "b"), "c"), `must be one of a, b (got "c")`)
  })

  it("text: numbers in decimal, booleans as words, durations as seconds or with a unit", () => {
    const read = <A, I>(schema: Schema.Schema<A, I>, text: string) => Schema.decodeUnknownEither(OptionSchema.text(schema)!)(text)
    assert.deepStrictEqual(read(OptionSchema.int({ min: 1 }), " 12 "), Either.right(12))
    assert.deepStrictEqual(read(OptionSchema.number(), "1e3"), Either.right(1000))
    assert.deepStrictEqual(read(OptionSchema.boolean, "No"), Either.right(false))
    assert.deepStrictEqual(read(OptionSchema.boolean, "on"), Either.right(true))
    assert.deepStrictEqual(read(OptionSchema.duration(), "30"), Either.right(Duration.seconds(30)))
    assert.deepStrictEqual(read(OptionSchema.duration(), "500 millis"), Either.right(Duration.millis(500)))
    const bad = <A, I>(schema: Schema.Schema<A, I>, text: string) =>
      Either.match(read(schema, text), { onLeft: (e) => OptionError.problemsOf(e)[0]?.message, onRight: () => undefined })
    assert.strictEqual(bad(OptionSchema.int({ min: 1 }), "-3"), "must be an integer >= 1 (got -3)")
    assert.strictEqual(bad(OptionSchema.int({ min: 1 }), "12abc"), `must be an integer >= 1 (got "12abc")`)
    assert.strictEqual(bad(OptionSchema.boolean, "maybe"), `must be true or false (got "maybe")`)
    assert.isUndefined(OptionSchema.text(Schema.Number))
  })
})

const Options = Schema.Struct({
  minFanIn: Schema.optionalWith(OptionSchema.int({ min: 2 }), { default: () => 4 }),
  maxFanIn: Schema.optionalWith(OptionSchema.int({ min: 2 }), { default: () => 8 }),
  enabled: Schema.optionalWith(OptionSchema.boolean, { default: () => true }),
  model: OptionSchema.nonEmptyString,
  retry: Schema.optional(Schema.Struct({ maxAttempts: Schema.optional(OptionSchema.int({ min: 1 })) })),
  onEvent: Schema.optional(Schema.declare((u): u is () => void => typeof u === "function"))
}).pipe(
  Schema.filter((o) =>
    o.maxFanIn >= o.minFanIn || { path: ["maxFanIn"], message: `must be an integer >= minFanIn (got ${o.maxFanIn} < ${o.minFanIn})` }
  )
)

describe("OptionSchema.decode and OptionError", () => {
  const decode = OptionSchema.decode(Options, (problems) => problems)

  it("decode: the defaults applied, unknown properties ignored", () => {
    assert.deepStrictEqual(decode({ model: "m", extra: 1 } as Schema.Schema.Encoded<typeof Options>), Either.right({
      minFanIn: 4,
      maxFanIn: 8,
      enabled: true,
      model: "m"
    }))
  })

  it("one problem per option, nested ones dotted, rules across fields naming the other option", () => {
    assert.deepStrictEqual(
      decode({ model: "", minFanIn: 1, retry: { maxAttempts: 0 } }),
      Either.left([
        { option: "minFanIn", message: "must be an integer >= 2 (got 1)" },
        { option: "model", message: `must be a non-empty string (got "")` },
        { option: "retry.maxAttempts", message: "must be an integer >= 1 (got 0)" }
      ])
    )
    const inverted = decode({ model: "m", minFanIn: 5, maxFanIn: 3 })
    assert.deepStrictEqual(
      inverted,
      Either.left([{ option: "maxFanIn", message: "must be an integer >= minFanIn (got 3 < 5)", other: "minFanIn" }])
    )
    assert.deepStrictEqual(decode({} as Schema.Schema.Encoded<typeof Options>), Either.left([{ option: "model", message: "is missing" }]))
  })

  it("describeProblem names the option and the one it refers to", () => {
    const problem = { option: "maxFanIn", message: "must be an integer >= minFanIn (got 3 < 5)", other: "minFanIn" }
    assert.strictEqual(OptionError.describeProblem(problem), "maxFanIn must be an integer >= minFanIn (got 3 < 5)")
    const flag = (option: string) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
    assert.strictEqual(OptionError.describeProblem(problem, flag), "--max-fan-in must be an integer >= --min-fan-in (got 3 < 5)")
  })
})

describe("OptionConfig.config", () => {
  const read = (entries: Record<string, string>) =>
    Effect.either(
      Effect.withConfigProvider(OptionConfig.config("PRECIS_T_", Options), ConfigProvider.fromMap(new Map(Object.entries(entries))))
    )

  it("variable: the prefix and the name in capitals", () => {
    assert.strictEqual(OptionConfig.variable("PRECIS_COMPACTION_", "leafChunkTokens"), "PRECIS_COMPACTION_LEAF_CHUNK_TOKENS")
    assert.strictEqual(OptionConfig.variable("PRECIS_OPENAI_", "retry.maxAttempts"), "PRECIS_OPENAI_RETRY_MAX_ATTEMPTS")
    assert.strictEqual(OptionConfig.variable("PRECIS_SUMMARIZER_", "maxTokens"), "PRECIS_SUMMARIZER_MAX_TOKENS")
  })

  it.effect("reads each field that reads from text from its variable, nested ones too; only those set", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* read({ PRECIS_T_MODEL: "m" }), Either.right({ model: "m" }))
      assert.deepStrictEqual(
        yield* read({ PRECIS_T_MODEL: "m", PRECIS_T_MIN_FAN_IN: "3", PRECIS_T_ENABLED: "off", PRECIS_T_RETRY_MAX_ATTEMPTS: "2" }),
        Either.right({ model: "m", minFanIn: 3, enabled: false, retry: { maxAttempts: 2 } })
      )
    }))

  it.effect("refuses a bad variable, a rule broken across variables and a missing one, naming the variables", () =>
    Effect.gen(function*() {
      const message = (result: Either.Either<unknown, unknown>) => Either.isLeft(result) ? String(result.left) : "accepted"
      expect(message(yield* read({ PRECIS_T_MODEL: "m", PRECIS_T_MIN_FAN_IN: "1" }))).toBe(
        `(Invalid data at PRECIS_T_MIN_FAN_IN: "must be an integer >= 2 (got 1)")`
      )
      expect(message(yield* read({ PRECIS_T_MODEL: "m", PRECIS_T_MIN_FAN_IN: "5", PRECIS_T_MAX_FAN_IN: "3" }))).toBe(
        `(Invalid data at PRECIS_T_MAX_FAN_IN: "must be an integer >= PRECIS_T_MIN_FAN_IN (got 3 < 5)")`
      )
      expect(message(yield* read({ PRECIS_T_MODEL: "m", PRECIS_T_RETRY_MAX_ATTEMPTS: "-1" }))).toContain(
        `Invalid data at PRECIS_T_RETRY_MAX_ATTEMPTS: "must be an integer >= 1 (got -1)"`
      )
      expect(message(yield* read({}))).toContain("Missing data at PRECIS_T_MODEL")
    }))
})
