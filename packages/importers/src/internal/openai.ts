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

/**
 * OpenAI chat messages: an array whose first element has a string `role`, or
 * an object with a `messages` array (its first key, else anywhere: weak).
 */
export const format = {
  name: "openai",
  title: "OpenAI chat JSON",
  lineBased: false,
  reader: read,
  detect: {
    claims: (probe) => {
      switch (probe._tag) {
        case "Element":
          return typeof probe.value.role === "string"
        case "Object":
          return Array.isArray(probe.value.messages)
        case "ObjectText":
          return /^\{\s*"messages"\s*:/.test(probe.text)
        case "ArrayHead":
          return false
      }
    },
    suggests: (probe) =>
      probe._tag === "ArrayHead"
        ? /"role"\s*:/.test(probe.head)
        : probe._tag === "ObjectText" && /"messages"\s*:\s*\[/.test(probe.text)
  }
} as const satisfies Format<"openai">
