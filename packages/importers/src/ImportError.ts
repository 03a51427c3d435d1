/**
 * Bad input to an importer: {@link ImportError}, the file, the 1-based line
 * and what is wrong there, for one of the {@link Reason}s. It carries
 * {@link TypeId}; {@link isImportError} tells it from any other value.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * The mark of an importer's error.
 *
 * @since 0.1.0
 * @category Type Ids
 */
export const TypeId = "~@precis/importers/ImportError"

/**
 * @since 0.1.0
 * @category Type Ids
 */
export type TypeId = typeof TypeId

/**
 * Whether a value is an {@link ImportError}.
 *
 * @example
 * ```ts
 * import { ImportError } from "@precis/importers"
 * ImportError.isImportError(new ImportError.ImportError({ file: "a.jsonl", line: 1, reason: "Unreadable", description: "gone" })) // true
 * ImportError.isImportError(new Error("gone")) // false
 * ```
 * @since 0.1.0
 * @category Guards
 */
export const isImportError = (u: unknown): u is ImportError => Predicate.hasProperty(u, TypeId)

/**
 * Why a file cannot be imported:
 *
 * - `Unreadable`: the file (or a file it leads to) cannot be read;
 * - `UnknownFormat`: no format matches its first characters;
 * - `InvalidLine`: a line (an element, an event) is not what its format says;
 * - `Conflict`: a turn has the id of a stored turn of its session but another
 *   role or content.
 *
 * @since 0.1.0
 * @category Models
 */
export const Reason = Schema.Literal("Unreadable", "UnknownFormat", "InvalidLine", "Conflict")

/**
 * @since 0.1.0
 * @category Models
 */
export type Reason = typeof Reason.Type

/**
 * Bad input: the file, the 1-based line, why (`reason`) and what is wrong
 * there (`description`). Its message is `FILE:LINE: description`.
 *
 * @example
 * ```ts
 * import { ImportError } from "@precis/importers"
 * new ImportError.ImportError({ file: "session.jsonl", line: 7, reason: "InvalidLine", description: "invalid JSON" }).message
 * // "session.jsonl:7: invalid JSON"
 * ```
 * @since 0.1.0
 * @category Errors
 */
export class ImportError extends Schema.TaggedError<ImportError>("@precis/importers/ImportError")("ImportError", {
  file: Schema.String,
  line: Schema.Int,
  reason: Reason,
  description: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId

  /** @since 0.1.0 */
  override get message(): string {
    return `${this.file}:${this.line}: ${this.description}`
  }
}
