/**
 * The work behind a summary request, as structure: the turns of a leaf (each
 * with its role, time, id and its content as the material shows it: tool
 * calls as action lines, tool results as their digest) or the child summaries
 * of a condensation (with their depth, time range and Also keys), the size
 * asked for and, for a leaf, the summary before it. The Summarizer fills it;
 * a provider that sends text renders it once (`Prompt.forTask`); the
 * extractive provider and the fact check read the items, never a rendered
 * text.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Material from "./Material.js"
import * as Transcript from "./Transcript.js"

/**
 * The kind of work: a leaf (raw turns), a condensation (summaries), or either
 * one asked again in fewer tokens.
 *
 * @since 0.1.0
 */
export const Kind = Schema.Literal("leaf", "condense", "aggressive")

/**
 * @since 0.1.0
 */
export type Kind = typeof Kind.Type

/**
 * One turn of a leaf: its role, time and id, and its content as the material
 * shows it (`Material.renderContents`: prose, one action line per tool call, a
 * tool result's digest lines). A `ConversationTurn` fits, its content then
 * shown as it is.
 *
 * @since 0.1.0
 */
export const Turn = Schema.Struct({
  role: Schema.String,
  content: Schema.String,
  timestamp: Schema.optional(Schema.String),
  id: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 */
export type Turn = typeof Turn.Type

/**
 * One child of a condensation: its depth, its text, its time range, and the
 * keys of its Also line (`AlsoLine.line`) when it has one. A
 * `SummaryRecord` fits.
 *
 * @since 0.1.0
 */
export const Child = Schema.Struct({
  depth: Schema.Number,
  content: Schema.String,
  id: Schema.optional(Schema.String),
  timeRangeStart: Schema.optional(Schema.String),
  timeRangeEnd: Schema.optional(Schema.String),
  alsoKeys: Schema.optional(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 */
export type Child = typeof Child.Type

/**
 * A leaf's work: its turns, the size asked for, and the summary of the turns
 * before them (continuity context), if any.
 *
 * @since 0.1.0
 */
export const TurnsTask = Schema.Struct({
  kind: Schema.Literal("leaf", "aggressive"),
  turns: Schema.Array(Turn),
  targetTokens: Schema.Number,
  priorSummary: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 */
export type TurnsTask = typeof TurnsTask.Type

/**
 * A condensation's work: the child summaries, oldest first, and the size asked for.
 *
 * @since 0.1.0
 */
export const SummariesTask = Schema.Struct({
  kind: Schema.Literal("condense", "aggressive"),
  summaries: Schema.Array(Child),
  targetTokens: Schema.Number
})

/**
 * @since 0.1.0
 */
export type SummariesTask = typeof SummariesTask.Type

/**
 * A text to summarize as it is, for a caller that has no turns nor summaries
 * (a baseline, a note): its material is the text.
 *
 * @since 0.1.0
 */
export const TextTask = Schema.Struct({
  kind: Kind,
  text: Schema.String,
  targetTokens: Schema.Number
})

/**
 * @since 0.1.0
 */
export type TextTask = typeof TextTask.Type

/**
 * A leaf's or a condensation's work (or a text's).
 *
 * @since 0.1.0
 */
export const SummaryTask = Schema.Union(TurnsTask, SummariesTask, TextTask)

/**
 * @since 0.1.0
 */
export type SummaryTask = typeof SummaryTask.Type

/**
 * Whether `task` summarizes turns (a leaf) rather than summaries.
 *
 * @since 0.1.0
 */
export const isTurns = (task: SummaryTask): task is TurnsTask => "turns" in task

/**
 * Whether `task` is a text to summarize as it is.
 *
 * @since 0.1.0
 */
export const isText = (task: SummaryTask): task is TextTask => "text" in task

/**
 * The items of a leaf from its turns: each turn's role, time and id, and its
 * content as the material shows it (`Material.renderContents`: tool traffic
 * in short form). The turns themselves are not changed.
 *
 * @example
 * ```ts
 * import { SummaryTask } from "@precis/core"
 * SummaryTask.turnsOf([{ role: "user", content: "fix it", id: "t1" }])
 * // [{ role: "user", content: "fix it", timestamp: undefined, id: "t1" }]
 * ```
 * @since 0.1.0
 */
export const turnsOf = (
  turns: ReadonlyArray<Material.Turn & { readonly id?: string | undefined }>
): ReadonlyArray<Turn> => {
  const contents = Material.renderContents(turns)
  return turns.map((turn, i) => ({ role: turn.role, content: contents[i]!, timestamp: turn.timestamp, id: turn.id }))
}

// The material of a list of items, rendered once however many tiers and readers ask for it.
const rendered = new WeakMap<object, string>()

/**
 * The material of `task` as a model reads it, without instructions: the turns
 * one per line (`Transcript.formatTurns`), or the summaries with their headers
 * (`Transcript.renderSummaries`). Rendered once per list of items: the tiers,
 * the fallback and the provider share it.
 *
 * @example
 * ```ts
 * import { SummaryTask } from "@precis/core"
 * SummaryTask.material({ kind: "leaf", turns: [{ role: "user", content: "fix it" }], targetTokens: 100 })
 * // "[?] user: fix it"
 * ```
 * @since 0.1.0
 */
export const material = (task: SummaryTask): string => {
  if (isText(task)) return task.text
  const items: object = isTurns(task) ? task.turns : task.summaries
  let text = rendered.get(items)
  if (text === undefined) {
    text = isTurns(task) ? Transcript.formatTurns(task.turns) : Transcript.renderSummaries(task.summaries)
    rendered.set(items, text)
  }
  return text
}

/**
 * The lines of a content as the material shows them: split at each line
 * break (`\r\n` or `\n`), a carriage return at the end of a line dropped.
 *
 * @example
 * ```ts
 * import { SummaryTask } from "@precis/core"
 * SummaryTask.lines("a\r\nb\n") // ["a", "b", ""]
 * ```
 * @since 0.1.0
 */
export const lines = (content: string): Array<string> => {
  const out = content.split(/\r?\n/)
  for (let i = 0; i < out.length; i++) if (out[i]!.endsWith("\r")) out[i] = out[i]!.slice(0, -1)
  return out
}

/**
 * The prior summary of `task`: a leaf's continuity context, if it has one
 * (a condensation has none).
 *
 * @since 0.1.0
 */
export const priorSummary = (task: SummaryTask): string | undefined => isTurns(task) ? task.priorSummary : undefined
