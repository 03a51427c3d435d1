/**
 * The errors of the store port: {@link StoreError} (an operation failed, for
 * one of the {@link Reason}s) and {@link TurnConflictError} (a turn to append
 * contradicts a stored one). Both carry {@link TypeId}; {@link isStoreError}
 * tells them from any other value.
 *
 * @example
 * ```ts
 * import { StoreError } from "@precis/store"
 * import { Effect } from "effect"
 * declare const open: Effect.Effect<void, StoreError.StoreError>
 * open.pipe(Effect.catchIf((e) => e.reason === "Locked", () => Effect.logWarning("the store is busy")))
 * ```
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * The mark every error of the store port carries, whatever its class.
 *
 * @since 0.1.0
 * @category Type Ids
 */
export const TypeId = "~@precis/store/StoreError"

/**
 * @since 0.1.0
 * @category Type Ids
 */
export type TypeId = typeof TypeId

/**
 * Whether a value is an error of the store port ({@link StoreError} or
 * {@link TurnConflictError}).
 *
 * @example
 * ```ts
 * import { StoreError } from "@precis/store"
 * StoreError.isStoreError(new StoreError.StoreError({ operation: "Store.open", reason: "NotFound", description: "no such file" })) // true
 * StoreError.isStoreError(new Error("boom")) // false
 * ```
 * @since 0.1.0
 * @category Guards
 */
export const isStoreError = (u: unknown): u is StoreError | TurnConflictError => Predicate.hasProperty(u, TypeId)

/**
 * Why a store operation failed:
 *
 * - `NotAStore`: the database is empty (and the caller creates nothing), has
 *   tables but no precis migrations, is not a regular file, or is not a
 *   database at all;
 * - `NewerSchema`: a newer precis wrote it; `OlderSchema`: an older one did,
 *   and the caller only reads (a writer migrates it);
 * - `NotFound`: the file, or the summary named, does not exist;
 * - `Locked`: another connection holds the lock it needs;
 * - `ReadOnly`: the database, or the connection, cannot be written;
 * - `Unavailable`: the database server cannot be reached or refused the connection;
 * - `Io`: the file cannot be opened, read or written (permissions, a full disk);
 * - `InvalidInput`: a value the store refuses (a bad turn, a DAG that would
 *   not hold, a bad search);
 * - `Timeout`: the operation took longer than it may (a search);
 * - `LeaseLost`: a session's lease was lost while held;
 * - `Unknown`: any other failure of the driver.
 *
 * @since 0.1.0
 * @category Models
 */
export const Reason = Schema.Literal(
  "NotAStore",
  "NewerSchema",
  "OlderSchema",
  "NotFound",
  "Locked",
  "ReadOnly",
  "Unavailable",
  "Io",
  "InvalidInput",
  "Timeout",
  "LeaseLost",
  "Unknown"
)

/**
 * @since 0.1.0
 * @category Models
 */
export type Reason = typeof Reason.Type

// The readable part of a failure: an SqlError's inner driver error when there is one.
const describe = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null) {
    if ("cause" in cause && cause.cause instanceof Error) return cause.cause.message
    if (cause instanceof Error) return cause.message
  }
  return String(cause)
}

// The driver's code of a failure (an SqlError's inner error's, else its own): `SQLITE_BUSY`, `57014`, `ECONNREFUSED`.
const codeOf = (cause: unknown): string | undefined => {
  const own = (u: unknown) => Predicate.hasProperty(u, "code") && typeof u.code === "string" ? u.code : undefined
  return Predicate.hasProperty(cause, "cause") ? own(cause.cause) ?? own(cause) : own(cause)
}

// The codes of SQLite (better-sqlite3's extended codes start with the primary one), PostgreSQL
// (SQLSTATE) and Node's sockets, by the reason each stands for.
const codes: ReadonlyArray<readonly [RegExp, Reason]> = [
  [/^(SQLITE_BUSY|SQLITE_LOCKED|55P03$|40P01$)/, "Locked"],
  [/^(SQLITE_READONLY|25006$)/, "ReadOnly"],
  [/^(SQLITE_NOTADB|SQLITE_CORRUPT)/, "NotAStore"],
  [/^57014$/, "Timeout"],
  [/^(57P01|57P03|3D000|28000|28P01|08\w{3}|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT)$/, "Unavailable"],
  [/^(SQLITE_IOERR|SQLITE_FULL|SQLITE_CANTOPEN|SQLITE_PERM|EACCES|EPERM|ENOSPC|EROFS|ENOENT|EISDIR)/, "Io"]
]

/**
 * The {@link Reason} of a driver's failure, from its code (see `codes`).
 *
 * @since 0.1.0
 * @category Constructors
 */
export const reasonOf = (cause: unknown): Reason => {
  const code = codeOf(cause)
  if (code === undefined) return "Unknown"
  return codes.find(([pattern]) => pattern.test(code))?.[1] ?? "Unknown"
}

/**
 * A store operation failed for `reason`, said in `description`; `cause` is
 * the underlying `SqlError` when there is one. `operation` names the port and
 * method (`TurnStore.appendTurns`), or `Store.open` / `Store.migrate` for
 * opening a store. A store opened on a file names it in `filename`; the
 * message then starts with the file (`other.db: not a precis store ...`),
 * else with the operation (`DagStore.insertLeaf: ...`), after the `store` a
 * caller named (see {@link StoreError.inStore}).
 *
 * @since 0.1.0
 * @category Errors
 */
export class StoreError extends Schema.TaggedError<StoreError>("@precis/store/StoreError")("StoreError", {
  operation: Schema.String,
  reason: Reason,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect),
  filename: Schema.optional(Schema.String),
  /** The store as its caller named it (a URL), shown first when no `filename` is. */
  store: Schema.optional(Schema.String)
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /**
   * A failure of `operation` as a `StoreError` naming `filename` when given:
   * the reason is read from the driver's code ({@link reasonOf}), the
   * description is the driver's own message (an `SqlError`'s inner error).
   * A `StoreError` passes through, given the filename when it has none.
   *
   * @since 0.1.0
   */
  static fromCause(cause: unknown, operation: string, filename?: string): StoreError {
    if (cause instanceof StoreError) {
      return filename === undefined || cause.filename !== undefined ? cause : cause.copy({ filename })
    }
    return new StoreError({
      operation,
      reason: reasonOf(cause),
      description: describe(cause),
      cause,
      ...(filename === undefined ? {} : { filename })
    })
  }

  /**
   * A value of `operation` that cannot be stored: `description` followed by
   * what went wrong (`cause`).
   *
   * @since 0.1.0
   */
  static invalidInput(operation: string, description: string, cause: unknown): StoreError {
    return new StoreError({ operation, reason: "InvalidInput", description: `${description}: ${describe(cause)}`, cause })
  }

  /**
   * `self` naming the store `store` as its caller knows it, unless it names
   * its file already: a CLI's `--db` value for a store opened on a URL.
   *
   * @since 0.1.0
   */
  inStore(store: string): StoreError {
    return this.filename === undefined ? this.copy({ store }) : this
  }

  // The same error with other values for some fields.
  private copy(fields: { readonly filename?: string; readonly store?: string }): StoreError {
    return new StoreError({
      operation: this.operation,
      reason: this.reason,
      description: this.description,
      ...(this.cause === undefined ? {} : { cause: this.cause }),
      ...(this.filename === undefined ? {} : { filename: this.filename }),
      ...(this.store === undefined ? {} : { store: this.store }),
      ...fields
    })
  }

  /** @since 0.1.0 */
  override get message(): string {
    if (this.filename !== undefined) return `${this.filename}: ${this.description}`
    const line = `${this.operation}: ${this.description}`
    return this.store === undefined ? line : `${this.store}: ${line}`
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
 * @category Errors
 */
export class TurnConflictError extends Schema.TaggedError<TurnConflictError>("@precis/store/TurnConflictError")(
  "TurnConflictError",
  {
    sessionId: Schema.String,
    turnId: Schema.String,
    /** What differs: the role, or (with the same role) the content. */
    field: Schema.Literal("role", "content")
  }
) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
  override get message(): string {
    return `turn ${JSON.stringify(this.turnId)} is already in session ${this.sessionId} with a different ${this.field}`
  }
}
