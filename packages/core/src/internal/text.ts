/**
 * Small text helpers of the modules that read and render transcripts.
 *
 * @internal
 */

/** `text` cut to `max` characters, the last one an ellipsis when cut. */
export const clip = (text: string, max: number): string => text.length <= max ? text : `${text.slice(0, max - 1)}…`

/** The lines of `text` without blank lines at either end. */
export const splitLines = (text: string): Array<string> => {
  const lines = text.split(/\r?\n/)
  while (lines.length > 0 && lines[lines.length - 1]!.trim().length === 0) lines.pop()
  while (lines.length > 0 && lines[0]!.trim().length === 0) lines.shift()
  return lines
}

/** `n word` or `n words`. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`
