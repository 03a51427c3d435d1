/**
 * The OpenHands SDK's `LLMSummarizingCondenser`, ported to TypeScript from its
 * Python (OpenHands/software-agent-sdk,
 * `openhands/sdk/context/condenser/llm_summarizing_condenser.py`, with the
 * rolling condenser of `base.py`, the token helpers of `utils.py` and the
 * view of `openHandsView.ts`), over the bench's provider, so that
 * `pnpm bench loop` can price the real peer on the same stream and model as
 * precis. What differs from the SDK is said in BENCHMARKS.md.
 *
 * At every step the agent builds its view; the condenser condenses it when
 * there is a reason: an unhandled condensation request (the agent's model
 * refused a request past its context window), more than `maxSize` events, or
 * more than `maxTokens` tokens (when set). The events kept at the end are the
 * fewest the reasons ask for: half of the view (a request), half of
 * `maxSize` (events), or what brings the tokens to half of `maxTokens`,
 * each less the `keepFirst` first events and the summary. The events between
 * the first ones and those, moved to the view's manipulation indices, are
 * forgotten; the summarizer reads each one's 500-character preview (the
 * previous summary among them) and its reply is the summary inserted where
 * they were. With no events to forget and a request pending, the whole view
 * is summarized (a hard context reset).
 */
import { type ConversationTurn, type Provider, TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"
import * as View from "./openHandsView.js"

/** The condenser's settings and the agent's context window. */
export interface Options {
  /** Events past which the view is condensed (`max_size`). */
  readonly maxSize: number
  /** Events always kept first (`keep_first`). */
  readonly keepFirst: number
  /** Tokens past which the view is condensed (`max_tokens`; unset by default). */
  readonly maxTokens?: number | undefined
  /** The agent's context window: a request past it is refused and a condensation requested. */
  readonly contextWindow: number
  /** The longest event text the agent's model reads, in characters (cut in its middle past it). */
  readonly maxEventChars: number
}

/** The SDK's default condenser (`get_default_condenser`: `max_size=80, keep_first=4`) and a tool's longest output. */
export const defaults = { maxSize: 80, keepFirst: 4, maxEventChars: 30_000 } as const

/**
 * What is wrong with `options` (the SDK's validators): `maxSize` must be
 * positive, `keepFirst` not negative and under `maxSize / 2` less one (room
 * for the summary and a tail), or `undefined` when nothing is.
 */
export const problem = (options: Pick<Options, "maxSize" | "keepFirst">): string | undefined =>
  options.maxSize <= 0
    ? `max_size must be positive, got ${options.maxSize}`
    : options.keepFirst < 0
    ? `keep_first must not be negative, got ${options.keepFirst}`
    : Math.floor(options.maxSize / 2) - options.keepFirst - 1 <= 0
    ? `keep_first (${options.keepFirst}) must be less than max_size // 2 (${Math.floor(options.maxSize / 2)}) to leave room for condensation`
    : undefined

/** Why a view is condensed (the SDK's `Reason`). */
export type Reason = "request" | "tokens" | "events"

const estimator = TokenEstimator.approximate

const cutMiddle = (text: string, max: number): string =>
  text.length <= max
    ? text
    : `${text.slice(0, Math.floor(max / 2))}\n[... ${text.length - max} characters omitted ...]\n${text.slice(-Math.floor(max / 2))}`

/** The line an event is in the agent's request (`""` for an action past the first of its batch). */
export const line = (event: View.Event, maxEventChars: number = defaults.maxEventChars): string =>
  event.kind === "action" && event.text.length === 0 ? "" : `${event.role}: ${cutMiddle(event.text, maxEventChars)}`

/** The agent's request for a view: its events' lines. */
export const render = (events: ReadonlyArray<View.Event>, maxEventChars: number = defaults.maxEventChars): string =>
  events.map((e) => line(e, maxEventChars)).filter((l) => l.length > 0).join("\n")

/** The tokens of events as the agent's model counts them (`get_total_token_count`). */
export const tokens = (events: ReadonlyArray<View.Event>, maxEventChars: number = defaults.maxEventChars): number =>
  estimator.estimate(render(events, maxEventChars))

/** The reasons to condense `events` (`get_condensation_reasons`). */
export const reasons = (
  events: ReadonlyArray<View.Event>,
  options: Omit<Options, "contextWindow">,
  requested: boolean
): ReadonlySet<Reason> => {
  const out = new Set<Reason>()
  if (requested) out.add("request")
  if (options.maxTokens !== undefined && tokens(events, options.maxEventChars) > options.maxTokens) out.add("tokens")
  if (events.length > options.maxSize) out.add("events")
  return out
}

/**
 * How many of the last `events` can stay while the tokens drop by at least
 * `reduction` (`get_suffix_length_for_token_reduction`: all of them past the
 * shortest prefix of more than `reduction` tokens).
 */
export const suffixForReduction = (events: ReadonlyArray<View.Event>, reduction: number, maxEventChars: number): number => {
  if (events.length === 0) return 0
  if (reduction <= 0) return events.length
  let lo = 1
  let hi = events.length
  if (tokens(events, maxEventChars) <= reduction) return 0
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2)
    if (tokens(events.slice(0, mid), maxEventChars) > reduction) hi = mid
    else lo = mid + 1
  }
  return events.length - lo
}

/**
 * The range `[start, end)` of `events` to forget for `why`
 * (`_get_forgotten_events`), or `undefined` when none can be (the SDK's
 * `NoCondensationAvailableException`).
 */
export const forgetting = (
  events: ReadonlyArray<View.Event>,
  why: ReadonlySet<Reason>,
  options: Omit<Options, "contextWindow">
): { readonly start: number; readonly end: number } | undefined => {
  const suffixes: Array<number> = []
  if (why.has("request")) suffixes.push(Math.floor(events.length / 2) - options.keepFirst - 1)
  if (why.has("events")) suffixes.push(Math.floor(options.maxSize / 2) - options.keepFirst - 1)
  if (why.has("tokens") && options.maxTokens !== undefined) {
    const reduction = tokens(events, options.maxEventChars) - Math.floor(options.maxTokens / 2)
    suffixes.push(suffixForReduction(events.slice(options.keepFirst), reduction, options.maxEventChars))
  }
  if (suffixes.length === 0) return undefined
  const naiveEnd = events.length - Math.min(...suffixes)
  if (naiveEnd > events.length || options.keepFirst > events.length) return undefined
  const indices = View.manipulationIndices(events)
  const start = View.findNext(indices, options.keepFirst)
  const end = View.findNext(indices, naiveEnd)
  return end > start ? { start, end } : undefined
}

/**
 * The summarizer's prompt (the SDK's `summarizing_prompt.j2`, in other
 * words of about its length): the state to track, then each event's preview.
 */
export const prompt = (previews: ReadonlyArray<string>): string =>
  [
    "You keep a running state summary for an interactive agent. The events below are what the agent did and saw,",
    "earlier summaries included. If any event tracks tasks, keep a TASK_TRACKING section with each task's exact id and status.",
    "",
    "Track:",
    "",
    "USER_CONTEXT: (what the user requires and wants, with clarifications, briefly)",
    "",
    "TASK_TRACKING: {the active tasks, their ids and statuses - KEEP THE IDS}",
    "",
    "COMPLETED: (what is done, with short results)",
    "PENDING: (what is left to do)",
    "CURRENT_STATE: (the variables, data structures and state that matter now)",
    "",
    "For a coding task, add:",
    "CODE_STATE: {file paths, function signatures, data structures}",
    "TESTS: {failing cases, error messages, outputs}",
    "CHANGES: {edits made, values changed}",
    "DEPS: {dependencies, imports, external calls}",
    "VERSION_CONTROL_STATUS: {the repository's state, the branch, the PR, the commits}",
    "",
    "PRIORITIZE:",
    "1. Fit the sections to the kind of task at hand",
    "2. Keep the user's key requirements and goals",
    "3. Keep what is done apart from what is pending",
    "4. Keep every section short and to the point",
    "",
    "SKIP: details that do not matter to the task at hand",
    "",
    "Examples:",
    "",
    "A coding task:",
    "USER_CONTEXT: Fix how a FITS card shows floats",
    "COMPLETED: mod_float() in card.py changed, the whole suite passes",
    "PENDING: Open the PR, update the docs",
    "CODE_STATE: mod_float() in card.py updated",
    "TESTS: test_format() passed",
    "CHANGES: str(val) instead of f\"{val:.16G}\"",
    "DEPS: none changed",
    "VERSION_CONTROL_STATUS: branch fix-float-precision, last commit a1b2c3d",
    "",
    "Another task:",
    "USER_CONTEXT: Write 20 haikus from the results of coin flips",
    "COMPLETED: 15 haikus for the flips [T,H,T,H,T,H,T,T,H,T,H,T,H,T,H]",
    "PENDING: 5 haikus to go",
    "CURRENT_STATE: last flip heads, 15 of 20 haikus written",
    "",
    ...previews.map((p) => `\n<EVENT>\n${p}\n</EVENT>`),
    "",
    "Now summarize the events by the rules above."
  ].join("\n")

/** The condenser over `provider`: `push` each turn (the agent steps until it has sent a request), `view` is the last one sent. */
export const make = (provider: Provider.Service, options: Options) => {
  const invalid = problem(options)
  if (invalid !== undefined) throw new Error(invalid)
  const history: Array<View.Event> = []
  const forgotten = new Set<string>()
  let summary: { text: string; offset: number } | undefined
  let requested = false
  let condensations = 0
  let previous: ConversationTurn.ConversationTurn | undefined
  let turns = 0
  // The calls waiting for their results, and the batch they belong to.
  const pending = new Set<string>()
  let batch: string | undefined
  let sent: ReadonlyArray<View.Event> = []

  // One condensation: the events forgotten, summarized from their previews.
  const condense = (events: ReadonlyArray<View.Event>, start: number, end: number) =>
    Effect.gen(function*() {
      const gone = events.slice(start, end)
      const previews = gone.map(View.preview)
      const reply = yield* provider.chat({
        messages: [{ role: "user", content: prompt(previews) }],
        temperature: 0,
        maxTokens: 4096,
        task: { kind: "leaf", text: previews.join("\n"), targetTokens: Math.floor(options.contextWindow / 8) }
      }).pipe(Effect.orElseSucceed(() => ({ text: summary?.text ?? "" })))
      for (const e of gone) if (e.id !== View.summaryId) forgotten.add(e.id)
      summary = { text: reply.text, offset: start }
      requested = false
      condensations++
    })

  // Agent steps until one sends a request: condense when there is a reason, else send (or request a condensation).
  const step = Effect.gen(function*() {
    for (let guard = 0; guard < 64; guard++) {
      const events = View.view(history, forgotten, summary)
      const why = reasons(events, options, requested)
      if (why.size > 0) {
        const range = forgetting(events, why, options)
        if (range !== undefined) {
          yield* condense(events, range.start, range.end)
          continue
        }
        if (requested) {
          yield* condense(events, 0, events.length)
          continue
        }
      }
      if (tokens(events, options.maxEventChars) > options.contextWindow) {
        requested = true
        continue
      }
      sent = events
      return
    }
    throw new Error("the OpenHands port found no view within its context window")
  })

  return {
    push: (turn: ConversationTurn.ConversationTurn): Effect.Effect<void> =>
      Effect.suspend(() => {
        const events = View.fromTurn(turn, turns++, previous, pending.size > 0 ? batch : undefined)
        for (const e of events) {
          if (e.kind === "action") {
            batch = e.responseId
            for (const id of e.callIds ?? []) pending.add(id)
          }
          if (e.kind === "observation") for (const id of e.callIds ?? []) pending.delete(id)
        }
        history.push(...events)
        previous = turn
        return step
      }),
    view: (): string => render(sent, options.maxEventChars),
    events: (): ReadonlyArray<View.Event> => sent,
    condensations: () => condensations
  }
}
