/**
 * JSON-RPC 2.0 as the MCP stdio transport reads it: what one line from the
 * client is (a request to answer, a notification to pass on, or an error to
 * answer at once with its reason), and how an answer is written.
 *
 * @internal
 */
import { SchemaIssue } from "@precis/core"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { Frame } from "./lines.js"

/** A request's id as the client sent it. */
export type Id = string | number

/** The error codes of JSON-RPC 2.0. */
export const ErrorCode = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603
} as const

/** What a line is. */
export type Message =
  | { readonly _tag: "Request"; readonly id: Id; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Refused"; readonly id: Id | null; readonly code: number; readonly message: string }
  | { readonly _tag: "Ignored" }

/** The methods a server knows: its requests with their params' Schema, and its notifications. */
export interface Methods {
  readonly requests: ReadonlyMap<string, Schema.Schema<unknown, unknown>>
  readonly notifications: ReadonlySet<string>
}

const refused = (id: Id | null, code: number, message: string): Message => ({ _tag: "Refused", id, code, message })

const isId = (id: unknown): id is Id => typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))

const kind = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`

/** What the text of one line is: parsed, then checked as a JSON-RPC message of `methods`. */
const parsed = (text: string, methods: Methods): Message => {
  if (text.trim().length === 0) return refused(null, ErrorCode.parse, "parse error: an empty line is no JSON-RPC message")
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return refused(null, ErrorCode.parse, `parse error: the line is not JSON (${(error as Error).message})`)
  }
  if (!Predicate.isRecord(value) || Array.isArray(value)) {
    return refused(null, ErrorCode.invalidRequest, `invalid request: a message is a JSON object, not ${kind(value)}`)
  }
  return message(value, methods)
}

/** What a JSON object is as a message. */
const message = (value: Record<string, unknown>, methods: Methods): Message => {
  const hasId = Object.hasOwn(value, "id")
  const id = isId(value.id) ? value.id : null
  if (!Object.hasOwn(value, "method")) {
    // A response from the client (this server sends no requests), or nothing at all.
    return Object.hasOwn(value, "result") || Object.hasOwn(value, "error")
      ? { _tag: "Ignored" }
      : refused(id, ErrorCode.invalidRequest, "invalid request: a message has a \"method\"")
  }
  if (hasId && id === null) {
    return refused(null, ErrorCode.invalidRequest, `invalid request: "id" must be a string or an integer (got ${kind(value.id)})`)
  }
  if (value.jsonrpc !== "2.0") {
    return hasId ? refused(id, ErrorCode.invalidRequest, "invalid request: \"jsonrpc\" must be \"2.0\"") : { _tag: "Ignored" }
  }
  if (typeof value.method !== "string") {
    return hasId ? refused(id, ErrorCode.invalidRequest, "invalid request: \"method\" must be a string") : { _tag: "Ignored" }
  }
  const method = value.method
  const params = value.params
  const paramsError = params === undefined || Predicate.isRecord(params) && !Array.isArray(params)
    ? undefined
    : `invalid params: "params" must be an object (got ${kind(params)})`
  if (id === null) {
    // A notification is never answered: one this server does not know, or with bad params, is dropped.
    return methods.notifications.has(method) && paramsError === undefined
      ? { _tag: "Notification", method, params }
      : { _tag: "Ignored" }
  }
  const schema = methods.requests.get(method)
  if (schema === undefined) return refused(id, ErrorCode.methodNotFound, `method not found: ${JSON.stringify(method)}`)
  if (paramsError !== undefined) return refused(id, ErrorCode.invalidParams, paramsError)
  const decoded = Schema.decodeUnknownEither(schema)(params)
  return Either.isLeft(decoded)
    ? refused(id, ErrorCode.invalidParams, `invalid params: ${SchemaIssue.sentence(decoded.left)}`)
    : { _tag: "Request", id, method, params }
}

/** What a frame from the client is: a line too long is a parse error, as is a line that is no JSON. */
export const read = (frame: Frame, methods: Methods, maxBytes: number): Message =>
  frame._tag === "TooLong"
    ? refused(
      null,
      ErrorCode.parse,
      `parse error: a line of ${frame.bytes} bytes or more is longer than the ${maxBytes} bytes a message may take`
    )
    : parsed(frame.text, methods)

/** An error answer as one line. */
export const errorLine = (id: Id | null, code: number, message: string): string =>
  `${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`

/** A result answer as one line. */
export const resultLine = (id: Id, result: unknown): string => `${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`

/** A notification to the client as one line. */
export const notificationLine = (method: string, params: unknown): string =>
  `${JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) })}\n`
