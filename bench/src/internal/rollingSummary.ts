/**
 * The baseline of the "what an agent pays" loops: a condenser of the shape of
 * the OpenHands SDK's `LLMSummarizingCondenser`, written here over the same
 * provider as precis. Its view is the first `keepFirst` events, one rolling
 * summary, then the newest events. When the view passes the budget, the
 * events between the first ones and the newest that fit in half of the budget
 * (with the first events and the summary) are condensed, with the previous
 * summary, into a new summary: one model call. Each event's text is cut to
 * `maxEventChars` in its middle, as OpenHands cuts a long observation.
 */
import { type ConversationTurn, type Provider, TokenEstimator, Transcript } from "@precis/core"
import * as Effect from "effect/Effect"

/** The condenser's settings. */
export interface Options {
  /** The view's budget, in tokens. */
  readonly budget: number
  /** Events always kept first (OpenHands' default: 4). */
  readonly keepFirst: number
  /** The longest event text, in characters (OpenHands' `max_message_chars`: 30,000). */
  readonly maxEventChars: number
}

/** OpenHands' defaults but the budget. */
export const defaults = { keepFirst: 4, maxEventChars: 30_000 } as const

const cut = (text: string, max: number): string =>
  text.length <= max
    ? text
    : `${text.slice(0, Math.floor(max / 2))}\n[... ${text.length - max} characters omitted ...]\n${text.slice(-Math.floor(max / 2))}`

const prompt = (material: string): string =>
  "You maintain the summary of an agent's session. Merge the previous summary (if any) and the events below " +
  "into one summary that keeps the user's goals, the state of the work, files, commands, errors and their " +
  `fixes, and decisions.\n\n${material}`

/** A condenser over `provider`: `push` each event, `view` is what the agent sends. */
export const make = (provider: Provider.Service, options: Options) => {
  const estimator = TokenEstimator.approximate
  const events: Array<string> = []
  const sizes: Array<number> = []
  let summary: string | undefined
  let from = options.keepFirst // the first event after the first ones still in the view
  let condensations = 0

  const summaryBlock = () => summary === undefined ? [] : [`[Summary of the earlier events]\n${summary}`]
  const view = (): string =>
    [...events.slice(0, options.keepFirst), ...summaryBlock(), ...events.slice(from)].join("\n")

  const condense = Effect.gen(function*() {
    const head = sizes.slice(0, options.keepFirst).reduce((a, b) => a + b, 0)
    let room = Math.floor(options.budget / 2) - head - (summary === undefined ? 0 : estimator.estimate(summary))
    // The newest events that fit in what half the budget leaves; the newest always stays.
    let tail = events.length - 1
    while (tail - 1 >= from && sizes[tail - 1]! + sizes[tail]! <= room) {
      room -= sizes[tail]!
      tail--
    }
    if (tail <= from) return
    const material = [
      ...(summary === undefined ? [] : [`Previous summary:\n${summary}`]),
      events.slice(from, tail).join("\n")
    ].join("\n\n")
    const reply = yield* provider.chat({
      messages: [{ role: "user", content: prompt(material) }],
      temperature: 0.2,
      maxTokens: 4096,
      task: { kind: "leaf", text: material, targetTokens: Math.floor(options.budget / 8) }
    }).pipe(Effect.orElseSucceed(() => ({ text: summary ?? "" })))
    summary = reply.text
    from = tail
    condensations++
  })

  return {
    push: (turn: ConversationTurn.ConversationTurn): Effect.Effect<void> =>
      Effect.suspend(() => {
        const text = Transcript.formatTurn({ ...turn, content: cut(turn.content, options.maxEventChars) })
        events.push(text)
        sizes.push(estimator.estimate(text) + 1)
        return estimator.estimate(view()) > options.budget ? condense : Effect.void
      }),
    view,
    condensations: () => condensations
  }
}
