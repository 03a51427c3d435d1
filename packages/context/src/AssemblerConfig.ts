/**
 * The config of an `Assembler`: one Schema with every setting's bounds,
 * default and description, decoded once when the assembler's layer is built
 * (`Assembler.layer(config)`, or `Assembler.layerConfig()` from the
 * `PRECIS_ASSEMBLER_*` variables). An assembly takes only its budget.
 * Adding a setting is one field here.
 *
 * @example
 * ```ts
 * import { AssemblerConfig } from "@precis/context"
 * AssemblerConfig.decode({ lowWater: 0.9, highWater: 0.8 })
 * // Left: invalid context options: lowWater must be a number <= highWater (got 0.9 > 0.8)
 * ```
 * @since 0.1.0
 */
import { OptionConfig, OptionSchema } from "@precis/core"
import type * as EffectConfig from "effect/Config"
import * as Schema from "effect/Schema"
import * as Condenser from "./Condenser.js"
import { InvalidContextOptionsError } from "./ContextError.js"
import * as Expansion from "./Expansion.js"
import * as Layout from "./Layout.js"

/**
 * The defaults of {@link Config}'s marks and placement, and the frames an
 * assembler keeps (the least recently assembled session's is forgotten past
 * `maxFrames`).
 *
 * @since 0.1.0
 */
export const defaults = {
  lowWater: 0.25,
  highWater: 0.5,
  turnShare: 0.05,
  statePlacement: "frame" as Layout.StatePlacement,
  maxFrames: 256
} as const

/**
 * The low-water mark of a context assembled once (`precis context`): no turn
 * follows it, so it fills what the expansion's default reserve leaves (0.85).
 *
 * @since 0.1.0
 */
export const oneShotLowWater = 1 - Expansion.defaults.reserve

/**
 * The marks of a context assembled once: filled to {@link oneShotLowWater},
 * the high mark the budget itself, and a session whose turns all fit the
 * budget given whole, verbatim (`whole`). Spread it into the config:
 * `Assembler.layerReadOnly({ ...AssemblerConfig.oneShot })`.
 *
 * @since 0.1.0
 */
export const oneShot = { lowWater: oneShotLowWater, highWater: 1, whole: true } as const

const share = OptionSchema.number({ min: 0, max: 1, exclusiveMin: true })

/**
 * How a rebuilt context is filled from the summary DAG (see `Expansion`):
 * its `turns` and `maskMinTokens`, and `reserve`, the share of the low-water
 * mark left unfilled (default 0 here).
 *
 * @since 0.1.0
 */
export const Expand = Schema.Struct({
  reserve: Schema.optionalWith(Expansion.Reserve, { default: () => 0 }).annotations({
    description: "the share of the low-water mark an expansion leaves unfilled"
  }),
  turns: Schema.optional(OptionSchema.boolean).annotations({
    description: "whether the newest leaves are also shown as their turns"
  }),
  maskMinTokens: Schema.optional(OptionSchema.int({ min: 0 })).annotations({
    description: "an expanded turn is shown verbatim only when that adds at most this many tokens"
  })
})

/**
 * The assembler's config, its bounds and defaults (the defaults are
 * measured: see the "what an agent pays" loops of `pnpm bench loop`):
 *
 * | setting | bounds | default |
 * |---|---|---|
 * | `lowWater` | (0, 1], at most `highWater` | 0.25: a rebuild brings the context down to this share of the budget |
 * | `highWater` | (0, 1] | 0.5: past this share of the budget the context is rebuilt |
 * | `turnShare` | (0, 1] | 0.05: a turn that enters takes at most this share of the budget |
 * | `whole` | a boolean | false: a session whose turns all fit the budget is given whole, verbatim |
 * | `statePlacement` | `"frame"` or `"end"` | `"frame"`: the header after the summaries; `"end"`: last, refreshed every assembly |
 * | `system` | a string | none: system text pinned first (counts against the budget) |
 * | `recallNote` | a boolean | false: the summaries followed by `Layout.recallNote` |
 * | `compact` | a boolean | true: a rebuild may compact the session (never when read-only) |
 * | `sessionState` | a boolean | true: the session-state header is in the context |
 * | `stateShare` | [0, 1) | 0.15: the share of the budget the header may take |
 * | `expand` | a boolean or {@link Expand} | true: a rebuilt context is filled from the DAG |
 * | `mask`, `forget`, `summarize` | `Condenser.StageOptions` | the stages' own |
 *
 * @since 0.1.0
 */
export const Config = Schema.Struct({
  lowWater: Schema.optionalWith(share, { default: () => defaults.lowWater }).annotations({
    description: "the share of the budget a rebuild brings the context down to"
  }),
  highWater: Schema.optionalWith(share, { default: () => defaults.highWater }).annotations({
    description: "the share of the budget past which the context is rebuilt"
  }),
  turnShare: Schema.optionalWith(share, { default: () => defaults.turnShare }).annotations({
    description: "the share of the budget a turn takes at most when it enters (cut in its middle past it)"
  }),
  whole: Schema.optionalWith(OptionSchema.boolean, { default: () => false }).annotations({
    description: "whether a session whose turns all fit the budget is given whole, verbatim"
  }),
  statePlacement: Schema.optionalWith(OptionSchema.literal("frame", "end"), { default: () => defaults.statePlacement })
    .annotations({ description: "where the session-state header sits: after the summaries, or last" }),
  system: Schema.optionalWith(Schema.String, { default: () => "" }).annotations({
    description: "system text pinned first (it counts against the budget)"
  }),
  recallNote: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
    description: "whether the summaries are followed by the note on the recall tools"
  }),
  compact: Schema.optionalWith(OptionSchema.boolean, { default: () => true }).annotations({
    description: "whether a rebuild may compact the session (write summaries); never when read-only"
  }),
  sessionState: Schema.optionalWith(OptionSchema.boolean, { default: () => true }).annotations({
    description: "whether the session-state header is in the context"
  }),
  stateShare: Schema.optionalWith(OptionSchema.number({ min: 0, max: 1, exclusiveMax: true }), {
    default: () => Layout.defaultStateShare
  }).annotations({ description: "the share of the budget the session-state header may take" }),
  expand: Schema.optionalWith(Schema.Union(Schema.Boolean, Expand), { default: () => true }).annotations({
    description: "whether (and how) a rebuilt context is filled from the summary DAG up to the low-water mark"
  }),
  ...Condenser.StageOptions.fields
}).pipe(
  Schema.filter((config) =>
    config.lowWater <= config.highWater || {
      path: ["lowWater"],
      message: `must be a number <= highWater (got ${config.lowWater} > ${config.highWater})`
    }
  )
)

/**
 * The config as given: any of {@link Config}'s settings.
 *
 * @since 0.1.0
 */
export interface Config extends Schema.Schema.Encoded<typeof Config> {}

/**
 * The config with every default applied, checked.
 *
 * @since 0.1.0
 */
export interface Resolved extends Schema.Schema.Type<typeof Config> {}

/**
 * Applies the defaults to a config and checks it against {@link Config}:
 * every problem found, in an `InvalidContextOptionsError`.
 *
 * @since 0.1.0
 */
export const decode = OptionSchema.decode(Config, (problems) => new InvalidContextOptionsError({ problems }))

/**
 * The prefix of the variables {@link config} reads.
 *
 * @since 0.1.0
 */
export const prefix = "PRECIS_ASSEMBLER_"

/**
 * {@link Config} read from `Config`, each setting from its variable
 * (`PRECIS_ASSEMBLER_LOW_WATER`, `PRECIS_ASSEMBLER_FORGET_DECAY`, ...; `expand`
 * is set in code only), each checked against {@link Config}.
 *
 * @since 0.1.0
 */
export const config: EffectConfig.Config<Config> = OptionConfig.config(prefix, Config)
