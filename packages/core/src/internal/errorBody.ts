/**
 * What a server's error body says, on one line, masked and shortened:
 * `ProviderError.fromHttpStatus`'s detail and `ProviderError.excerpt`.
 *
 * @internal
 */
import * as Redacted from "effect/Redacted"
import * as Redact from "../Redact.js"

const EXCERPT_LENGTH = 300

/** `text` on one line, cut to 300 characters with `…`. */
export const excerpt = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= EXCERPT_LENGTH ? flat : `${flat.slice(0, EXCERPT_LENGTH)}…`
}

// OpenAI: { error: { message } }; Anthropic: { type: "error", error: { type, message } };
// others: { error: "..." }, { message }, { detail }.
const messageOf = (body: unknown): string | undefined => {
  if (typeof body === "string") return body
  if (typeof body !== "object" || body === null) return undefined
  const record = body as Record<string, unknown>
  for (const key of ["error", "message", "detail"]) {
    const value = record[key]
    const found = typeof value === "object" && value !== null ? messageOf(value) : value
    if (typeof found === "string" && found.trim().length > 0) return found
  }
  return undefined
}

// The server's own message from an error body (else the body itself), masked and shortened.
export const detail = (body: string | undefined, secret: Redacted.Redacted | undefined): string | undefined => {
  if (body === undefined || body.trim().length === 0) return undefined
  let message: string | undefined
  try {
    message = messageOf(JSON.parse(body))
  } catch {
    // Not JSON: the text itself.
  }
  if (message === undefined || message.trim().length === 0) message = body
  return excerpt(Redact.url(secret === undefined ? message : Redact.secret(message, Redacted.value(secret))))
}
