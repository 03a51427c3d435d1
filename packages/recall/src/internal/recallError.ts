/**
 * The failure of every recall tool (re-exported by `PrecisToolkit`).
 *
 * @internal
 */
import * as Schema from "effect/Schema"

/** A tool call that could not be answered; the model reads its `message`. */
export class RecallError extends Schema.TaggedError<RecallError>()("RecallError", {
  message: Schema.String
}) {}
