/**
 * SWE-agent trajectories (`.traj`, one JSON object): every message of
 * `history[]` (OpenAI-style `{ role, content, tool_calls?, tool_call_ids? }`
 * plus `agent`, `message_type?`, `is_demo?`) becomes a turn, in order, read by
 * the shared OpenAI-style message reader. There are no timestamps; ids are
 * derived from position and content. An observation ending with SWE-agent's
 * prompt `(Current directory: /repo)` keeps that directory as `metadata.cwd`.
 *
 * @internal
 */
import { ToolMetadata } from "@precis/core"
import { compact, isRecord, LineFailure, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { parseJson } from "./json.js"
import * as Messages from "./openAiMessages.js"

// SWE-agent ends each observation with its prompt: `(Current directory: /repo)`.
const CURRENT_DIRECTORY = /\(Current directory: ([^)\n]+)\)\s*(?:bash-\$\s*)?$/

const metadata = (message: Record<string, unknown>): Record<string, unknown> => ({
  ...compact({
    agent: typeof message.agent === "string" ? message.agent : undefined,
    messageType: typeof message.message_type === "string" ? message.message_type : undefined
  }),
  ...ToolMetadata.make({
    cwd: typeof message.content === "string" ? CURRENT_DIRECTORY.exec(message.content)?.[1]?.trim() : undefined,
    isDemo: message.is_demo === true ? true : undefined
  })
})

/** Reads a SWE-agent trajectory into `out`, or throws a `LineFailure`. */
export const read = (text: string, out: Sink): void => {
  const value = parseJson(text)
  if (!isRecord(value) || !Array.isArray(value.history)) {
    throw new LineFailure(1, "expected a JSON object with a \"history\" array (a SWE-agent trajectory)")
  }
  Messages.read(value.history, { text, key: "history", label: (index) => `history[${index}]`, metadata }, out)
}

/**
 * SWE-agent trajectories: an object with a `history` array, or (pretty-printed,
 * or longer than the sample) one that starts with `environment` or
 * `trajectory`, or a file named `.traj` / `.traj.json`; a `history` array
 * anywhere in the sample is weaker evidence.
 */
export const format = {
  name: "swe-agent",
  title: "SWE-agent .traj",
  lineBased: false,
  reader: read,
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? Array.isArray(probe.value.history)
        : probe._tag === "ObjectText" &&
          (/^\{\s*"(?:environment|trajectory)"\s*:/.test(probe.text) || /\.traj(?:\.json)?$/i.test(probe.fileName)),
    suggests: (probe) => probe._tag === "ObjectText" && /"history"\s*:\s*\[/.test(probe.text)
  }
} as const satisfies Format<"swe-agent">
