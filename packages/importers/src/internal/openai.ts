/**
 * OpenAI chat messages: a JSON array of messages, or `{ "messages": [...] }`,
 * read by the shared OpenAI-style message reader.
 *
 * @internal
 */
import { isRecord, LineFailure, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { parseJson } from "./json.js"
import * as Messages from "./openAiMessages.js"

/** The messages of an OpenAI chat JSON value, and the key they sit under. */
const messagesOf = (value: unknown): { readonly messages: ReadonlyArray<unknown>; readonly key?: string } | undefined =>
  Array.isArray(value)
    ? { messages: value }
    : isRecord(value) && Array.isArray(value.messages)
    ? { messages: value.messages, key: "messages" }
    : undefined

/** Reads an OpenAI chat JSON document into `out`, or throws a `LineFailure`. */
export const read = (text: string, out: Sink): void => {
  const found = messagesOf(parseJson(text))
  if (found === undefined) {
    throw new LineFailure(1, "expected a JSON array of chat messages or an object with a \"messages\" array")
  }
  Messages.read(found.messages, { text, key: found.key, label: (index) => `message ${index + 1}` }, out)
}

// The first message of an OpenAI array is a record with a string `role` (an empty array is one too).
const firstHasRole = (messages: ReadonlyArray<unknown>): boolean =>
  messages.length === 0 || (isRecord(messages[0]) && typeof messages[0].role === "string")

/**
 * OpenAI chat messages: an object with a `messages` array of role messages
 * (its first key, else anywhere: weak); an array whose first element has a
 * string `role` is weak evidence too (Cline's Anthropic messages have one).
 */
export const format = {
  name: "openai",
  title: "OpenAI chat JSON",
  lineBased: false,
  reader: read,
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? Array.isArray(probe.value.messages) && firstHasRole(probe.value.messages)
        : probe._tag === "ObjectText" && /^\{\s*"messages"\s*:/.test(probe.text),
    suggests: (probe) => {
      switch (probe._tag) {
        case "Element":
          return typeof probe.value.role === "string"
        case "ArrayHead":
          return /"role"\s*:/.test(probe.head)
        case "ObjectText":
          return /"messages"\s*:\s*\[/.test(probe.text)
        default:
          return false
      }
    }
  }
} as const satisfies Format<"openai">
