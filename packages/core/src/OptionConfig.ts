/**
 * Options read from `Config` with their Schema: each field from its own
 * variable, the prefix followed by the field's name in capitals
 * (`PRECIS_COMPACTION_` and `leafChunkTokens` give
 * `PRECIS_COMPACTION_LEAF_CHUNK_TOKENS`), read from text as a flag is
 * (`OptionSchema.text`) and checked with the same Schema.
 *
 * @example
 * ```ts
 * import { OptionConfig, OptionSchema } from "@precis/core"
 * import { Schema } from "effect"
 * const Options = Schema.Struct({
 *   batchSize: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => 20 })
 * })
 * const config = OptionConfig.config("PRECIS_SLEEP_", Options) // reads PRECIS_SLEEP_BATCH_SIZE
 * ```
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { fieldsOf, OPTIONS, valueOf } from "./internal/optionFields.js"
import { messageOf, problemsOf } from "./OptionError.js"
import { type Struct, text } from "./OptionSchema.js"

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
