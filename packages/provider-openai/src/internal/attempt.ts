/**
 * One attempt of a chat call: post the body, read the reply within its limit,
 * map a failed status, a failed transport, an undecodable reply and the
 * deadline to the provider errors, and redact the key from what comes back.
 *
 * @internal
 */
import type * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { type Provider, ProviderError, Redact } from "@precis/core"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import { decodeChatCompletion, replyText } from "./completion.js"
import { readBody, transportReason } from "./http.js"

const MAX_ERROR_BODY = 64 * 1024

/** What every attempt of a provider shares. */
export interface Target {
  readonly client: HttpClient.HttpClient
  readonly url: string
  /** What logs, spans and messages show of the URL. */
  readonly shownUrl: string
  readonly name: string
  readonly model: string
  readonly timeout: Duration.Duration
  readonly apiKey: Redacted.Redacted | undefined
}

const fromHttpError = (target: Target, error: HttpClientError.HttpClientError): ProviderError.ProviderError => {
  const { code, reason } = transportReason(error, target.shownUrl)
  return new ProviderError.TransportError({ provider: target.name, reason, code })
}

const fromStatus = (
  target: Target,
  response: HttpClientResponse.HttpClientResponse,
  body: string,
  now: number
): ProviderError.ProviderError =>
  ProviderError.fromHttpStatus(response.status, {
    provider: target.name,
    body: body.slice(0, MAX_ERROR_BODY),
    retryAfter: Option.getOrUndefined(ProviderError.retryAfter(response.headers, now)),
    secret: target.apiKey,
    notFound: `no such endpoint or model (${target.model})`
  })

const parseDetail = (error: ParseResult.ParseError): string =>
  ProviderError.excerpt(ParseResult.TreeFormatter.formatErrorSync(error))

// A key echoed back by the server (or by a model told it), in any case or in part, never
// reaches the summary.
const redactor = (apiKey: Redacted.Redacted | undefined) => {
  const secret = apiKey === undefined ? undefined : Redacted.value(apiKey)
  return (text: string): string => secret === undefined ? text : Redact.secret(text, secret)
}

/** One attempt: `body` posted to the target, a reply of at most `limit` bytes read. */
export const attempt = (target: Target, body: HttpBody.HttpBody, limit: number) => {
  const { name } = target
  const redact = redactor(target.apiKey)
  return Effect.gen(function*() {
    const response = yield* target.client.execute(HttpClientRequest.post(target.url, { body }))
    const text = yield* readBody(name, response, limit)
    if (response.status < 200 || response.status >= 300) {
      const now = yield* Clock.currentTimeMillis
      return yield* Effect.fail(fromStatus(target, response, text, now))
    }
    const decoded = decodeChatCompletion(text)
    if (Either.isLeft(decoded)) {
      return yield* Effect.fail(new ProviderError.BadResponseError({ provider: name, detail: parseDetail(decoded.left) }))
    }
    const completion = decoded.right
    const usage = completion.usage ?? undefined
    const reply: Provider.ChatResponse = usage === undefined
      ? { text: redact(replyText(completion)) }
      : {
        text: redact(replyText(completion)),
        usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
      }
    return reply
  }).pipe(
    Effect.scoped,
    Effect.catchTags({
      RequestError: (error) => Effect.fail(fromHttpError(target, error)),
      ResponseError: (error) => Effect.fail(fromHttpError(target, error))
    }),
    Effect.timeoutFail({
      duration: target.timeout,
      onTimeout: () => new ProviderError.TimeoutError({ provider: name, timeout: target.timeout })
    }),
    Effect.tapError((error) =>
      Effect.logDebug("OpenAiProvider: attempt failed").pipe(
        Effect.annotateLogs({ provider: name, model: target.model, error: error._tag, reason: error.message })
      )
    )
  )
}
