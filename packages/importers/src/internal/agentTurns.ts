/**
 * What the readers of other agents' logs (Codex, Gemini CLI, opencode, pi,
 * Cline, aider) share: an assistant turn of text and tool calls, the `tool`
 * turn of a result paired with its call by id, derived ids in file order, and
 * the small conversions their sources need (epoch milliseconds, a shell
 * command given as an argv array, an exit code said in a result's text).
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import { derivedId, joinLines, type Sink, type ToolCall } from "./common.js"

/** A turn about to be added: the fields of `Sink.add` with an optional id (derived when absent). */
export interface Draft {
  readonly role: string
  readonly content: string
  readonly id?: string | undefined
  readonly timestamp?: string | undefined
  readonly sessionId?: string | undefined
  readonly metadata?: Record<string, unknown> | undefined
}

/**
 * Adds turns to a sink in order, deriving the id of a turn without one from
 * its position (`<format>:<index>-<hash>`), and remembering the tool names of
 * the calls made so that a result that does not name its tool gets it.
 */
export class Emitter {
  private index = 0
  private readonly names = new Map<string, string>()

  /** Adds a turn read at `line`; a turn with empty content is dropped. */
  add(out: Sink, line: number, draft: Draft): void {
    if (draft.content.length === 0) return
    out.add(line, {
      ...draft,
      id: draft.id ?? derivedId(out.format, this.index, draft.role, draft.content, draft.timestamp)
    })
    this.index++
  }

  /**
   * Adds an assistant turn of `texts` and `calls` (a `[tool_call name] args`
   * line per call, the calls in `metadata.toolCalls`), nothing when both are empty.
   */
  assistant(out: Sink, line: number, texts: ReadonlyArray<string>, calls: ReadonlyArray<ToolCall>, draft: Omit<Draft, "role" | "content">): void {
    for (const call of calls) if (call.id !== undefined) this.names.set(call.id, call.name)
    this.add(out, line, {
      ...draft,
      role: "assistant",
      content: joinLines("", [...texts.filter((t) => t.length > 0), ...calls.map((c) => ToolMetadata.callLine(c.name, c.arguments))]),
      metadata: { ...draft.metadata, ...ToolMetadata.make({ toolCalls: calls.length > 0 ? calls : undefined }) }
    })
  }

  /** Adds the `tool` turn of a result answering call `callId` (its tool named from the call when not given). */
  result(out: Sink, line: number, result: Result, draft: Omit<Draft, "role" | "content">): void {
    const toolName = result.toolName ?? (result.callId === undefined ? undefined : this.names.get(result.callId))
    this.add(out, line, {
      ...draft,
      role: "tool",
      // A result with no output still answers its call.
      content: result.content.length > 0 ? result.content : "(no output)",
      metadata: {
        ...draft.metadata,
        ...ToolMetadata.make({
          toolCallId: result.callId,
          toolName,
          isError: result.isError === true ? true : undefined,
          exitCode: result.exitCode ?? exitCodeIn(result.content)
        })
      }
    })
  }
}

/** A tool's result as a source gives it. */
export interface Result {
  readonly callId: string | undefined
  readonly content: string
  readonly toolName?: string | undefined
  readonly isError?: boolean | undefined
  readonly exitCode?: number | undefined
}

/** A tool call with its arguments as a JSON string (an object is serialized). */
export const call = (id: string | undefined, name: string, args: unknown): ToolCall => ({
  ...(id === undefined ? {} : { id }),
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args ?? {})
})

// How agents say a command's exit code in its result's text (Codex, Cline).
const EXIT_CODE = /(?:Process exited with code|exit code:?|Exit Code:)\s*(-?\d+)/i

/** The exit code a result's text states, if any. */
export const exitCodeIn = (text: string): number | undefined => {
  const match = EXIT_CODE.exec(text.slice(0, 2048))
  return match === null ? undefined : Number(match[1])
}

/** An ISO-8601 timestamp from epoch milliseconds (a number), a string as is, else `undefined`. */
export const timestampOf = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof value === "number" && Number.isFinite(value)
    ? new Date(value).toISOString()
    : undefined

const SHELLS = new Set(["bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"])

/**
 * A shell call's input with its `command` as one line when the agent gives it
 * as an argv array (Codex's `shell`: `["bash", "-lc", "npm test"]` is
 * `npm test`; the array is kept as `argv`), so that the session state reads the
 * command; any other input as is.
 */
export const shellInput = (input: unknown): unknown => {
  if (typeof input !== "object" || input === null || !("command" in input)) return input
  const argv = (input as { readonly command: unknown }).command
  if (!Array.isArray(argv) || !argv.every((a): a is string => typeof a === "string")) return input
  const script = argv.length === 3 && SHELLS.has(argv[0]!) && /^-l?c$/.test(argv[1]!)
    ? argv[2]!
    : argv.map((a) => (/^[\w./=:@%+-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(" ")
  return { ...input, command: script, argv }
}

/** The text of a value that should be a string: the string, else its JSON (`""` for null or absent). */
export const textOf = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value)
