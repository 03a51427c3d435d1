/**
 * From `@effect/ai`'s `AiError` to precis's `ProviderError`. Messages are built
 * from statuses and the server's own error message, never from request
 * headers (which carry the key).
 */
import type * as AiError from "@effect/ai/AiError"
import { Provider } from "@precis/core"
import * as Option from "effect/Option"

const EXCERPT_LENGTH = 300

const shorten = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= EXCERPT_LENGTH ? flat : `${flat.slice(0, EXCERPT_LENGTH)}…`
}

// OpenAI: { error: { message } }; Anthropic: { type: "error", error: { type, message } }; others: { message }.
const bodyMessage = (body: string | undefined): string | undefined => {
  if (body === undefined || body.trim().length === 0 || body === "undefined") return undefined
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === "object" && parsed !== null) {
      const record = parsed as { readonly error?: unknown; readonly message?: unknown }
      const nested = typeof record.error === "object" && record.error !== null
        ? (record.error as { readonly message?: unknown }).message
        : record.error
      const message = typeof nested === "string" ? nested : record.message
      if (typeof message === "string" && message.trim().length > 0) return shorten(message)
    }
  } catch {
    // Not JSON: use the text itself.
  }
  return shorten(body)
}

const describe = (error: { readonly module: string; readonly method: string; readonly description?: string | undefined }) =>
  `${error.module}.${error.method}${error.description === undefined ? "" : `: ${shorten(error.description)}`}`

/**
 * Maps one `AiError` to the `ProviderError` of the same meaning; `now` (epoch
 * milliseconds, from `Clock`) dates an HTTP-date `Retry-After`.
 */
export const fromAiError = (provider: string, error: AiError.AiError, now: number): Provider.ProviderError => {
  switch (error._tag) {
    case "HttpRequestError":
      return new Provider.TransportError({
        provider,
        reason: `${error.reason}${error.description === undefined ? "" : `: ${shorten(error.description)}`}`
      })
    case "HttpResponseError": {
      if (error.reason !== "StatusCode") {
        return new Provider.BadResponseError({
          provider,
          detail: `${error.reason === "EmptyBody" ? "empty body" : "undecodable body"} (HTTP ${error.response.status})`
        })
      }
      const status = error.response.status
      const detail = bodyMessage(error.body)
      if (status === 401 || status === 403) return new Provider.UnauthorizedError({ provider, status, detail })
      if (status === 429) return new Provider.RateLimitedError({ provider, retryAfter: Option.getOrUndefined(Provider.retryAfter(error.response.headers, now)) })
      if (status === 400 || status === 404 || status === 422) {
        return new Provider.BadRequestError({ provider, status, detail: detail ?? "no details given" })
      }
      return new Provider.ServerError({ provider, status, detail })
    }
    case "MalformedOutput":
      return new Provider.BadResponseError({ provider, detail: describe(error) })
    case "MalformedInput":
      return new Provider.BadRequestError({ provider, detail: `refused before sending: ${describe(error)}` })
    case "UnknownError":
      return new Provider.BadResponseError({ provider, detail: describe(error) })
  }
}
