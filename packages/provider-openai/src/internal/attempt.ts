/**
 * One attempt of a chat call: post the body, read the reply within its limit,
 * map a failed status, a failed transport, an undecodable reply and the
 * deadline to the provider errors, and redact the key from what comes back.
 *
 * @internal
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { type Provider, ProviderError, Redact, SchemaIssue } from "@precis/core"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
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
  ProviderError.excerpt(`not a chat completion: ${SchemaIssue.sentence(error, "the reply")}`)

// A key echoed back by the server (or by a model told it), in any case or in part, never
// reaches the summary.
const redactor = (apiKey: Redacted.Redacted | undefined) => {
  const secret = apiKey === undefined ? undefined : Redacted.value(apiKey)
  return (text: string): string => secret === undefined ? text : Redact.secret(text, secret)
}

/** The redirects followed in one attempt. */
const MAX_REDIRECTS = 5

const isRedirect = (status: number): boolean => status >= 300 && status < 400

/** A redirect not followed: the base URL is wrong, and no retry will make it right (`ProviderError.isPermanent`). */
const refusedRedirect = (target: Target, status: number, detail: string) =>
  new ProviderError.BadRequestError({ provider: target.name, status, detail })

/**
 * `body` posted to `url`, a redirect to the same origin followed with the
 * same method and body (at most {@link MAX_REDIRECTS}); one to another origin
 * (`http` to `https` included: the key would go where it was not sent) is
 * refused, naming where it leads so that the base URL can be set to it.
 */
const post = (
  target: Target,
  body: HttpBody.HttpBody,
  url: string,
  hops: number
): Effect.Effect<
  HttpClientResponse.HttpClientResponse,
  ProviderError.ProviderError | HttpClientError.HttpClientError,
  Scope.Scope
> =>
  Effect.flatMap(target.client.execute(HttpClientRequest.post(url, { body })), (response) => {
    if (!isRedirect(response.status)) return Effect.succeed(response)
    const location = response.headers.location
    const next = location === undefined || !URL.canParse(location, url) ? undefined : new URL(location, url)
    if (next === undefined) {
      return Effect.fail(refusedRedirect(target, response.status, `a redirect without a usable Location from ${target.shownUrl}`))
    }
    if (next.origin !== new URL(url).origin) {
      return Effect.fail(refusedRedirect(
        target,
        response.status,
        `${target.shownUrl} redirects to another origin (${Redact.url(next.toString())}), which is not followed ` +
          "(the API key would go where it was not sent): set the base URL to where it leads"
      ))
    }
    if (hops >= MAX_REDIRECTS) {
      return Effect.fail(refusedRedirect(target, response.status, `more than ${MAX_REDIRECTS} redirects from ${target.shownUrl}`))
    }
    return post(target, body, next.toString(), hops + 1)
  })

/** Redirects are this adapter's to follow (`post`), whatever the client: fetch is told not to. */
const manualRedirects = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.serviceOption(FetchHttpClient.RequestInit),
    (init) => Effect.provideService(self, FetchHttpClient.RequestInit, { ...Option.getOrUndefined(init), redirect: "manual" })
  )

/** One attempt: `body` posted to the target, a reply of at most `limit` bytes read. */
export const attempt = (target: Target, body: HttpBody.HttpBody, limit: number) => {
  const { name } = target
  const redact = redactor(target.apiKey)
  return Effect.gen(function*() {
    const response = yield* post(target, body, target.url, 0)
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
    manualRedirects,
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
