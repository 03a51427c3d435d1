/**
 * The HTTP side of a call: how a failed connection is described, and a
 * response body read within a size limit.
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { ProviderError } from "@precis/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

const errorCode = (cause: unknown): string | undefined => {
  for (let current = cause, depth = 0; typeof current === "object" && current !== null && depth < 3; depth++) {
    if ("code" in current && typeof current.code === "string") return current.code
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

// The system error code of a failed connection; an unusable URL counts as one that will never connect.
export const transportCode = (error: HttpClientError.HttpClientError): string | undefined =>
  error._tag === "ResponseError"
    ? undefined
    : error.reason === "InvalidUrl"
    ? "ERR_INVALID_URL"
    : error.reason === "Transport"
    ? errorCode(error.cause)
    : undefined

// Names what failed and where, never the request headers (they carry the key).
export const transportReason = (error: HttpClientError.HttpClientError, baseUrl: string): string => {
  if (error._tag === "ResponseError") return `the response body could not be read (HTTP ${error.response.status})`
  if (error.reason !== "Transport") return `the request could not be built (${error.reason}); check the base URL ${baseUrl}`
  const code = errorCode(error.cause)
  return `${code ?? error.description ?? "the connection failed"}; is the server at ${baseUrl} running?`
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
