/**
 * One chat over one precis session: the `Chat.Persisted` that `PrecisChat`
 * hands out. Each exchange, under the chat's one permit: the prompt's
 * messages are appended as turns, the session's context is assembled (the
 * only place a compaction may run: before the model call, never inside it)
 * and sent as the Prompt, the response's messages are appended as turns, and
 * `history` becomes the Prompt sent followed by the response.
 *
 * @internal
 */
import * as AiError from "@effect/ai/AiError"
import type * as Chat from "@effect/ai/Chat"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import type * as Tool from "@effect/ai/Tool"
import type { SleepMode } from "@precis/compaction"
import { AiPrompt, type Assembler, type ContextError } from "@precis/context"
import type { ConversationTurn } from "@precis/core"
import type { StoreError, TurnStore } from "@precis/store"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ChatTurns from "../ChatTurns.js"

/** What a session's chat works with. */
export interface Env {
  readonly sessionId: string
  readonly options: Assembler.AssembleOptions
  readonly assembler: Assembler.Service
  readonly store: TurnStore.Service
  readonly sleep: Option.Option<SleepMode.Service>
}

/** A session's chat, with the context of its last request. */
export interface SessionChat extends Chat.Persisted {
  readonly lastRequest: Effect.Effect<Option.Option<Assembler.Assembled>>
}

const aiError = (method: string) => (error: { readonly message: string }) =>
  new AiError.UnknownError({ module: "PrecisChat", method, description: error.message })

const encodeJson = Schema.encode(Prompt.FromJson)
const encode = Schema.encode(Prompt.Prompt)

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

type Tools = Record<string, Tool.Any>

/**
 * The calls in the generic types of `Chat.Service`. Their failures are the
 * model's and the toolkit's (`ExtractError` of the options with the prompt
 * replaced, the same type) and the chat's own, which are `AiError`s, a member
 * of every `ExtractError`; TypeScript cannot see either through the deferred
 * conditional types, so the one assertion is here.
 */
const asService = (calls: {
  readonly generateText: (
    options: LanguageModel.GenerateTextOptions<Tools>
  ) => Effect.Effect<LanguageModel.GenerateTextResponse<Tools>, unknown, unknown>
  readonly generateObject: <A, I extends Record<string, unknown>, R>(
    options: LanguageModel.GenerateObjectOptions<Tools, A, I, R>
  ) => Effect.Effect<LanguageModel.GenerateObjectResponse<Tools, A>, unknown, unknown>
  readonly streamText: (
    options: LanguageModel.GenerateTextOptions<Tools>
  ) => Stream.Stream<Response.StreamPart<Tools>, unknown, unknown>
}) => calls as Pick<Chat.Service, "generateText" | "generateObject" | "streamText">

/**
 * The session's turns as a Prompt: what `export` gives (every message, not
 * the assembled context).
 */
export const transcript = (
  store: TurnStore.Service,
  sessionId: string
): Effect.Effect<Prompt.Prompt, StoreError.StoreError> =>
  Effect.map(store.turns(sessionId), ChatTurns.toPrompt)

/** The assembled context of the session as a Prompt (empty for a session with no turns). */
const contextOf = (env: Env) =>
  Effect.gen(function*() {
    const turns = yield* env.store.turns(env.sessionId, { from: 0, to: 0 })
    if (turns.length === 0) return { prompt: Prompt.empty, assembled: Option.none<Assembler.Assembled>() }
    const assembled = yield* env.assembler.assemble(env.sessionId, env.options)
    return { prompt: AiPrompt.toPrompt(assembled), assembled: Option.some(assembled) }
  })

/**
 * Builds the chat of `env.sessionId`, its `history` the session's context
 * as assembled now.
 */
export const make = (
  env: Env
): Effect.Effect<SessionChat, StoreError.StoreError | ContextError.InvalidContextOptionsError> =>
  Effect.gen(function*() {
    const initial = yield* contextOf(env)
    const history = yield* Ref.make(initial.prompt)
    const lastRequest = yield* Ref.make(Option.none<Assembler.Assembled>())
    const permit = yield* Effect.makeSemaphore(1)

    const append = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>) =>
      turns.length === 0 ? Effect.void : Effect.asVoid(env.store.appendTurns(env.sessionId, turns))

    // The prompt's turns stored, then the context to send (a rebuild, and its compaction, happen here).
    const request = (method: string, input: Prompt.RawInput) =>
      Effect.gen(function*() {
        yield* append(ChatTurns.fromPrompt(Prompt.make(input), yield* now))
        const { assembled, prompt } = yield* contextOf(env)
        yield* Ref.set(lastRequest, assembled)
        return prompt
      }).pipe(Effect.mapError(aiError(method)))

    const respond = (method: string, sent: Prompt.Prompt, parts: ReadonlyArray<Response.AnyPart>) =>
      Effect.gen(function*() {
        const answer = Prompt.fromResponseParts(parts)
        yield* append(ChatTurns.fromPrompt(answer, yield* now))
        yield* Ref.set(history, Prompt.merge(sent, answer))
      }).pipe(Effect.mapError(aiError(method)))

    // Activity for Sleep Mode: no idle compaction starts while a model call runs.
    const busy = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Option.match(env.sleep, { onNone: () => effect, onSome: (sleep) => sleep.busy(effect) })

    const activity = Option.match(env.sleep, { onNone: () => Effect.void, onSome: (sleep) => sleep.recordActivity })

    const exchange = <A extends { readonly content: ReadonlyArray<Response.AnyPart> }, E, R>(
      method: string,
      input: Prompt.RawInput,
      call: (prompt: Prompt.Prompt) => Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | AiError.AiError, R> =>
      Effect.gen(function*() {
        const sent = yield* request(method, input)
        const response = yield* call(sent)
        yield* respond(method, sent, response.content)
        return response
      }).pipe(
        busy,
        permit.withPermits(1),
        Effect.withSpan(`PrecisChat.${method}`, { attributes: { "precis.session_id": env.sessionId } })
      )

    // The calls, typed as `Chat.Service` types them (see `asService`).
    const generateText = (options: LanguageModel.GenerateTextOptions<Tools>) =>
      exchange("generateText", options.prompt, (prompt) => LanguageModel.generateText({ ...options, prompt }))

    const generateObject = <A, I extends Record<string, unknown>, R>(
      options: LanguageModel.GenerateObjectOptions<Tools, A, I, R>
    ) => exchange("generateObject", options.prompt, (prompt) => LanguageModel.generateObject({ ...options, prompt }))

    const streamText = (options: LanguageModel.GenerateTextOptions<Tools>) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        yield* Effect.acquireRelease(permit.take(1), () => permit.release(1))
        yield* activity
        const sent = yield* request("streamText", options.prompt)
        const parts: Array<Response.AnyPart> = []
        return LanguageModel.streamText({ ...options, prompt: sent }).pipe(
          Stream.tap((part) => Effect.sync(() => parts.push(part))),
          Stream.concat(Stream.execute(respond("streamText", sent, parts))),
          Stream.ensuring(activity)
        )
      }))

    const exported = transcript(env.store, env.sessionId).pipe(Effect.mapError(aiError("export")))
    const malformed = (method: string) => (error: { readonly message: string }) =>
      new AiError.MalformedOutput({ module: "PrecisChat", method, description: error.message })

    const chat: SessionChat = {
      id: env.sessionId,
      history,
      lastRequest: Ref.get(lastRequest),
      // Every turn is written when the chat sees it: nothing is left to save.
      save: Effect.void,
      export: exported.pipe(Effect.flatMap(encode), Effect.catchTag("ParseError", malformed("export"))),
      exportJson: exported.pipe(
        Effect.flatMap(encodeJson),
        Effect.catchTags({ ParseError: malformed("exportJson"), UnknownError: malformed("exportJson") })
      ),
      ...asService({ generateText, generateObject, streamText })
    }
    return chat
  })
