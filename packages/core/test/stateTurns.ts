/**
 * Turns as the importers write them, for the session state's tests.
 */
import * as ConversationTurn from "../src/ConversationTurn.js"
import * as SessionState from "../src/SessionState.js"

// ---------------------------------------------------------------------------- turns as importers write them

export type Meta = { readonly [key: string]: unknown }

export const user = (id: string, content: string, metadata: Meta = {}) =>
  ConversationTurn.make({ role: "user", content, id, metadata })

export const say = (id: string, content: string) => ConversationTurn.make({ role: "assistant", content, id })

/** An assistant turn making one tool call (id `c-<turn id>`), as the Claude Code importer records it. */
export const call = (id: string, name: string, input: Meta, metadata: Meta = {}) =>
  ConversationTurn.make({
    role: "assistant",
    content: `[tool_call ${name}] ${JSON.stringify(input)}`,
    id,
    metadata: { ...metadata, toolCalls: [{ id: `c-${id}`, name, arguments: JSON.stringify(input) }] }
  })

/** The result of the call made by turn `callTurn`. */
export const result = (id: string, callTurn: string, content: string, isError = false) =>
  ConversationTurn.make({
    role: "tool",
    content,
    id,
    metadata: isError ? { toolCallId: `c-${callTurn}`, isError: true } : { toolCallId: `c-${callTurn}` }
  })

/** A shell command and its output: two turns, `<id>` and `<id>r`. */
export const bash = (id: string, command: string, output: string, isError = false) => [
  call(id, "Bash", { command }),
  result(`${id}r`, id, output, isError)
]

/** An edit of `path` that went through: two turns, `<id>` and `<id>r`. */
export const edit = (id: string, path: string) => [call(id, "Edit", { file_path: path, old_string: "a", new_string: "b" }), result(`${id}r`, id, "updated")]

export const fold = (...turns: ReadonlyArray<ConversationTurn.ConversationTurn | ReadonlyArray<ConversationTurn.ConversationTurn>>) =>
  SessionState.fold(turns.flat())
