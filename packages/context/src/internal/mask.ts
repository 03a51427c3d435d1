/**
 * The mask stage: old tool output becomes one line saying what it was.
 *
 * @internal
 */
import { ActiveContext } from "@precis/compaction"
import { ConversationTurn, TokenEstimator, ToolUse } from "@precis/core"
import * as Effect from "effect/Effect"
import { type Stage, unchanged } from "./stage.js"
import { cutTurn, turnLabel, withContent } from "./turns.js"

/** Tool results of at most this many tokens are never masked by default (the reference design's 2,000 characters). */
export const defaultMinTokens = 500

/** The mask stage's settings. */
export interface MaskOptions {
  /** The newest tokens of the context whose tool output is kept verbatim. */
  readonly protectTokens: number
  /** Tool results of at most this many tokens are never masked. */
  readonly minTokens: number
}

const str = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined)

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 3)}...`)

// The call a result answers, among the calls of the turn before it.
const callOf = (
  result: ConversationTurn.ConversationTurn,
  previous: ConversationTurn.ConversationTurn | undefined
): { readonly name?: string | undefined; readonly target?: string | undefined } => {
  const answer = ToolUse.result(result)
  const call = answer === undefined || previous === undefined ? undefined : ToolUse.callFor(answer, ToolUse.calls(previous))
  return call === undefined ? {} : { name: call.name, target: ToolUse.target(call) }
}

// Its own words, not `OutputDigest.isErrorLine`: that one takes more lines (`undefined`, `cannot`, ...) and
// would change which line a masked result names.
const EXIT = /\b(?:exit(?:ed)?(?: with)?(?: code| status)?|returncode|exit_code)\s*[:=]?\s*(-?\d+)/i
const ERROR_LINE = /(?:error|exception|traceback)\b|\b(?:fail(?:ed|ure)?|fatal|panic)\b/i

/**
 * The one line a masked tool result becomes: the tool, what it worked on (a
 * path or a command), its size, its exit status or first error line, and the
 * turn to read in full.
 */
export const maskLine = (
  result: ConversationTurn.ConversationTurn,
  previous: ConversationTurn.ConversationTurn | undefined,
  label: string,
  tokens: number
): string => {
  const call = callOf(result, previous)
  const lines = result.content.split("\n")
  const name = str(result.metadata?.toolName) ?? call.name ?? result.role
  const echoed = lines[0]?.startsWith("$ ") === true ? lines[0].slice(2) : undefined
  const target = call.target ?? echoed
  const exit = EXIT.exec(result.content)?.[1]
  const error = lines.find((line) => ERROR_LINE.test(line))?.trim()
  return [
    `[tool output masked: ${name}${target === undefined ? "" : ` ${clip(target, 120)}`}`,
    `${result.content.length} chars, ${lines.length} lines, ~${tokens} tokens`,
    ...(exit === undefined ? [] : [`exit ${exit}`]),
    ...(error === undefined ? [] : [`first error: ${clip(error, 160)}`]),
    `full text: turn ${label}]`
  ].join("; ")
}

/**
 * Masks tool output outside the protected part (the newest `protectTokens`
 * tokens of turns): a result of more than `minTokens` becomes its
 * {@link maskLine}; the result that straddles the protected part's edge is cut
 * in its middle down to what is left of it (or masked when that is under
 * `minTokens`). Other turns and the summaries are untouched.
 */
export const mask = (
  estimator: TokenEstimator.Service,
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  options: MaskOptions
): { readonly turns: Array<ConversationTurn.ConversationTurn>; readonly masked: number; readonly trimmed: number } => {
  const out = turns.slice()
  let masked = 0
  let trimmed = 0
  let protectedLeft = options.protectTokens
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!
    const tokens = ActiveContext.turnTokens(estimator, turn)
    if (tokens <= protectedLeft) {
      protectedLeft -= tokens
      continue
    }
    const room = protectedLeft
    protectedLeft = 0
    if (!ConversationTurn.isToolResult(turn) || tokens <= options.minTokens) continue
    const label = turnLabel(turn, i)
    const cut = room >= options.minTokens ? cutTurn(estimator, turn, label, room) : undefined
    if (cut !== undefined) {
      out[i] = cut
      trimmed++
      continue
    }
    const line = maskLine(turn, turns[i - 1], label, tokens)
    const replaced = withContent(turn, line)
    if (ActiveContext.turnTokens(estimator, replaced) < tokens) {
      out[i] = replaced
      masked++
    }
  }
  return { turns: out, masked, trimmed }
}

/** The mask stage's settings. */
export interface StageOptions {
  /** The newest tokens of turns whose tool output is kept verbatim. */
  readonly protectTokens: number
  /** Tool results of at most this many tokens are never masked. Default {@link defaultMinTokens}. */
  readonly minTokens?: number | undefined
}

/** The mask stage: {@link mask} over the turns of a context, the summaries untouched. Always acts. */
export const stage = (options: StageOptions): Stage => ({
  name: "mask",
  run: (context) =>
    Effect.map(TokenEstimator.TokenEstimator, (estimator) => {
      const out = mask(estimator, context.turns, {
        protectTokens: options.protectTokens,
        minTokens: options.minTokens ?? defaultMinTokens
      })
      return out.masked + out.trimmed === 0
        ? unchanged(context)
        : { context: { ...context, turns: out.turns }, counts: { masked: out.masked, trimmed: out.trimmed } }
    })
})
