/**
 * The HTTP side of a call: how a failed connection is described, and a
 * response body read within a size limit.
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { ProviderError } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** The Chat Completions URL under `baseUrl`: its path extended, its query kept after it. */
export const endpoint = (baseUrl: string): string => {
  const url = new URL(baseUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/chat/completions`
  return url.toString()
}

// What failed, by its code in core's list (`ProviderError.transportFailures`), and where (`shownUrl`,
// already without its secrets); never the request headers (they carry the key).
export const transportReason = (
  error: HttpClientError.HttpClientError,
  shownUrl: string
): { readonly code: string | undefined; readonly reason: string } => {
  if (error._tag === "ResponseError") {
    return { code: undefined, reason: `the response body could not be read (HTTP ${error.response.status})` }
  }
  const code = error.reason === "InvalidUrl" ? "ERR_INVALID_URL" : ProviderError.transportCode(error.cause)
  const failure = ProviderError.transportFailure(code)
  const what = code === undefined
    ? error.description ?? "the connection failed"
    : failure === undefined
    ? code
    : `${code}: ${failure.meaning}`
  return { code, reason: `${what}; at ${shownUrl}` }
}

// The body, read up to `limit` bytes: a larger one stops the read (and the connection).
export const readBody = (provider: string, response: HttpClientResponse.HttpClientResponse, limit: number) =>
  response.stream.pipe(
    Stream.runFoldEffect({ chunks: [] as Array<Uint8Array>, size: 0 }, (read, chunk) => {
      const size = read.size + chunk.length
      if (size > limit) {
        return Effect.fail(
          new ProviderError.BadResponseError({
            provider,
            detail: `the response is larger than ${limit} bytes, more than a reply of the tokens asked for`
          })
        )
      }
      read.chunks.push(chunk)
      return Effect.succeed({ chunks: read.chunks, size })
    }),
    Effect.map(({ chunks, size }) => {
      const bytes = new Uint8Array(size)
      let offset = 0
      for (const chunk of chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      return new TextDecoder().decode(bytes)
    })
  )
