/**
 * Small text helpers of the modules that read and render transcripts.
 *
 * @internal
 */

// A cut backs off this far (as a share of its length) to end at a word or path boundary.
const BACK_OFF = 0.25

/**
 * `text` cut to `max` characters, the last one an ellipsis when cut; the cut
 * ends at a word or path boundary (after a space or a `/`) when one lies in
 * the last quarter, so no path or word is left cut inside.
 */
export const clip = (text: string, max: number): string => {
  if (text.length <= max) return text
  const head = text.slice(0, Math.max(0, max - 1))
  let at = head.length
  const floor = Math.floor(head.length * (1 - BACK_OFF))
  while (at > floor && !/[\s/]/.test(head[at - 1]!)) at--
  return `${(at > floor ? head.slice(0, at) : head).trimEnd()}…`
}

/** The lines of `text` without blank lines at either end. */
export const splitLines = (text: string): Array<string> => {
  const lines = text.split(/\r?\n/)
  while (lines.length > 0 && lines[lines.length - 1]!.trim().length === 0) lines.pop()
  while (lines.length > 0 && lines[0]!.trim().length === 0) lines.shift()
  return lines
}

/** `n word` or `n words`. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const relativeCache = new Map<string, RegExp>()

/**
 * `text` with the paths under the directory `cwd` written relative to it
 * (`/repo/lib/a.ex` as `lib/a.ex`); the directory itself, and paths that only
 * start with its name (`/repo-old/x`), stay as they are.
 */
export const relativePaths = (text: string, cwd: string | undefined): string => {
  if (cwd === undefined || cwd.length < 2 || !text.includes(cwd)) return text
  let pattern = relativeCache.get(cwd)
  if (pattern === undefined) {
    if (relativeCache.size > 64) relativeCache.clear()
    pattern = new RegExp(`(?<![\\w.~/-])${escapeRegExp(cwd.replace(/\/+$/, ""))}/(?=[\\w.@+~-])`, "g")
    relativeCache.set(cwd, pattern)
  }
  return text.replace(pattern, "")
}

/** A non-blank string value, trimmed; `undefined` for anything else. */
export const str = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim().length > 0 ? value.trim() : undefined

/** The number of lines of `text`. */
export const countLines = (text: string): number => splitLines(text).length

// A command or text on one line: its lines joined by ` ↵ `, clipped (a
// commit message in a heredoc keeps its subject).
export const oneLine = (text: string, max: number): string =>
  clip(splitLines(text).map((l) => l.trim()).filter((l) => l.length > 0).join(" ↵ "), max)

/** A line {@link oneLine} made, with its line breaks back (a shell's `\` continuation joins its lines). */
export const unfold = (line: string): string => line.replace(/\\ ↵ /g, " ").replace(/ ↵ /g, "\n")

// Terminal escape sequences: colours and styles (`ESC[1;32m`), cursor moves, OSC titles and links.
const ANSI = /\u001b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g

/**
 * `text` without terminal escape sequences (colours, styles, cursor moves): a
 * test runner's coloured `Tests  24 passed (24)` reads as its plain text.
 *
 * @example
 * ```ts
 * import { OutputDigest } from "@precis/core"
 * OutputDigest.withoutAnsi("\u001b[32m24 passed\u001b[39m") // "24 passed"
 * ```
 * @since 0.1.0
 */
export const withoutAnsi = (text: string): string => text.includes("\u001b") ? text.replace(ANSI, "") : text
