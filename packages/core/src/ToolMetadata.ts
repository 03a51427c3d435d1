/**
 * What importers write on a turn about tools and where the agent worked: the
 * {@link ToolMetadata} Schema of the keys of `turn.metadata` that precis reads
 * (the calls an assistant turn makes, what a tool result answers and how it
 * ended, the working directory and branch, the flags of turns that are no
 * request), and the `[tool_call name] arguments` line an importer adds to an
 * assistant turn's content for each call ({@link callLine}).
 *
 * Importers build the metadata with {@link make}; `ToolUse` and `SessionState`
 * read it with {@link read}, which decodes each key on its own (a malformed
 * key is absent, the others stay) and folds the spellings agent frameworks use
 * (`tool_call_id`, `tool_use_id`, `is_error`, `isMeta`, ...) into the one
 * written here.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * One tool call as an importer records it: its id (when the source gives
 * one), the tool's name and its arguments, a JSON string (an object is read
 * too).
 *
 * @since 0.1.0
 */
export const ToolCall = Schema.Struct({
  id: Schema.optional(Schema.String),
  name: Schema.String,
  arguments: Schema.Union(Schema.String, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

/**
 * @since 0.1.0
 */
export type ToolCall = typeof ToolCall.Type

/**
 * The keys of a turn's metadata that precis reads:
 *
 * - `toolCalls`: the calls an assistant turn makes, in order;
 * - `toolCallId` (`toolCallIds` when a result answers several), `toolName`,
 *   `isError`: what a tool result answers and whether the tool said it failed;
 *   `exitCode` and `success`: how the command ended, when the source says it;
 *   `hookRefused`: a hook refused the call (Claude Code's PreToolUse hook): it
 *   did not run, the result is the hook's report;
 * - `cwd`, `gitBranch`, `gitRoot`: where the agent worked (the session's
 *   project is the first `cwd` its turns carry, and `gitRoot` when a source
 *   names the repository's root);
 * - `sourceFormat`: the format the importer read (`claude-code`, ...): the
 *   agent that wrote the turn;
 * - `action`: the action of an OpenHands event (its content ends with a detail line);
 * - `meta`, `sidechain`, `isDemo`: a turn that is no request of the user's
 *   (a harness's meta line, a sub-agent's thread, a demonstration).
 *
 * Other keys (a source's own ids, ...) are free.
 *
 * @since 0.1.0
 */
export const ToolMetadata = Schema.Struct({
  toolCalls: Schema.optional(Schema.Array(ToolCall)),
  toolCallId: Schema.optional(Schema.String),
  toolCallIds: Schema.optional(Schema.Array(Schema.String)),
  toolName: Schema.optional(Schema.String),
  isError: Schema.optional(Schema.Boolean),
  exitCode: Schema.optional(Schema.Number),
  success: Schema.optional(Schema.Boolean),
  hookRefused: Schema.optional(Schema.Boolean),
  cwd: Schema.optional(Schema.String),
  gitBranch: Schema.optional(Schema.String),
  gitRoot: Schema.optional(Schema.String),
  sourceFormat: Schema.optional(Schema.String),
  action: Schema.optional(Schema.String),
  meta: Schema.optional(Schema.Boolean),
  sidechain: Schema.optional(Schema.Boolean),
  isDemo: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 */
export type ToolMetadata = typeof ToolMetadata.Type

/**
 * The metadata keys under which importers and agent frameworks record the id
 * of the tool call a result answers, the one {@link make} writes first.
 *
 * @since 0.1.0
 */
export const callIdKeys = ["toolCallId", "tool_call_id", "tool_use_id", "toolUseId"] as const

/**
 * {@link ToolMetadata} from fields that may be `undefined` (dropped), for an
 * importer to spread into a turn's metadata.
 *
 * @example
 * ```ts
 * import { ToolMetadata } from "@precis/core"
 * ToolMetadata.make({ toolCallId: "t1", toolName: undefined, isError: true }) // { toolCallId: "t1", isError: true }
 * ```
 * @since 0.1.0
 */
export const make = (fields: { readonly [K in keyof ToolMetadata]?: ToolMetadata[K] | undefined }): ToolMetadata => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value
  return out as ToolMetadata
}

type Metadata = { readonly [key: string]: unknown } | undefined

// A string that says something (an empty one counts as absent).
const text = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined)

// A call as agent frameworks write it: `arguments` (or `input`) a JSON string or an object; no name, no call.
const toolCall = (entry: unknown): ToolCall | undefined => {
  if (!Predicate.isRecord(entry)) return undefined
  const name = text(entry.name)
  if (name === undefined) return undefined
  const args = entry.arguments ?? entry.input
  const id = text(entry.id)
  const call = { name, arguments: typeof args === "string" || Predicate.isRecord(args) ? args : "" }
  return id === undefined ? call : { id, ...call }
}

const isStrings = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.every((item) => typeof item === "string")

/**
 * The {@link ToolMetadata} of a turn's metadata, each key decoded on its own
 * (its type checked as the Schema gives it): a key of the wrong type (or an
 * empty string) is absent, entries of `toolCalls` without a name are skipped.
 * The spellings agent frameworks use are read too: the call id under any of
 * {@link callIdKeys}, `name` for `toolName`, `input` for a call's
 * `arguments`, `is_error`, `isMeta`. A `gitBranch` of `HEAD` (what Claude
 * Code writes outside a repository) is no branch. Runs on every turn the material, the
 * masks and the session state read, so it checks by hand what the Schema
 * states.
 *
 * @example
 * ```ts
 * import { ToolMetadata } from "@precis/core"
 * ToolMetadata.read({ tool_use_id: "t2", is_error: true, exitCode: "1" }) // { toolCallId: "t2", isError: true }
 * ```
 * @since 0.1.0
 */
export const read = (metadata: Metadata): ToolMetadata => {
  if (metadata === undefined) return {}
  const m = metadata
  const out: { -readonly [K in keyof ToolMetadata]: ToolMetadata[K] } = {}
  if (Array.isArray(m.toolCalls)) {
    const calls: Array<ToolCall> = []
    for (const entry of m.toolCalls) {
      const call = toolCall(entry)
      if (call !== undefined) calls.push(call)
    }
    out.toolCalls = calls
  }
  for (const key of callIdKeys) {
    const id = text(m[key])
    if (id !== undefined) {
      out.toolCallId = id
      break
    }
  }
  if (isStrings(m.toolCallIds)) out.toolCallIds = m.toolCallIds
  const toolName = text(m.toolName) ?? text(m.name)
  if (toolName !== undefined) out.toolName = toolName
  if (m.isError === true || m.is_error === true) out.isError = true
  if (typeof m.exitCode === "number") out.exitCode = m.exitCode
  if (typeof m.success === "boolean") out.success = m.success
  if (m.hookRefused === true) out.hookRefused = true
  const cwd = text(m.cwd)
  if (cwd !== undefined) out.cwd = cwd
  const gitBranch = text(m.gitBranch)
  // `HEAD` is what an agent records outside a repository (or on a detached head): no branch.
  if (gitBranch !== undefined && gitBranch !== "HEAD") out.gitBranch = gitBranch
  const gitRoot = text(m.gitRoot)
  if (gitRoot !== undefined) out.gitRoot = gitRoot
  const sourceFormat = text(m.sourceFormat)
  if (sourceFormat !== undefined) out.sourceFormat = sourceFormat
  const action = text(m.action)
  if (action !== undefined) out.action = action
  if (m.meta === true || m.isMeta === true) out.meta = true
  if (m.sidechain === true) out.sidechain = true
  if (m.isDemo === true) out.isDemo = true
  return out
}

const CALL_LINE = "[tool_call "

/**
 * The line an importer adds to an assistant turn's content for one tool call:
 * `[tool_call NAME] ARGUMENTS`. Rendering replaces it with an action line
 * (`Material`); prose readers skip it ({@link isCallLine}).
 *
 * @example
 * ```ts
 * import { ToolMetadata } from "@precis/core"
 * ToolMetadata.callLine("Bash", "{\"command\":\"ls\"}") // "[tool_call Bash] {\"command\":\"ls\"}"
 * ```
 * @since 0.1.0
 */
export const callLine = (name: string, args: string): string => `${CALL_LINE}${name}] ${args}`

/**
 * Whether a line is a {@link callLine} (leading spaces aside).
 *
 * @since 0.1.0
 */
export const isCallLine = (line: string): boolean => line.trimStart().startsWith(CALL_LINE)
