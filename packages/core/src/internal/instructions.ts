/**
 * What the user and the agent said about what comes next, read for the
 * session state: the user's standing constraints and decisions, the answer
 * to a question the agent asked, and the agent's stated intent. Pure and
 * deterministic.
 *
 * @internal
 */
import * as ToolMetadata from "../ToolMetadata.js"
import { clip } from "./commands.js"

const MAX_SAID = 160
const MAX_INTENT = 120

// The sentences of a text: split after `.`, `!` or `?`, and at line breaks.
const sentences = (text: string): ReadonlyArray<string> =>
  text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter((s) => s.length > 0)

// A constraint or a decision that stands: a prohibition, an "always", a choice of a tool or a way.
const STANDING = /\b(?:don'?t|do not|never|always|must|make sure|instead|avoid|no need to)\b|^(?:please,?\s+)?(?:use|keep|prefer|stick to)\b/i

/** The sentences of a user's request that stand beyond it: `don't push until…`, `use X instead`, `always …`. */
export const standing = (request: string): ReadonlyArray<string> =>
  sentences(request).filter((s) => STANDING.test(s)).map((s) => clip(s, MAX_SAID))

/** A request in full as a decision (it answers the agent's question), cut to the section's length. */
export const decision = (request: string): string => clip(request, MAX_SAID)

// The prose of an assistant's turn: its call lines and reasoning aside.
const prose = (content: string): ReadonlyArray<string> =>
  content.split("\n").filter((l) => !ToolMetadata.isCallLine(l) && !l.startsWith("[thinking]") && l.trim().length > 0)

/** Whether an assistant's prose ends with a question to the user. */
export const asks = (content: string): boolean => prose(content).at(-1)?.trimEnd().endsWith("?") ?? false

/** Whether an assistant's turn says anything beyond its calls and reasoning. */
export const speaks = (content: string): boolean => prose(content).length > 0

const INTENT = /^(?:(?:now|next|then|first),?\s+)?(?:I'll|I will|let me|let's)\s+\S/i

/** The agent's last stated intent in a turn (`Now I'll …`, `Next, I'll …`, `Let me …`), without its final stop. */
export const intentOf = (content: string): string | undefined => {
  const said = prose(content).flatMap(sentences).filter((s) => INTENT.test(s)).at(-1)
  return said === undefined ? undefined : clip(said.replace(/[.:!\s]+$/, ""), MAX_INTENT)
}

/** The answers of a question tool's result (`User has answered your questions: "…"="…"`), if it is one. */
export const answersOf = (output: string): string | undefined => {
  const m = /^User has answered your questions?:\s*([\s\S]+?)(?:\.\s*You can now continue[\s\S]*)?$/.exec(output.trim())
  return m === null ? undefined : clip(m[1]!, MAX_SAID)
}
