/**
 * The LLM port: everything precis needs from a language model is one chat call.
 * Its failures live in `ProviderError`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { ProviderError } from "./ProviderError.js"
import * as SummaryTaskModule from "./SummaryTask.js"

/**
 * @since 0.1.0
 */
export const ChatRole = Schema.Literal("system", "user", "assistant")

/**
 * @since 0.1.0
 */
export type ChatRole = typeof ChatRole.Type

/**
 * One message of a chat request.
 *
 * @since 0.1.0
 */
export const ChatMessage = Schema.Struct({ role: ChatRole, content: Schema.String })

/**
 * @since 0.1.0
 */
export type ChatMessage = typeof ChatMessage.Type

/**
 * The kind of summarization work a request carries (`SummaryTask.Kind`).
 *
 * @since 0.1.0
 */
export const TaskKind = SummaryTaskModule.Kind

/**
 * @since 0.1.0
 */
export type TaskKind = SummaryTaskModule.Kind

/**
 * The structured work behind a request (`SummaryTask.SummaryTask`: the turns
 * of a leaf or the child summaries of a condensation), always filled by the
 * Summarizer.
 *
 * @since 0.1.0
 */
export const SummaryTask = SummaryTaskModule.SummaryTask

/**
 * @since 0.1.0
 */
export type SummaryTask = SummaryTaskModule.SummaryTask

/**
 * A chat request: the `messages` to send, or a `task` to render. A request
 * from the Summarizer carries its `task` and no messages: a provider that
 * sends text renders the prompt from the task, once (`Prompt.messages`); the
 * extractive provider reads the task's items.
 *
 * @since 0.1.0
 */
export const ChatRequest = Schema.Struct({
  messages: Schema.Array(ChatMessage),
  temperature: Schema.Number,
  maxTokens: Schema.Number,
  task: Schema.optional(SummaryTask)
})

/**
 * @since 0.1.0
 */
export type ChatRequest = typeof ChatRequest.Type

/**
 * Token usage as reported by the model, when it reports it.
 *
 * @since 0.1.0
 */
export const Usage = Schema.Struct({ inputTokens: Schema.Number, outputTokens: Schema.Number })

/**
 * @since 0.1.0
 */
export type Usage = typeof Usage.Type

/**
 * @since 0.1.0
 */
export const ChatResponse = Schema.Struct({ text: Schema.String, usage: Schema.optional(Usage) })

/**
 * @since 0.1.0
 */
export type ChatResponse = typeof ChatResponse.Type

/**
 * @since 0.1.0
 */
export interface Service {
  /** A short name used in error messages and spans, e.g. `"openai"`. */
  readonly name: string
  readonly chat: (request: ChatRequest) => Effect.Effect<ChatResponse, ProviderError>
}

/**
 * The Provider service tag.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Provider } from "@precis/core"
 * const echo = Layer.succeed(Provider.Provider, Provider.Provider.of({
 *   name: "echo",
 *   chat: (request) => Effect.succeed({ text: request.messages.at(-1)?.content ?? "" })
 * }))
 * ```
 * @since 0.1.0
 */
export class Provider extends Context.Tag("@precis/core/Provider")<Provider, Service>() {}

/**
 * A layer from a `chat` function.
 *
 * @since 0.1.0
 */
export const layerFromChat = (
  name: string,
  chat: Service["chat"]
): Layer.Layer<Provider> => Layer.succeed(Provider, Provider.of({ name, chat }))

const THINK_BLOCK = /<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi
const THINK_OPEN = /<think(?:ing)?>/i
const THINK_CLOSE = /<\/think(?:ing)?>/i

/**
 * Removes reasoning from a model's reply, for providers whose models think
 * aloud: every `<think>…</think>` (or `<thinking>`) block, everything after an
 * unclosed `<think>` (the reply was cut while still reasoning) and everything
 * before a stray leading `</think>` (templates that open the block in the
 * prompt). The result is trimmed.
 *
 * @since 0.1.0
 */
export const stripReasoning = (text: string): string => {
  let out = text.replace(THINK_BLOCK, "")
  const close = out.search(THINK_CLOSE)
  if (close >= 0) out = out.slice(close).replace(THINK_CLOSE, "")
  const open = out.search(THINK_OPEN)
  if (open >= 0) out = out.slice(0, open)
  return out.trim()
}
