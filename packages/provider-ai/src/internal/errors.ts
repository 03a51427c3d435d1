/**
 * From `@effect/ai`'s `AiError` to precis's `ProviderError`. Messages are built
 * from statuses and the server's own error message, never from request
 * headers (which carry the key).
 */
import type * as AiError from "@effect/ai/AiError"
import { ProviderError } from "@precis/core"
import * as Option from "effect/Option"

const describe = (error: { readonly module: string; readonly method: string; readonly description?: string | undefined }) =>
  `${error.module}.${error.method}${error.description === undefined ? "" : `: ${ProviderError.excerpt(error.description)}`}`

/**
 * Maps one `AiError` to the `ProviderError` of the same meaning; `now` (epoch
 * milliseconds, from `Clock`) dates an HTTP-date `Retry-After`.
 */
export const fromAiError = (provider: string, error: AiError.AiError, now: number): ProviderError.ProviderError => {
  switch (error._tag) {
    case "HttpRequestError":
      return new ProviderError.TransportError({
        provider,
        reason: `${error.reason}${error.description === undefined ? "" : `: ${ProviderError.excerpt(error.description)}`}`,
        // Classified by core's one list: the cause's code, else what the description says.
        code: error.reason === "InvalidUrl"
          ? "ERR_INVALID_URL"
          : ProviderError.transportCode(error.cause) ?? ProviderError.transportCode(new Error(error.description ?? ""))
      })
    case "HttpResponseError": {
      if (error.reason !== "StatusCode") {
        return new ProviderError.BadResponseError({
          provider,
          detail: `${error.reason === "EmptyBody" ? "empty body" : "undecodable body"} (HTTP ${error.response.status})`
        })
      }
      return ProviderError.fromHttpStatus(error.response.status, {
        provider,
        // `AiError` formats a body it could not read as the text "undefined".
        body: error.body === "undefined" ? undefined : error.body,
        retryAfter: Option.getOrUndefined(ProviderError.retryAfter(error.response.headers, now))
      })
    }
    case "MalformedOutput":
      return new ProviderError.BadResponseError({ provider, detail: describe(error) })
    case "MalformedInput":
      return new ProviderError.BadRequestError({ provider, detail: `refused before sending: ${describe(error)}` })
    case "UnknownError":
      return new ProviderError.BadResponseError({ provider, detail: describe(error) })
  }
}
