/**
 * The errors of the store port: {@link StoreError} (an operation failed) and
 * {@link TurnConflictError} (a turn to append contradicts a stored one).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

// The readable part of a failure: an SqlError's inner driver error when there is one.
const describe = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null) {
    if ("cause" in cause && cause.cause instanceof Error) return cause.cause.message
    if (cause instanceof Error) return cause.message
  }
  return String(cause)
}

/**
 * A store operation failed; `cause` is the underlying `SqlError` when there is
 * one. `operation` names the port and method (`TurnStore.appendTurns`), or
 * `Store.open` / `Store.migrate` for opening a store. A store opened on a file
 * names it in `filename`; the message then starts with the file
 * (`other.db: not a precis store ...`), else with the operation
 * (`DagStore.insertLeaf: ...`).
 *
 * @since 0.1.0
 */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly reason: string
  readonly cause?: unknown
  readonly filename?: string
}> {
  /**
   * A failure of `operation` as a `StoreError` naming `filename` when given:
   * the reason is the driver's own message (an `SqlError`'s inner error). A
   * `StoreError` passes through, given the filename when it has none.
   *
   * @since 0.1.0
   */
  static fromCause(cause: unknown, operation: string, filename?: string): StoreError {
    if (cause instanceof StoreError) {
      return filename === undefined || cause.filename !== undefined
        ? cause
        : new StoreError({ operation: cause.operation, reason: cause.reason, cause: cause.cause, filename })
    }
    return new StoreError({
      operation,
      reason: describe(cause),
      cause,
      ...(filename === undefined ? {} : { filename })
    })
  }

  /**
   * A value of `operation` that cannot be stored: `reason` followed by what
   * went wrong (`cause`).
   *
   * @since 0.1.0
   */
  static invalidInput(operation: string, reason: string, cause: unknown): StoreError {
    return new StoreError({ operation, reason: `${reason}: ${describe(cause)}`, cause })
  }

  /** @since 0.1.0 */
  override get message(): string {
    return this.filename === undefined ? `${this.operation}: ${this.reason}` : `${this.filename}: ${this.reason}`
  }
}

/**
 * A turn to append has the `id` of a turn already in the session (or of an
 * earlier turn of the same append) but a different role or content. Skipping
 * it, as an identical repeat is skipped, would lose it silently.
 *
 * @example
 * ```ts
 * import { StoreError } from "@precis/store"
 * new StoreError.TurnConflictError({ sessionId: "s", turnId: "t7", field: "content" }).message
 * // 'turn "t7" is already in session s with a different content'
 * ```
 * @since 0.1.0
 */
export class TurnConflictError extends Data.TaggedError("TurnConflictError")<{
  readonly sessionId: string
  readonly turnId: string
  /** What differs: the role, or (with the same role) the content. */
  readonly field: "role" | "content"
}> {
  /** @since 0.1.0 */
  override get message(): string {
    return `turn ${JSON.stringify(this.turnId)} is already in session ${this.sessionId} with a different ${this.field}`
  }
}
