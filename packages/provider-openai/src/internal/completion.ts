/**
 * Pure parts of the Chat Completions protocol: the response schema and the
 * text a response stands for.
 */
import { Provider } from "@precis/core"
import * as Schema from "effect/Schema"

const NullableString = Schema.optional(Schema.NullOr(Schema.String))

// Some servers (Mistral, a few proxies) send content as an array of parts.
const ContentPart = Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })

const Message = Schema.Struct({
  content: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Array(ContentPart)))),
  refusal: NullableString,
  // Reasoning channels used by DeepSeek, vLLM, Ollama and OpenRouter; never the answer.
  reasoning_content: NullableString,
  reasoning: NullableString
})

const Usage = Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number
})

/** The part of a Chat Completions response precis reads; other fields are ignored. */
export const ChatCompletion = Schema.Struct({
  choices: Schema.Array(Schema.Struct({ message: Schema.optional(Schema.NullOr(Message)) })),
  usage: Schema.optional(Schema.NullOr(Usage))
})

/** @internal */
export type ChatCompletion = typeof ChatCompletion.Type

/** Decodes a response body (a JSON string) into a {@link ChatCompletion}. */
export const decodeChatCompletion = Schema.decodeUnknownEither(Schema.parseJson(ChatCompletion), {
  errors: "first"
})

/**
 * The answer a response carries: the first choice's content without
 * reasoning. No choice, `content: null`, a refusal or a reasoning-only reply
 * give `""`, which the Summarizer treats as a blank reply and escalates.
 */
export const replyText = (completion: ChatCompletion): string => {
  const message = completion.choices[0]?.message
  if (message === undefined || message === null) return ""
  if (typeof message.refusal === "string" && message.refusal.trim().length > 0) return ""
  const content = message.content
  if (content === undefined || content === null) return ""
  const text = typeof content === "string"
    ? content
    : content.map((part) => (part.type === "text" && part.text !== undefined ? part.text : "")).join("")
  return Provider.stripReasoning(text)
}
