/**
 * The compaction flags of `compact` and `watch`, derived in one loop from
 * their table: each the library option of the same meaning, read with its
 * Schema (bounds, messages), its default and variable (`PRECIS_COMPACTION_*`)
 * shown in its help; then the options a command runs with, the variables
 * under the flags. Adding a flag for a compaction option is one row.
 *
 * @internal
 */
import * as Options from "@effect/cli/Options"
import { CompactionOptions } from "@precis/compaction"
import { OptionConfig, OptionError, OptionSchema } from "@precis/core"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Record from "effect/Record"
import { CliError } from "./errors.js"
import { flag } from "./options.js"

/**
 * The compaction flags, each written once: the option it sets (the key), its
 * flag and what it says. Its Schema, bounds, default and variable are the
 * library option's (`CompactionOptions.Options`, `PRECIS_COMPACTION_*`); an
 * option with no flag is set by its variable alone. A flag of a boolean
 * option that defaults to true turns it off (`--no-also-line`).
 */
const compactionFlags = {
  budget: {
    flag: "budget",
    description: "the tokens the assembled context should fit in: the fresh tail then holds at most a quarter of them " +
      "(within 1000 and 32000), and a compaction brings the active context down to half of them " +
      "(PRECIS_COMPACTION_LOW_WATER)"
  },
  freshTailTurns: { flag: "fresh-tail", description: "newest turns never summarized" },
  leafChunkTokens: {
    flag: "leaf-chunk-tokens",
    description: "largest chunk of turns per leaf summary, in tokens; to assemble contexts of B tokens later, B/16 keeps " +
      "several leaves within one"
  },
  minFanIn: { flag: "min-fan-in", description: "fewest summaries condensed together" },
  maxFanIn: { flag: "max-fan-in", description: "most summaries condensed together" },
  concurrency: { flag: "concurrency", description: "condensation calls at once" },
  alsoLine: {
    flag: "no-also-line",
    description: "do not append to a summary the line \"Also: a; b; c\" listing the most important paths, commands, " +
      "errors, issue ids and results it dropped (by default they are appended when they fit its target size; " +
      "PRECIS_COMPACTION_ALSO_LINE=false does the same)"
  }
} as const satisfies { readonly [K in keyof CompactionOptions.Options]?: { readonly flag: string; readonly description: string } }

type CompactionFlag = keyof typeof compactionFlags

type Switch = "alsoLine"

// The flag of a numeric option, read with the option's Schema; its default shown after what it says.
const numberFlag = (option: Exclude<CompactionFlag, Switch>) => {
  const { description, flag: name } = compactionFlags[option]
  const fallback = option === "budget" ? "none" : CompactionOptions.defaults[option]
  return flag(
    name,
    "N",
    OptionSchema.fieldOf(CompactionOptions.Options, option),
    `${description} (default: ${OptionConfig.variable(CompactionOptions.prefix, option)}, else ${fallback})`
  )
}

// The flag of a boolean option that defaults to true: given, it sets the option to false.
const offFlag = (option: Switch): Options.Options<Option.Option<boolean>> =>
  Options.boolean(compactionFlags[option].flag).pipe(
    Options.withDescription(compactionFlags[option].description),
    Options.map((given) => (given ? Option.some(false) : Option.none()))
  )

/**
 * The compaction flags of `compact` and `watch`, one per row of
 * {@link compactionFlags}, keyed by the option each sets; the options no
 * flag or variable sets keep the library's defaults
 * (`CompactionOptions.defaults`), so `precis compact` compacts as
 * `CompactionManager.compact` does.
 */
export const compaction = Record.map(
  compactionFlags,
  (_, option): Options.Options<Option.Option<number | boolean>> =>
    option === "alsoLine" ? offFlag(option) : numberFlag(option)
)

/** The values of the {@link compaction} flags: each option, when its flag was given. */
export type CompactionFlags = { readonly [K in CompactionFlag]: Option.Option<number | boolean> }

/**
 * The compaction options: the `PRECIS_COMPACTION_*` variables (all of them,
 * read and checked by `CompactionOptions.config`: a bad one is a
 * `ConfigError` naming it), the {@link compaction} flags over them (a flag
 * wins), then checked together (a `CliError` naming the flags, or the
 * variables, a problem is about).
 */
export const compactionOptions = (
  flags: CompactionFlags
): Effect.Effect<CompactionOptions.Options, CliError | ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const fromVariables = yield* CompactionOptions.config
    const given = Record.toEntries(flags).flatMap(([option, value]) =>
      Option.match(value, { onNone: () => [], onSome: (set) => [[option, set] as const] })
    )
    const options: CompactionOptions.Options = { ...fromVariables, ...Object.fromEntries(given) }
    // A problem left is a rule across options: each is named as it was given, by its flag or its
    // variable (an option left to its default, by the flag that sets it, if any).
    const variable = (option: string) => OptionConfig.variable(CompactionOptions.prefix, option)
    const flagOf = (option: string) =>
      option in compactionFlags ? `--${compactionFlags[option as CompactionFlag].flag}` : undefined
    const nameOf = (option: string) =>
      given.some(([known]) => known === option)
        ? flagOf(option)!
        : option in fromVariables
        ? variable(option)
        : flagOf(option) ?? variable(option)
    return yield* Effect.mapError(
      Effect.as(CompactionOptions.resolveOptions(options), options),
      (error) => new CliError({ reason: OptionError.describeProblems(error.problems, nameOf) })
    )
  })
