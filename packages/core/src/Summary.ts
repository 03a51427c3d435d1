/**
 * The result of one Summarizer call, and the tier bookkeeping.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The escalation tier that produced a summary.
 *
 * @since 0.1.0
 */
export const Tier = Schema.Literal("normal", "aggressive", "fallback")

/**
 * @since 0.1.0
 */
export type Tier = typeof Tier.Type

/**
 * Every tier, in escalation order.
 *
 * @since 0.1.0
 */
export const tiers: ReadonlyArray<Tier> = Tier.literals

/**
 * What a Summarizer call returns. `text` is never empty; `inputTokens` is the
 * estimate of the material (not of the prompt), `outputTokens` that of `text`.
 *
 * @since 0.1.0
 */
export class Summary extends Schema.Class<Summary>("@precis/core/Summary")({
  text: Schema.NonEmptyString,
  tier: Tier,
  inputTokens: Schema.Int.pipe(Schema.nonNegative()),
  outputTokens: Schema.Int.pipe(Schema.nonNegative())
}) {}

/**
 * How many calls ended in each tier.
 *
 * @since 0.1.0
 */
export const TierCounts = Schema.Struct({
  normal: Schema.Int.pipe(Schema.nonNegative()),
  aggressive: Schema.Int.pipe(Schema.nonNegative()),
  fallback: Schema.Int.pipe(Schema.nonNegative())
})

/**
 * @since 0.1.0
 */
export type TierCounts = typeof TierCounts.Type

/**
 * Counts of zero in every tier.
 *
 * @since 0.1.0
 */
export const emptyTierCounts: TierCounts = { normal: 0, aggressive: 0, fallback: 0 }

/**
 * Adds one call to `tier`.
 *
 * @since 0.1.0
 */
export const incrementTier = (counts: TierCounts, tier: Tier): TierCounts => ({ ...counts, [tier]: counts[tier] + 1 })
