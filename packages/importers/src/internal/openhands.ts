/**
 * OpenHands event streams (a JSON array of events `{ id, timestamp, source,
 * message, action | observation, args | extras, cause, tool_call_metadata? }`).
 *
 * Which events become turns: every action and observation that says
 * something. Skipped: `agent_state_changed` observations, `null`
 * observations ("No observation") and `change_agent_state` actions — they
 * record the controller's bookkeeping, not the conversation.
 *
 * - a `message` action: role `user` (source user) or `assistant` (source
 *   agent), content its text;
 * - another action: role `assistant` (`system` when the environment acts),
 *   content the thought, the message and the action's main argument
 *   (`$ command`, the edited path, ...); the tool call in `metadata.toolCalls`;
 * - an observation: role `tool`, content its message and output, with
 *   `toolCallId`/`toolName` from `tool_call_metadata` and `cause`, and the
 *   command's `cwd` and `exitCode` from `extras.metadata` when present.
 *
 * Ids are `openhands:<event id>-<hash>`: event ids restart at 0 in every
 * conversation, the hash keeps two conversations apart.
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import { compact, contentHash, isRecord, joinLines, LineFailure, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { elementLines, parseJson } from "./json.js"

const SKIPPED_OBSERVATIONS = new Set(["agent_state_changed", "null"])
const SKIPPED_ACTIONS = new Set(["change_agent_state"])
const MAIN_ARGUMENTS = ["command", "path", "url", "code", "query", "task", "content"] as const

const roleOfSource = (source: unknown): string =>
  source === "user" ? "user" : source === "agent" ? "assistant" : "system"

const actionText = (action: string, message: string, args: Record<string, unknown>): string => {
  const thought = typeof args.thought === "string" ? args.thought : ""
  const main = MAIN_ARGUMENTS.find((k) => typeof args[k] === "string" && (args[k] as string).length > 0)
  const detail = main === undefined
    ? ""
    : main === "command"
    ? `$ ${args.command as string}`
    : `[${action}] ${main === "path" || main === "url" ? args[main] as string : `${main}: ${args[main] as string}`}`
  // "Running command: ls" repeats the command: keep the message only when it adds something.
  const said = message.length > 0 && (main === undefined || !message.includes(args[main] as string)) ? message : ""
  return joinLines(thought, [said, detail].filter((s) => s.length > 0))
}

// The type each field must have when present: a wrong one would otherwise
// read as an empty turn.
const FIELD_TYPES: ReadonlyArray<readonly [string, "string" | "object" | "boolean"]> = [
  ["source", "string"],
  ["message", "string"],
  ["content", "string"],
  ["args", "object"],
  ["extras", "object"],
  ["tool_call_metadata", "object"],
  ["success", "boolean"]
]

const fieldProblem = (event: Record<string, unknown>): string | undefined => {
  for (const [key, type] of FIELD_TYPES) {
    const value = event[key]
    if (value === undefined || value === null) continue
    if (type === "object" ? !isRecord(value) : typeof value !== type) {
      return `"${key}" must be ${type === "object" ? "an object" : `a ${type}`} when present`
    }
  }
  if (event.id !== undefined && typeof event.id !== "number" && typeof event.id !== "string") {
    return "\"id\" must be a number or a string when present"
  }
  if (event.cause !== undefined && event.cause !== null && typeof event.cause !== "number" && typeof event.cause !== "string") {
    return "\"cause\" must be a number or a string when present"
  }
  const args = isRecord(event.args) ? event.args : {}
  for (const key of ["thought", "content"] as const) {
    if (args[key] !== undefined && typeof args[key] !== "string") return `"args.${key}" must be a string when present`
  }
  const tool = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : {}
  for (const key of ["tool_call_id", "function_name"] as const) {
    if (tool[key] !== undefined && typeof tool[key] !== "string") {
      return `"tool_call_metadata.${key}" must be a string when present`
    }
  }
  return undefined
}

/** Reads an OpenHands event array into `out`, each turn at the line where its event starts, or throws a `LineFailure`. */
export const read = (text: string, out: Sink): void => {
  const value = parseJson(text)
  if (!Array.isArray(value)) throw new LineFailure(1, "expected a JSON array of OpenHands events")
  const lines = elementLines(text)
  const lineOf = (index: number): number => lines[index] ?? 1
  const fail = (index: number, reason: string): never => {
    throw new LineFailure(lineOf(index), `event ${index + 1}: ${reason}`)
  }
  value.forEach((event, index) => {
    if (!isRecord(event) || (typeof event.action !== "string" && typeof event.observation !== "string")) {
      return fail(index, "expected an event object with a string \"action\" or \"observation\"")
    }
    if (event.timestamp !== undefined && typeof event.timestamp !== "string") {
      return fail(index, "\"timestamp\" must be a string")
    }
    const problem = fieldProblem(event)
    if (problem !== undefined) return fail(index, problem)
    const message = typeof event.message === "string" ? event.message : ""
    const tool = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : {}
    const toolCallId = typeof tool.tool_call_id === "string" ? tool.tool_call_id : undefined
    const toolName = typeof tool.function_name === "string" ? tool.function_name : undefined
    const eventId = typeof event.id === "number" || typeof event.id === "string" ? String(event.id) : String(index)
    const timestamp = event.timestamp as string | undefined
    let role: string
    let content: string
    let metadata: Record<string, unknown>
    if (typeof event.action === "string") {
      if (SKIPPED_ACTIONS.has(event.action)) return
      const args = isRecord(event.args) ? event.args : {}
      if (event.action === "message") {
        role = roleOfSource(event.source)
        content = typeof args.content === "string" ? args.content : message
      } else {
        role = event.source === "environment" ? "system" : "assistant"
        content = actionText(event.action, message, args)
      }
      metadata = {
        ...compact({ eventId, source: event.source }),
        ...ToolMetadata.make({
          action: event.action,
          toolCalls: toolName === undefined ? undefined : [
            {
              ...(toolCallId === undefined ? {} : { id: toolCallId }),
              name: toolName,
              arguments: JSON.stringify(Object.fromEntries(Object.entries(args).filter(([k]) => k !== "thought")))
            }
          ]
        })
      }
    } else {
      const observation = event.observation as string
      if (SKIPPED_OBSERVATIONS.has(observation)) return
      role = "tool"
      content = joinLines(message, [typeof event.content === "string" ? event.content : ""])
      const run = isRecord(event.extras) && isRecord(event.extras.metadata) ? event.extras.metadata : {}
      metadata = {
        ...compact({
          eventId,
          observation,
          source: event.source,
          cause: event.cause === undefined ? undefined : String(event.cause)
        }),
        ...ToolMetadata.make({
          toolCallId,
          toolName,
          success: typeof event.success === "boolean" ? event.success : undefined,
          // A command's working directory and exit code (`extras.metadata`), when the runtime says them.
          cwd: typeof run.working_dir === "string" && run.working_dir.length > 0 ? run.working_dir : undefined,
          exitCode: typeof run.exit_code === "number" && run.exit_code >= 0 ? run.exit_code : undefined
        })
      }
    }
    out.add(lineOf(index), {
      role,
      content,
      id: `openhands:${eventId}-${contentHash(role, content, timestamp)}`,
      timestamp,
      metadata
    })
  })
}

/** OpenHands events: an array whose first element has a string `action` or `observation`. */
export const format = {
  name: "openhands",
  title: "OpenHands events",
  lineBased: false,
  reader: read,
  detect: {
    claims: (probe) =>
      probe._tag === "Element"
        ? typeof probe.value.action === "string" || typeof probe.value.observation === "string"
        : probe._tag === "ArrayHead" && /"(?:action|observation)"\s*:/.test(probe.head)
  }
} as const satisfies Format<"openhands">
