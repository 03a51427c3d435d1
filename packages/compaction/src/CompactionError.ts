/**
 * What stops a compaction besides the store's failures and bad options:
 * {@link ProviderUnavailableError}. It carries {@link TypeId};
 * {@link isCompactionError} tells it from any other value. The engine fails
 * with it where it stops, so the manager reports it as it is.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * The mark of a compaction error.
 *
 * @since 0.1.0
 * @category Type Ids
 */
export const TypeId = "~@precis/compaction/CompactionError"

/**
 * @since 0.1.0
 * @category Type Ids
 */
export type TypeId = typeof TypeId

/**
 * Whether a value is a compaction error.
 *
 * @example
 * ```ts
 * import { CompactionError } from "@precis/compaction"
 * const stopped = new CompactionError.ProviderUnavailableError({
 *   sessionId: "s", reason: "UnauthorizedError", detail: "HTTP 401", written: 0
 * })
 * CompactionError.isCompactionError(stopped) // true
 * CompactionError.isCompactionError(new Error("HTTP 401")) // false
 * ```
 * @since 0.1.0
 * @category Guards
 */
export const isCompactionError = (u: unknown): u is CompactionError => Predicate.hasProperty(u, TypeId)

/**
 * The provider failed in a way that will not heal (refused credentials, an
 * unknown model, a server that refuses connections: see
 * `ProviderError.isPermanent`), so compaction stopped instead of storing a
 * fallback truncation for every chunk. What was written before stays; a rerun
 * once the configuration is fixed goes on from there. `reason` is the last
 * provider error's tag (`UnauthorizedError`, `TransportError`, ...) and
 * `detail` its message.
 *
 * @since 0.1.0
 * @category Errors
 */
export class ProviderUnavailableError extends Schema.TaggedError<ProviderUnavailableError>(
  "@precis/compaction/ProviderUnavailableError"
)("ProviderUnavailableError", {
  sessionId: Schema.String,
  reason: Schema.String,
  detail: Schema.String,
  /** Summaries written by this run before it stopped. */
  written: Schema.Int
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
  override get message(): string {
    return `compaction of session ${this.sessionId} stopped: the provider fails in a way that will not heal ` +
      `(${this.reason}: ${this.detail}); ${this.written} summaries were written before it stopped`
  }
}

/**
 * Every compaction error.
 *
 * @since 0.1.0
 * @category Errors
 */
export type CompactionError = ProviderUnavailableError
