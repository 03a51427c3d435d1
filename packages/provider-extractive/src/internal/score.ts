/**
 * Scoring of candidate segments beyond their facts (which `keys.ts` finds):
 * errors and their fixes, changes of state, decisions, the user's requests,
 * filler, tool calls and markup (the near-duplicate key is `nearKey.ts`, the
 * centrality `centrality.ts`).
 *
 * @internal
 */
import { ConversationTurn, OutputDigest, ToolKind, ToolMetadata } from "@precis/core"
import { isAsciiDigit, isAsciiLetter } from "./chars.js"

const RESOLUTION =
  /\b(?:fix|fixed|fixes|fixing|resolv\w*|solv\w*|root cause|caused by|works now|now pass\w*|all tests pass\w*|\d+ passed|passing|succeeded|workaround|patched)\b/i
const DECISION =
  /\b(?:decid\w*|decision|chose|choose|instead|we will|we'll|i'll use|let's use|going with|plan|agreed|must|should|don't|do not|never|always|todo|next step|approach|prefer|requirement|need to)\b/i
// A change in the state of the work: issue status updates, test and build
// results with their counts, commits, pushes, merges. A bare "closed" is not
// one (`:closed` atoms, "excludes closed annotations" are code).
const STATE =
  /--status[= ]\w+|\bbd (?:close|update|create)\b|✓ (?:Updated|Closed|Created)\b|\b(?:git (?:commit|push|merge|tag)|gh pr (?:create|merge))\b|\b\d+ (?:tests?|passed|failed|failures?|errors?|skipped|examples?|doctests?|properties)\b|\b(?:tests?|build|lint|checks?|compilation) (?:passed|failed|succeeded|pass|fail|fails|green|red)\b|^\[[\w/.-]+ [0-9a-f]{7,}\]|\b(?:merged|pushed|committed|in[_ ]progress|status: \w+)\b/i
// Words that are only syntax: a line made of them and punctuation (`end`,
// `} else {`, `</div>`, `);`) says nothing by itself.
const SYNTAX_WORDS = new Set(
  "end do else elif elsif fi done esac then begin rescue ensure try finally catch pass endif endfor endwhile div span li ul template script style"
    .split(" ")
)
const NOT_WORD = /[^\p{L}\p{N}_]+/u
// A line that stands for a tool call: a rendered action (`$ mix test`, `Read PATH`,
// `Edit PATH: …`, `Grep "x"`: a tool's name as its agent spells it, `ToolKind.allNames`)
// or result (`read PATH`, `wrote PATH`); the raw `[tool_call Name] {json}` of an import
// is `ToolMetadata.isCallLine`.
const ACTION = new RegExp(
  `^\\s*(?:\\$ \\S|(?:${[...ToolKind.allNames, "read", "wrote", "edited", "created"].join("|")}) \\S)`
)
const THINKING = /^\s*\[thinking\]/
// A line that opens with a tag (`<task-notification>`, `</div>`): markup, not prose.
const TAG = /^\s*<\/?[\w-]+>/

const FILLER =
  /^(?:ok|okay|sure|thanks|thank you|great|got it|alright|sounds good|let me|let's see|now let's|i will now|i'll now|done|yes|no)\b/i

/** What is known about a segment besides its text. */
export interface Context {
  /** Whether it reports an error ({@link isError}). */
  readonly error: boolean
  /** Whether it reports a change of state ({@link isState}). */
  readonly state: boolean
  readonly role: string
  readonly firstRequest: boolean
  readonly turnHead: boolean
  /** Whether the segment holds a fact (a short line with one is not filler). */
  readonly hasFacts: boolean
  readonly alreadySummarized: boolean
}

/** Whether a text reports an error (`OutputDigest.isErrorLine`; such lines survive tool-output shortening). */
export const isError = (text: string): boolean => OutputDigest.isErrorLine(text)

/**
 * Whether a text reports a change in the state of the work (a status update, a
 * test result, a commit). A test runner's line for one file that passed is not
 * one: the run's totals are (`OutputDigest.isPassedFileLine`).
 */
export const isState = (text: string): boolean => STATE.test(text) && !OutputDigest.isPassedFileLine(text)

/** Whether a line is only syntax (brackets, `end`, `else`, closing tags) or blank. */
export const isSyntax = (text: string): boolean => {
  // Words of ASCII letters, digits and `_` are checked as they end (most lines
  // fail at their first word); any other character sends the text to the
  // Unicode-aware split.
  const n = text.length
  let start = -1
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32
    if (c > 127) return isSyntaxUnicode(text)
    if (isAsciiLetter(c) || isAsciiDigit(c) || c === 95) {
      if (start < 0) start = i
    } else if (start >= 0) {
      if (!SYNTAX_WORDS.has(text.slice(start, i))) return false
      start = -1
    }
  }
  return true
}

const isSyntaxUnicode = (text: string): boolean => {
  for (const word of text.split(NOT_WORD)) {
    if (word.length > 0 && !SYNTAX_WORDS.has(word)) return false
  }
  return true
}

/** Whether a line of a conversational turn is a tool call rather than prose. */
export const isAction = (text: string): boolean => ToolMetadata.isCallLine(text) || ACTION.test(text)

/**
 * Whether a line is no one's prose: markup (a line that opens with a tag), or
 * what a harness writes into a user turn (`OutputDigest.isHarnessNoise`:
 * `<command-name>`, `[Request interrupted by user]`, a continuation summary).
 */
export const isInjected = (text: string): boolean => TAG.test(text) || OutputDigest.isHarnessNoise(text.trimStart())

/** Whether a line is the assistant's hidden reasoning (`[thinking] …`). */
export const isThinking = (text: string): boolean => THINKING.test(text)

/** Weights of what a segment says beyond its facts (its facts count as coverage keys). */
export const emphasisWeights = {
  error: 0.5,
  state: 1.5,
  resolution: 0.5,
  decision: 0.25,
  user: 0.5,
  firstRequest: 0.5,
  centrality: 0.25,
  short: -0.5,
  filler: -0.5,
  alreadySummarized: -1
} as const

/**
 * What a segment is worth besides the new facts it adds (commands are facts):
 * a change of state (most), an error, its resolution, a decision, the user's words (the first request
 * most), centrality; filler and lines the prior summary holds count against.
 */
export const emphasis = (text: string, context: Context, central: number): number => {
  const w = emphasisWeights
  const trimmed = text.trim()
  let score = w.centrality * central
  if (context.error) score += w.error
  if (context.state) score += w.state
  if (RESOLUTION.test(text)) score += w.resolution
  if (DECISION.test(text)) score += w.decision
  // The user's words: the first line of each turn (not what a harness wrote there), and all of the first request.
  if (ConversationTurn.isUserRole(context.role) && context.turnHead && !isInjected(text)) score += w.user
  if (context.firstRequest) score += w.firstRequest
  if (!context.hasFacts && trimmed.length < 16) score += w.short
  if (FILLER.test(trimmed)) score += w.filler
  if (context.alreadySummarized) score += w.alreadySummarized
  return score
}
