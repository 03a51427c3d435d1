/**
 * How every recall tool is made: it fails with a `RecallError` the model
 * reads as the result (`failureMode: "return"`), and it only reads, a local
 * store (no open world).
 *
 * @internal
 */
import * as Tool from "@effect/ai/Tool"
import type * as Schema from "effect/Schema"
import { RecallError } from "./recallError.js"

/** A read-only, closed-world tool whose failures are `RecallError` results. */
export const make = <const Name extends string, Parameters extends Schema.Struct.Fields, Success extends Schema.Schema.Any>(
  name: Name,
  options: { readonly description: string; readonly parameters: Parameters; readonly success: Success }
) =>
  Tool.make(name, { ...options, failure: RecallError, failureMode: "return" })
    .annotate(Tool.Readonly, true)
    .annotate(Tool.Destructive, false)
    .annotate(Tool.OpenWorld, false)
