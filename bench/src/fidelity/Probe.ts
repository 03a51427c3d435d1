/**
 * Probe facts: what an agent continuing a session must still know (the task,
 * the state of the work, files, commands, errors and their fixes, decisions,
 * issue ids), each found in a text by short needles. A probe is kept by a text
 * when any of its needles occurs in it.
 *
 * @since 0.1.0
 */

/**
 * What a probe is about.
 *
 * @since 0.1.0
 */
export type Category = "task" | "state" | "test" | "file" | "command" | "error" | "decision" | "issue"

/**
 * A needle: a case-insensitive substring, or a regular expression (always
 * matched case-insensitively; other flags but `s`, `m` and `u` are ignored).
 *
 * @since 0.1.0
 */
export type Needle = string | RegExp

/**
 * One probe fact and the alternative needles that find it (1 to 3, short
 * enough to be fair to a paraphrase).
 *
 * @since 0.1.0
 */
export interface Probe {
  readonly id: string
  readonly category: Category
  readonly description: string
  readonly needles: readonly [Needle, ...Array<Needle>]
}

/**
 * A text prepared for matching: the text and its lower-cased copy, so that
 * many probes are matched against it without lower-casing it each time.
 *
 * @since 0.1.0
 */
export interface Haystack {
  readonly text: string
  readonly lower: string
}

/**
 * Prepares `text` for {@link found}.
 *
 * @since 0.1.0
 */
export const haystack = (text: string): Haystack => ({ text, lower: text.toLowerCase() })

const caseInsensitive = (re: RegExp): RegExp => new RegExp(re.source, `i${re.flags.replace(/[^smu]/g, "")}`)

/**
 * Whether `needle` occurs in the text.
 *
 * @example
 * ```ts
 * import { Probe } from "@precis/bench"
 * Probe.found("IN_PROGRESS", Probe.haystack("bd update x --status in_progress")) // true
 * Probe.found(/4te\.1\b.{0,40}closed/, Probe.haystack("spotter-4te.1 is closed")) // true
 * ```
 * @since 0.1.0
 */
export const found = (needle: Needle, text: Haystack): boolean =>
  typeof needle === "string" ? text.lower.includes(needle.toLowerCase()) : caseInsensitive(needle).test(text.text)

/**
 * Whether the text keeps the probe: any of its needles occurs in it.
 *
 * @since 0.1.0
 */
export const kept = (probe: Probe, text: Haystack): boolean => probe.needles.some((needle) => found(needle, text))

/**
 * The probes a text keeps and misses (their ids, in the probes' order).
 *
 * @since 0.1.0
 */
export interface Score {
  readonly kept: ReadonlyArray<string>
  readonly missed: ReadonlyArray<string>
}

/**
 * Scores a text against probes.
 *
 * @since 0.1.0
 */
export const score = (probes: ReadonlyArray<Probe>, text: string): Score => {
  const hay = haystack(text)
  const keptIds: Array<string> = []
  const missed: Array<string> = []
  for (const probe of probes) (kept(probe, hay) ? keptIds : missed).push(probe.id)
  return { kept: keptIds, missed }
}

/**
 * A needle as text: a string as it is, a regular expression as `/source/`.
 *
 * @since 0.1.0
 */
export const show = (needle: Needle): string => typeof needle === "string" ? needle : `/${needle.source}/`
