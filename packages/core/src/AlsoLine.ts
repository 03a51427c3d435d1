/**
 * The `Also:` line at the end of a summary: the most important keys its text
 * dropped (`FactCheck`), and the keys of its children's lines, as one line
 * within the summary's target. Its keys are data (`Summary.alsoKeys`, stored
 * with the summary): a condensation takes its children's keys from them, not
 * from their text.
 *
 * @since 0.1.0
 */
import { type Fact } from "./FactCheck.js"
import type * as TokenEstimator from "./TokenEstimator.js"

/**
 * The head of the line that lists dropped keys at the end of a summary.
 *
 * @since 0.1.0
 */
export const prefix = "Also: "

/**
 * Keys as one line: `Also: a; b; c`. It is plain text, with no turn head, so
 * summarizers read it as content.
 *
 * @example
 * ```ts
 * import { AlsoLine } from "@precis/core"
 * AlsoLine.line(["src/app.ts", "pnpm test"]) // "Also: src/app.ts; pnpm test"
 * ```
 * @since 0.1.0
 */
export const line = (keys: ReadonlyArray<string>): string => `${prefix}${keys.join("; ")}`

/**
 * Whether a key belongs on an Also {@link line}: a path, an identifier, an
 * error name, an issue id or a command the agent ran (`source: "run"`); not a
 * result (a count or an exit status: what it counts is gone with the lines it
 * came from), a command only mentioned (`npm fund` in a tool's hint), nor a
 * URL only a tool's output mentions (a link in its help).
 *
 * @since 0.1.0
 */
export const isKey = (fact: Fact): boolean => {
  switch (fact.kind) {
    case "result":
      return false
    case "command":
      return fact.source === "run"
    case "path":
      return !(fact.source === "output" && /^https?:\/\//.test(fact.text))
    default:
      return true
  }
}

/**
 * @since 0.1.0
 */
export interface AppendOptions {
  /** The most tokens the summary may hold with the line. */
  readonly maxTokens: number
  /** Most keys added to the line. Default 8. */
  readonly maxKeys?: number | undefined
  /**
   * The Also keys of the summaries the text was made from (a condensation's
   * children, as stored: `SummaryRecord.alsoKeys`), in order: a line of the
   * text that is one of their lines (a summarizer kept it) is taken as their keys.
   */
  readonly childKeys?: ReadonlyArray<ReadonlyArray<string>> | undefined
}

/**
 * A summary's text with its Also line, and the keys of that line.
 *
 * @since 0.1.0
 */
export interface Appended {
  readonly text: string
  readonly keys: ReadonlyArray<string>
}

/**
 * `text` with one Also {@link line} at its end, and its keys: the keys of the
 * children's lines the text holds (`childKeys`: a condensation keeps its
 * children's), then the most important `dropped` keys that belong there
 * ({@link isKey}) and fit: keys are taken in order, each only when the
 * summary with the line stays within `maxTokens` (by `estimator`) and no key
 * already on the line contains it. `text` unchanged when it holds no child's
 * line and no key is added.
 *
 * @example
 * ```ts
 * import { AlsoLine, FactCheck, TokenEstimator } from "@precis/core"
 * const { dropped } = FactCheck.check("[?] assistant: $ pnpm test\n[?] tool: 3 failed in src/app.ts", "Tests ran.")
 * AlsoLine.append("Tests ran.", dropped, TokenEstimator.approximate, { maxTokens: 100 })
 * // { text: "Tests ran.\nAlso: pnpm test; src/app.ts", keys: ["pnpm test", "src/app.ts"] } (the count is no key of an Also line)
 * ```
 * @since 0.1.0
 */
export const append = (
  text: string,
  dropped: ReadonlyArray<Fact>,
  estimator: TokenEstimator.Service,
  options: AppendOptions
): Appended => {
  const maxKeys = options.maxKeys ?? 8
  // The children's lines, by their text.
  const children = new Map<string, ReadonlyArray<string>>()
  for (const keys of options.childKeys ?? []) if (keys.length > 0) children.set(line(keys), keys)
  const lines = text.split("\n")
  const bodyLines = lines.filter((l) => !children.has(l))
  const body = bodyLines.join("\n")
  // Each child's line as one entry (what `contains` compares), and its keys.
  const chosen = lines.filter((l) => children.has(l)).map((l) => l.slice(prefix.length))
  const keys = lines.flatMap((l) => children.get(l) ?? [])
  const lowered = chosen.map((entry) => entry.toLowerCase())
  const withLine = (entries: ReadonlyArray<string>) => entries.length === 0 ? body : `${body}\n${line(entries)}`
  // A few misses, and the line is done.
  let added = 0
  let tries = 0
  for (const fact of dropped) {
    if (added >= maxKeys || tries >= 4 * maxKeys) break
    if (!isKey(fact)) continue
    const id = fact.text.toLowerCase()
    if (lowered.some((other) => other.includes(id))) continue
    tries++
    if (estimator.estimate(withLine([...chosen, fact.text])) > options.maxTokens) continue
    chosen.push(fact.text)
    keys.push(fact.text)
    lowered.push(id)
    added++
  }
  const already = lines.length - bodyLines.length
  const settled = already === 0 || (already === 1 && children.has(lines[lines.length - 1]!))
  return { text: added === 0 && settled ? text : withLine(chosen), keys }
}

/**
 * The keys of the Also line at the end of `text`, read once from a summary
 * stored before its keys were data (`[]` without one): the store derives them
 * when it adds the column.
 *
 * @example
 * ```ts
 * import { AlsoLine } from "@precis/core"
 * AlsoLine.keysOf("Tests ran.\nAlso: pnpm test; src/app.ts") // ["pnpm test", "src/app.ts"]
 * ```
 * @since 0.1.0
 */
export const keysOf = (text: string): ReadonlyArray<string> => {
  const last = text.slice(text.lastIndexOf("\n") + 1)
  if (!last.startsWith(prefix)) return []
  return last.slice(prefix.length).trim().split("; ").filter((key) => key.length > 0)
}
