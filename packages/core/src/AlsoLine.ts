/**
 * The `Also:` line at the end of a summary: the most important keys its text
 * dropped (`FactCheck`), and the keys of its children's lines, as one line
 * within the summary's target. Its keys are data (`Summary.alsoKeys`, stored
 * with the summary). The lines a summarizer kept of a condensation's children
 * are read from its reply (a model's text): taking the children's stored keys
 * instead changes what is written (measured on a fixture), so it is not done.
 *
 * @since 0.1.0
 */
import { checkKeys, type Fact } from "./FactCheck.js"
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

// A lowercase word alone (`done`, `ready`): no path, no identifier, no command.
const PLAIN_WORD = /^[a-z]+$/

// The most commands of one program and subcommand (`git add …`) on a line.
const MAX_SAME_COMMAND = 2

// A command's program and subcommand (`git add`), by which the line caps a list of them.
const commandHead = (text: string): string => text.split(/\s+/).slice(0, 2).join(" ")

/**
 * Whether a key belongs on an Also {@link line}: a path, an identifier, an
 * error name, an issue id or a command the agent ran (`source: "run"`); not a
 * result (a count or an exit status: what it counts is gone with the lines it
 * came from), a command only mentioned (`npm fund` in a tool's hint), nor a
 * URL only a tool's output mentions (a link in its help), nor a plain
 * lowercase word (`done`), which tells a reader nothing without its sentence.
 *
 * @since 0.1.0
 */
export const isKey = (fact: Fact): boolean => {
  if (PLAIN_WORD.test(fact.text)) return false
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
 * Also lines the text holds (a condensation keeps its children's) that the
 * rest of the text does not hold (the fact check would find them), then the
 * most important `dropped` keys that belong there ({@link isKey}) and fit:
 * keys are taken in order, each only when the summary with the line stays
 * within `maxTokens` (by `estimator`), no key already on the line contains
 * it and the line holds fewer than two commands of its program and subcommand
 * (a list of `git add …` commands gives two). `text` unchanged when it holds no Also line and no key is added.
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
  // The Also lines the summarizer kept (a condensation's children's): a summary is a model's text, read here.
  const isLine = (l: string) => l.startsWith(prefix)
  const lines = text.split("\n")
  const bodyLines = lines.filter((l) => !isLine(l))
  const body = bodyLines.join("\n")
  // Each kept line as one entry (what `contains` compares), and its keys; a key the body holds
  // (as the fact check finds it: what a reader would not miss) is not listed again.
  const missed = (key: string) => checkKeys([{ kind: "path", text: key, importance: 0 }], body).dropped.length > 0
  const chosen = lines.filter(isLine)
    .map((l) => keysOfEntry(l.slice(prefix.length).trim()).filter(missed).join("; "))
    .filter((entry) => entry.length > 0)
  const keys = chosen.flatMap(keysOfEntry)
  const lowered = chosen.map((entry) => entry.toLowerCase())
  const withLine = (entries: ReadonlyArray<string>) => entries.length === 0 ? body : `${body}\n${line(entries)}`
  // A few misses, and the line is done.
  let added = 0
  let tries = 0
  for (const fact of dropped) {
    if (added >= maxKeys || tries >= 4 * maxKeys) break
    if (!isKey(fact)) continue
    const head = commandHead(fact.text)
    if (fact.kind === "command" && chosen.filter((entry) => commandHead(entry) === head).length >= MAX_SAME_COMMAND) continue
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
  const settled = already === 0 || (already === 1 && isLine(lines[lines.length - 1]!) &&
      chosen.length === 1 && chosen[0] === lines[lines.length - 1]!.slice(prefix.length).trim())
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
  return last.startsWith(prefix) ? keysOfEntry(last.slice(prefix.length).trim()) : []
}

// The keys of one line's entries (`a; b; c`).
const keysOfEntry = (entry: string): Array<string> => entry.split("; ").filter((key) => key.length > 0)
