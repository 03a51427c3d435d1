/**
 * The result of one Summarizer call, and the tier bookkeeping.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Fact } from "./FactCheck.js"

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
 * Why a tier gave up and the call went on to the next one:
 * - `reason`: the failed provider call's error tag (`UnauthorizedError`,
 *   `TransportError`, ...), or `Timeout` (the tier's deadline passed), `Defect`
 *   (the provider threw), `BlankReply`, `NotShorter` (a reply not shorter
 *   than its input, at either tier), `EchoedPrompt` (a reply that repeats the
 *   prompt's instructions) or `OverMaxTokens` (an aggressive reply longer than
 *   the `maxTokens` it was asked for);
 * - `message`: a readable, secret-free description;
 * - `permanent`: the failure will not heal by retrying (refused credentials, an
 *   unknown model or endpoint, a server that refuses connections), so more calls
 *   are pointless until the configuration changes.
 *
 * @since 0.1.0
 */
export const Escalation = Schema.Struct({
  tier: Schema.Literal("normal", "aggressive"),
  reason: Schema.String,
  message: Schema.String,
  permanent: Schema.Boolean
})

/**
 * @since 0.1.0
 */
export type Escalation = typeof Escalation.Type

/**
 * What a Summarizer call returns. `text` is never empty; `inputTokens` is the
 * estimate of the material (not of the prompt), `outputTokens` that of `text`;
 * `escalations` says why each tier before `tier` gave up (empty for `normal`);
 * `dropped` lists the must-survive keys of the material that `text` does not
 * contain, most important first (see the `FactCheck` module; empty when
 * decoded from a summary written before it existed).
 *
 * @since 0.1.0
 */
export class Summary extends Schema.Class<Summary>("@precis/core/Summary")({
  text: Schema.NonEmptyString,
  tier: Tier,
  inputTokens: Schema.Int.pipe(Schema.nonNegative()),
  outputTokens: Schema.Int.pipe(Schema.nonNegative()),
  escalations: Schema.optionalWith(Schema.Array(Escalation), { default: () => [] }),
  /** @since 0.1.0 */
  dropped: Schema.optionalWith(Schema.Array(Fact), { default: () => [] }),
  /**
   * The keys of the `Also:` line at the end of `text` (`AlsoLine.append`), as data: kept with
   * the summary in the store, so that a condensation takes its children's keys without reading their text.
   *
   * @since 0.1.0
   */
  alsoKeys: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
}) {
  /**
   * Whether the call fell back only because the provider failed in a way that
   * will not heal (see {@link Escalation}): the last escalation is permanent.
   *
   * @since 0.1.0
   */
  get failedPermanently(): boolean {
    return this.tier === "fallback" && this.escalations.at(-1)?.permanent === true
  }
}

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
