/**
 * The memory of an `@effect/ai` `Chat`: `Chat.Persistence` (and a `Chat.Chat`
 * for one session) over a precis store. An agent that gets its chat from
 * `Chat.Persistence` gets precis by changing that one layer:
 *
 * - every message the chat sees (the prompt, the model's text, its tool calls
 *   and their results, paired by call id) is appended to the session as turns
 *   with the importers' `ToolMetadata` (`ChatTurns`), so the session-state
 *   header, search, `read` and the viewer work on it;
 * - `generateText`, `streamText` and `generateObject` send the session's
 *   assembled context (`Assembler.assemble`, then `AiPrompt.toPrompt` with the
 *   cache breakpoint marked), not the raw history; `history` is the Prompt
 *   last sent followed by the model's answer;
 * - compaction runs when the Assembler's frame says so, in the assembly
 *   before a request (never inside a model call), or in idle time with a
 *   `SleepMode` in context (each exchange counts as activity);
 * - `export` is the whole conversation as a Prompt (every turn, not the
 *   context), which {@link Service.fromExport} (or `@effect/ai`'s own
 *   `Chat.fromExport`) reads back;
 * - {@link withRecall} adds precis's recall tools (`search`, `expand`,
 *   `describe`, `read`) to the agent's toolkit; the layers provide their
 *   handlers. A chat's id is its session id.
 *
 * @example
 * ```ts
 * import { Chat } from "@effect/ai"
 * import { PrecisChat } from "@precis/chat"
 * import { ExtractiveProvider } from "@precis/provider-extractive"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Effect, Layer } from "effect"
 * const ChatLive = PrecisChat.layer({ budget: 32_000 }).pipe(
 *   Layer.provide(ExtractiveProvider.layer()),
 *   Layer.provide(SqliteStore.layer({ filename: "agent.db" }))
 * )
 * const reply = Effect.gen(function*() {
 *   const chat = yield* Effect.flatMap(Chat.Persistence, (p) => p.getOrCreate("session-1"))
 *   return yield* chat.generateText({ prompt: "Why does the login test fail?" })
 * })
 * ```
 * @since 0.1.0
 */
import * as Chat from "@effect/ai/Chat"
import type * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { PersistenceBackingError } from "@effect/experimental/Persistence"
import { CompactionManager, type CompactionOptions, SleepMode } from "@precis/compaction"
import { Assembler, type AssemblerConfig, type ContextError } from "@precis/context"
import { ConversationTurn, OptionError, OptionSchema, type Provider, Summarizer } from "@precis/core"
import { PrecisToolkit } from "@precis/recall"
import { type DagStore, type SearchIndex, StoreError, TurnStore, type WorkQueue } from "@precis/store"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Prompt from "@effect/ai/Prompt"
import * as ChatTurns from "./ChatTurns.js"
import * as Session from "./internal/session.js"

/**
 * The chat's own option: the `budget` of the context it sends, in tokens (an
 * integer >= 1, default 32,000): what it passes to every
 * `Assembler.assemble`. The rest of the assembly (`system`, `recallNote`,
 * `lowWater`, ...) is the Assembler's config.
 *
 * @since 0.1.0
 */
export const Settings = Schema.Struct({
  budget: Schema.optionalWith(OptionSchema.int({ min: 1 }), { default: () => 32_000 })
})

/**
 * Options of the chat layers: the budget ({@link Settings}).
 *
 * @since 0.1.0
 */
export interface Options extends Schema.Schema.Encoded<typeof Settings> {}

/**
 * Options that make no sense (a budget of 0, say), when the layer is built.
 *
 * @since 0.1.0
 */
export class InvalidChatOptionsError extends OptionError.InvalidOptions("InvalidChatOptionsError", "chat") {}

const decodeSettings = OptionSchema.decode(Settings, (problems) => new InvalidChatOptionsError({ problems }))

/**
 * A chat over a precis session: `@effect/ai`'s `Chat.Persisted`, and the
 * context its last request sent (`Assembler.Assembled`: tokens, prefix
 * shared with the request before, whether it was rebuilt).
 *
 * @since 0.1.0
 */
export type PrecisChat = Session.SessionChat

/**
 * The service: `Chat.Persistence`'s `get` / `getOrCreate` (a chat exists in
 * the store from its first message) giving {@link PrecisChat}s, and
 * `fromExport`.
 *
 * @since 0.1.0
 */
export interface Service {
  readonly get: (chatId: string) => Effect.Effect<PrecisChat, Chat.ChatNotFoundError | PersistenceBackingError>
  readonly getOrCreate: (chatId: string) => Effect.Effect<PrecisChat, PersistenceBackingError>
  /**
   * A chat `chatId` from an exported conversation (a `Chat`'s `export`, this
   * one's or `@effect/ai`'s): its messages appended to the session as turns.
   */
  readonly fromExport: (
    chatId: string,
    data: unknown
  ) => Effect.Effect<PrecisChat, ParseError | PersistenceBackingError>
}

/**
 * The service tag.
 *
 * @since 0.1.0
 */
export class PrecisChats extends Context.Tag("@precis/chat/PrecisChats")<PrecisChats, Service>() {}

const backing = (method: string) => (
  cause: StoreError.StoreError | StoreError.TurnConflictError | ContextError.InvalidContextOptionsError
) =>
  PersistenceBackingError.make(method, cause)

// A chat id the store cannot hold, refused before anything is written.
const badId = (method: string, chatId: string) => {
  const problem = ConversationTurn.sessionIdProblem(chatId)
  return problem === undefined
    ? undefined
    : backing(method)(new StoreError.StoreError({ operation: `PrecisChat.${method}`, reason: "InvalidInput", description: problem }))
}

const decodePrompt = Schema.decodeUnknown(Prompt.Prompt)

/**
 * Builds the service over the `Assembler` and the store in context (and a
 * `SleepMode`, when one is there).
 *
 * @since 0.1.0
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const settings = yield* Either.match(decodeSettings({ budget: options.budget }), {
      onLeft: Effect.fail,
      onRight: Effect.succeed
    })
    const assembler = yield* Assembler.Assembler
    const store = yield* TurnStore.TurnStore
    const sleep = yield* Effect.serviceOption(SleepMode.SleepMode)
    const assembleOptions: Assembler.AssembleOptions = { budget: settings.budget }

    const open = (method: string, chatId: string) => {
      const bad = badId(method, chatId)
      if (bad !== undefined) return Effect.fail(bad)
      return Session.make({ sessionId: chatId, options: assembleOptions, assembler, store, sleep }).pipe(
        Effect.mapError(backing(method))
      )
    }
    const exists = (chatId: string) =>
      Effect.map(store.turns(chatId, { from: 0, to: 0 }), (turns) => turns.length > 0).pipe(Effect.mapError(backing("get")))

    const get: Service["get"] = (chatId) =>
      Effect.flatMap(exists(chatId), (found): ReturnType<Service["get"]> =>
        found ? open("get", chatId) : Effect.fail(new Chat.ChatNotFoundError({ chatId })))

    const fromExport: Service["fromExport"] = (chatId, data) =>
      Effect.gen(function*() {
        const prompt = yield* decodePrompt(data)
        const bad = badId("fromExport", chatId)
        if (bad !== undefined) return yield* Effect.fail(bad)
        yield* store.appendTurns(chatId, ChatTurns.fromPrompt(prompt)).pipe(Effect.mapError(backing("fromExport")))
        return yield* open("fromExport", chatId)
      })

    return PrecisChats.of({ get, getOrCreate: (chatId) => open("getOrCreate", chatId), fromExport })
  })

/**
 * The recall tools' handlers, as {@link layer} provides them.
 *
 * @since 0.1.0
 */
export type RecallHandlers = Tool.HandlersFor<typeof PrecisToolkit.PrecisToolkit.tools>

/**
 * The agent's toolkit with precis's recall tools added (`search`, `expand`,
 * `describe`, `read`), whose handlers the chat layers provide.
 *
 * @example
 * ```ts
 * import { PrecisChat } from "@precis/chat"
 * declare const AgentTools: import("@effect/ai").Toolkit.Toolkit<{}>
 * const tools = PrecisChat.withRecall(AgentTools) // chat.generateText({ prompt, toolkit: tools })
 * ```
 * @since 0.1.0
 */
export const withRecall = <Tools extends Record<string, Tool.Any>>(toolkit: Toolkit.Toolkit<Tools>) =>
  Toolkit.merge(toolkit, PrecisToolkit.PrecisToolkit)

/**
 * `PrecisChats`, `Chat.Persistence` (the same chats) and the recall tools'
 * handlers, over the `Assembler` and the store in context.
 *
 * @since 0.1.0
 */
export const layerFromAssembler = (
  options: Options = {}
): Layer.Layer<
  PrecisChats | Chat.Persistence | RecallHandlers,
  InvalidChatOptionsError,
  Assembler.Assembler | TurnStore.TurnStore | DagStore.DagStore | SearchIndex.SearchIndex
> =>
  Layer.effectContext(Effect.map(make(options), (service) =>
    Context.make(PrecisChats, service).pipe(
      Context.add(Chat.Persistence, Chat.Persistence.of({ get: service.get, getOrCreate: service.getOrCreate }))
    ))).pipe(Layer.merge(PrecisToolkit.layer))

/**
 * Options of {@link layer}: the chat's, the config of the Assembler it
 * builds (`Assembler.layer`: `system`, `recallNote`, the marks, ...) and the
 * compaction's (`CompactionManager.layer`).
 *
 * @since 0.1.0
 */
export interface LayerOptions extends Options {
  readonly assembler?: AssemblerConfig.Config | undefined
  readonly compactionDefaults?: CompactionOptions.Options | undefined
}

/**
 * The chat layer with its engine: {@link layerFromAssembler} over an
 * `Assembler`, a `CompactionManager` and a `Summarizer` it builds, over a
 * summarizer `Provider` (the extractive one runs offline) and a store driver
 * (`SqliteStore.layer`, `PgStore.layer`).
 *
 * @since 0.1.0
 */
export const layer = (
  options: LayerOptions = {}
): Layer.Layer<
  PrecisChats | Chat.Persistence | RecallHandlers,
  InvalidChatOptionsError | ContextError.InvalidContextOptionsError | CompactionOptions.InvalidOptionsError,
  Provider.Provider | TurnStore.TurnStore | DagStore.DagStore | SearchIndex.SearchIndex | WorkQueue.WorkQueue
> => {
  const { assembler = {}, compactionDefaults, ...chat } = options
  return layerFromAssembler(chat).pipe(
    Layer.provide(Assembler.layer(assembler)),
    Layer.provide(CompactionManager.layer(compactionDefaults)),
    Layer.provide(Summarizer.layer())
  )
}

/**
 * A `Chat.Chat` for one session, from the `PrecisChats` in context
 * (`getOrCreate`).
 *
 * @since 0.1.0
 */
export const layerChat = (chatId: string): Layer.Layer<Chat.Chat, PersistenceBackingError, PrecisChats> =>
  Layer.effect(Chat.Chat, Effect.flatMap(PrecisChats, (chats) => chats.getOrCreate(chatId)))

/**
 * The chat of `chatId` from the `PrecisChats` in context, created when new.
 *
 * @since 0.1.0
 */
export const getOrCreate = (chatId: string): Effect.Effect<PrecisChat, PersistenceBackingError, PrecisChats> =>
  Effect.flatMap(PrecisChats, (chats) => chats.getOrCreate(chatId))

export {
  /**
   * The session's whole conversation as a Prompt (what `export` encodes).
   *
   * @since 0.1.0
   */
  transcript
} from "./internal/session.js"
