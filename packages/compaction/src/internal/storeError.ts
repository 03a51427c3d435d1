/**
 * Turning what a driver fails with into a {@link StoreError}, once.
 *
 * @internal
 */
import { StoreError } from "../MemoryStore.js"

// The readable part of a failure: an SqlError's inner driver error when there is one.
const describe = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null) {
    if ("cause" in cause && cause.cause instanceof Error) return cause.cause.message
    if (cause instanceof Error) return cause.message
  }
  return String(cause)
}

/**
 * A failure of `operation` as a `StoreError` naming `filename` when given (a
 * `StoreError` passes through, given the filename when it has none).
 */
export const storeError = (operation: string, filename?: string) => (error: unknown): StoreError => {
  if (error instanceof StoreError) {
    return filename === undefined || error.filename !== undefined ? error : new StoreError({ operation: error.operation, reason: error.reason, cause: error.cause, filename })
  }
  return new StoreError({ operation, reason: describe(error), cause: error, ...(filename === undefined ? {} : { filename }) })
}

/** A value that cannot be stored: `reason` followed by what went wrong. */
export const invalidInput = (operation: string, reason: string, cause: unknown): StoreError =>
  new StoreError({ operation, reason: `${reason}: ${describe(cause)}`, cause })
