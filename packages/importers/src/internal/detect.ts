/**
 * Format detection by content: the first non-blank character and the keys of
 * the first line (JSONL) or of the first element (JSON arrays); the file name
 * only breaks ties.
 *
 * @internal
 */
import { isRecord, type SourceFormat } from "./common.js"

const CLAUDE_TYPES = new Set([
  "user",
  "assistant",
  "summary",
  "system",
  "progress",
  "file-history-snapshot",
  "queue-operation"
])

/** The format of one parsed JSONL line or whole-file object, if it is recognizable. */
const ofObject = (value: Record<string, unknown>): SourceFormat | undefined => {
  if (Array.isArray(value.history)) return "swe-agent"
  if (Array.isArray(value.messages)) return "openai"
  if ("message_tree_id" in value || isRecord(value.prompt)) return "oasst"
  if (typeof value.type === "string" && (CLAUDE_TYPES.has(value.type) || "sessionId" in value || "uuid" in value)) {
    return "claude-code"
  }
  if (typeof value.role === "string" && "content" in value) return "precis"
  return undefined
}

/** The format of the first element of a JSON array. */
const ofElement = (value: Record<string, unknown>): SourceFormat | undefined =>
  typeof value.action === "string" || typeof value.observation === "string"
    ? "openhands"
    : typeof value.role === "string"
    ? "openai"
    : undefined

/** The text of the first complete `{...}` at or after `from`, if the sample holds it whole. */
const firstObject = (sample: string, from: number): string | undefined => {
  const start = sample.indexOf("{", from)
  if (start === -1) return undefined
  let depth = 0
  for (let i = start; i < sample.length; i++) {
    const c = sample[i]
    if (c === "\"") {
      for (i++; i < sample.length && sample[i] !== "\""; i++) if (sample[i] === "\\") i++
    } else if (c === "{" || c === "[") depth++
    else if (c === "}" || c === "]") {
      depth--
      if (depth === 0) return sample.slice(start, i + 1)
    }
  }
  return undefined
}

const tryParse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The format of a file from its first bytes (`sample`, say the first 64 KiB)
 * and its name, or `undefined` when nothing matches.
 */
export const detect = (sample: string, fileName = ""): SourceFormat | undefined => {
  const text = sample.charCodeAt(0) === 0xfeff ? sample.slice(1) : sample
  const start = text.search(/\S/)
  if (start === -1) return undefined
  if (text[start] === "[") {
    const whole = tryParse(text)
    const first = Array.isArray(whole) ? whole[0] : tryParse(firstObject(text, start) ?? "")
    if (isRecord(first)) return ofElement(first)
    const head = text.slice(start, start + 4096)
    if (/"(?:action|observation)"\s*:/.test(head)) return "openhands"
    if (/"role"\s*:/.test(head)) return "openai"
    return undefined
  }
  if (text[start] !== "{") return undefined
  const end = text.indexOf("\n", start)
  const firstLine = text.slice(start, end === -1 ? text.length : end)
  const parsed = tryParse(firstLine)
  if (isRecord(parsed)) return ofObject(parsed)
  // A pretty-printed object, or a first line longer than the sample.
  if (
    /"history"\s*:\s*\[/.test(text) || /^\{\s*"(?:environment|trajectory)"\s*:/.test(text.slice(start)) ||
    /\.traj(?:\.json)?$/i.test(fileName)
  ) return "swe-agent"
  if (/^\{\s*"messages"\s*:/.test(text.slice(start))) return "openai"
  if (/"message_tree_id"\s*:/.test(firstLine)) return "oasst"
  if (/"type"\s*:\s*"(?:user|assistant|summary|system|progress|file-history-snapshot)"/.test(firstLine)) {
    return "claude-code"
  }
  if (/"messages"\s*:\s*\[/.test(text)) return "openai"
  if (/^\{\s*"role"\s*:/.test(firstLine)) return "precis"
  return undefined
}
