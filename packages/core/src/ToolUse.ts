/**
 * The tool structure of turns, as importers record it in `metadata`
 * (`ToolMetadata`): the calls an assistant turn makes (`toolCalls`, their
 * arguments parsed) and what a tool-result turn answers (`toolCallId`,
 * `toolName`, `isError`). Read it through this module, never by hand: one
 * reading for the material, the masks and the session state.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import { isToolResult } from "./ConversationTurn.js"
import * as ToolKind from "./ToolKind.js"
import * as ToolMetadata from "./ToolMetadata.js"

/**
 * One tool call: its id (when the source gives one), the tool's name and its
 * input, parsed (`{}` when the arguments are not a JSON object; the text is
 * kept in `arguments`).
 *
 * @since 0.1.0
 */
export interface Call {
  readonly id: string | undefined
  readonly name: string
  readonly input: { readonly [key: string]: unknown }
  readonly arguments: string
}

/**
 * What a tool-result turn answers: the call's id and the tool's name when the
 * source says them, and whether the tool reported an error.
 *
 * @since 0.1.0
 */
export interface Result {
  readonly callId: string | undefined
  readonly name: string | undefined
  readonly isError: boolean
}

type Turn = {
  readonly role: string
  readonly metadata?: { readonly [key: string]: unknown } | undefined
}

const parseInput = (args: unknown): { input: { readonly [key: string]: unknown }; text: string } => {
  if (Predicate.isRecord(args)) return { input: args, text: JSON.stringify(args) }
  if (typeof args !== "string") return { input: {}, text: "" }
  try {
    const parsed: unknown = JSON.parse(args)
    return { input: Predicate.isRecord(parsed) ? parsed : {}, text: args }
  } catch {
    return { input: {}, text: args }
  }
}

/**
 * The tool calls of a turn (`metadata.toolCalls`), in order; entries without a
 * name are skipped. `[]` for a turn that makes none.
 *
 * @example
 * ```ts
 * import { ToolUse } from "@precis/core"
 * const [call] = ToolUse.calls({
 *   role: "assistant",
 *   metadata: { toolCalls: [{ id: "t1", name: "Bash", arguments: "{\"command\":\"pnpm test\"}" }] }
 * })
 * call?.input.command // "pnpm test"
 * ```
 * @since 0.1.0
 */
export const calls = (turn: Turn): ReadonlyArray<Call> =>
  (ToolMetadata.read(turn.metadata).toolCalls ?? []).map((call) => {
    const { input, text } = parseInput(call.arguments)
    return { id: call.id, name: call.name, input, arguments: text }
  })

/**
 * What a tool-result turn answers, or `undefined` for a turn that is not a
 * tool result (`ConversationTurn.isToolResult`). The call id is read from
 * `toolCallId` (or `tool_call_id`, `tool_use_id`, `toolUseId`), the name from
 * `toolName` (or `name`), the error flag from `isError` (or `is_error`).
 *
 * @since 0.1.0
 */
export const result = (turn: Turn): Result | undefined => {
  if (!isToolResult(turn)) return undefined
  const metadata = ToolMetadata.read(turn.metadata)
  return { callId: metadata.toolCallId, name: metadata.toolName, isError: metadata.isError === true }
}

/**
 * The call a tool result answers among `candidates` (the calls of the turns
 * before it, nearest first is the caller's order): the one with the result's
 * call id; without ids, the first call of the given name (in any case,
 * `ToolKind.normalizeName`), else the first call.
 *
 * @since 0.1.0
 */
export const callFor = (answer: Result, candidates: ReadonlyArray<Call>): Call | undefined => {
  if (answer.callId !== undefined) {
    const byId = candidates.find((call) => call.id === answer.callId)
    if (byId !== undefined) return byId
  }
  if (answer.name !== undefined) {
    const name = ToolKind.normalizeName(answer.name)
    const byName = candidates.find((call) => ToolKind.normalizeName(call.name) === name)
    if (byName !== undefined) return byName
  }
  return answer.callId === undefined ? candidates[0] : undefined
}

/**
 * The ids of the calls a turn makes (`metadata.toolCalls`), those with one.
 *
 * @since 0.1.0
 */
export const callIds = (turn: Turn): ReadonlyArray<string> =>
  (ToolMetadata.read(turn.metadata).toolCalls ?? []).flatMap((call) => call.id === undefined ? [] : [call.id])

/**
 * The ids of the calls a tool result answers (`toolCallId`, or `toolCallIds`
 * when it answers several); none for a turn that is no tool result.
 *
 * @since 0.1.0
 */
export const answeredIds = (turn: Turn): ReadonlyArray<string> => {
  if (!isToolResult(turn)) return []
  const metadata = ToolMetadata.read(turn.metadata)
  return [...(metadata.toolCallId === undefined ? [] : [metadata.toolCallId]), ...(metadata.toolCallIds ?? [])]
}

/**
 * A tool result paired with the call it answers: the call id, the indexes of
 * the call's turn and of the result's, and whether the pairing was
 * ambiguous (another call with the same id was still waiting for its result).
 *
 * @since 0.1.0
 */
export interface Pair {
  readonly id: string
  readonly call: number
  readonly result: number
  readonly ambiguous: boolean
}

/**
 * The pairs of calls and results among turns, and the calls still waiting
 * for their results (`open`: the call id and its turn's index).
 *
 * @since 0.1.0
 */
export interface Pairing {
  readonly pairs: ReadonlyArray<Pair>
  readonly open: ReadonlyArray<{ readonly id: string; readonly call: number }>
}

/**
 * Pairs each result among `items` (oldest first) with the nearest call before
 * it, by id, that has no result yet: ids reused later in a session (agents
 * and providers that number their calls per response: `call_0`, `call_1`)
 * pair each result with its own call. A result whose id no waiting call has
 * is left unpaired; `ambiguous` says that another call with its id was still
 * waiting too. `calls` and `answers` read the ids of the calls an item makes
 * and of those it answers.
 *
 * @example
 * ```ts
 * import { ToolUse } from "@precis/core"
 * const ids = (x: { c?: string; a?: string }, k: "c" | "a") => (x[k] === undefined ? [] : [x[k]!])
 * ToolUse.pairBy([{ c: "call_0" }, { a: "call_0" }, { c: "call_0" }, { a: "call_0" }], (x) => ids(x, "c"), (x) => ids(x, "a")).pairs
 * // [{ id: "call_0", call: 0, result: 1, ambiguous: false }, { id: "call_0", call: 2, result: 3, ambiguous: false }]
 * ```
 * @since 0.1.0
 */
export const pairBy = <A>(
  items: ReadonlyArray<A>,
  calls: (item: A) => ReadonlyArray<string>,
  answers: (item: A) => ReadonlyArray<string>
): Pairing => {
  const waiting = new Map<string, Array<number>>()
  const pairs: Array<Pair> = []
  items.forEach((item, i) => {
    for (const id of answers(item)) {
      const list = waiting.get(id)
      const call = list?.pop()
      if (call !== undefined) pairs.push({ id, call, result: i, ambiguous: list!.length > 0 })
    }
    for (const id of calls(item)) {
      const list = waiting.get(id)
      if (list === undefined) waiting.set(id, [i])
      else list.push(i)
    }
  })
  const open = [...waiting].flatMap(([id, list]) => list.map((call) => ({ id, call }))).sort((a, b) => a.call - b.call)
  return { pairs, open }
}

/**
 * {@link pairBy} over turns: their calls ({@link callIds}) and the calls their
 * results answer ({@link answeredIds}).
 *
 * @since 0.1.0
 */
export const pair = (turns: ReadonlyArray<Turn>): Pairing => pairBy(turns, callIds, answeredIds)

// The input keys that say what a call worked on, most telling first.
const TARGET_KEYS = [...ToolKind.commandKeys, ...ToolKind.pathKeys, "pattern", "query", "url"]

/**
 * What a call worked on: its command, path (`ToolKind.commandKeys`,
 * `ToolKind.pathKeys`), pattern, query or URL (the first of these inputs
 * present, trimmed), or `undefined`.
 *
 * @since 0.1.0
 */
export const target = (call: Call): string | undefined => {
  for (const key of TARGET_KEYS) {
    const value = call.input[key]
    if (typeof value === "string" && value.trim().length > 0) return value.trim()
  }
  return undefined
}
