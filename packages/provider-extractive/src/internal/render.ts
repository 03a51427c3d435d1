/**
 * The chosen segments rendered in material order: turn prefixes shortened to
 * the time (the date when it changes), an ellipsis where a turn's text was
 * left out.
 *
 * @internal
 */
import type { Line, Parsed } from "./segments.js"

/** What a gap inside a turn costs: the `… ` in front of the next line. */
export const GAP_CHARS = 2

const STAMP = /^\[(\d{4}-\d\d-\d\d)T(\d\d:\d\d)(?::\d\d)?\]/

/**
 * A turn prefix as rendered: `[HH:MM] role:`, with the date in front
 * (`[YYYY-MM-DDTHH:MM]`) when it differs from `date`, the date of the prefix
 * rendered before; prefixes of another shape stay as they are.
 */
export const shortPrefix = (prefix: string, date: string | undefined): string => {
  const stamp = STAMP.exec(prefix)
  if (stamp === null) return prefix
  const rest = prefix.slice(stamp[0].length)
  return stamp[1] === date ? `[${stamp[2]}]${rest}` : `[${stamp[1]}T${stamp[2]}]${rest}`
}

/** The date of a turn prefix (`YYYY-MM-DD`), if it has one. */
export const dateOf = (prefix: string): string | undefined => STAMP.exec(prefix)?.[1]

/** A line's chosen segments, an ellipsis where segments between or after them were left out. */
const lineText = (line: Line, chosen: Uint8Array, parsed: Parsed): string => {
  if (line.segmentCount === 1) return parsed.segments[line.segmentStart]!.text
  const parts: Array<string> = []
  let previous = -1
  for (let k = 0; k < line.segmentCount; k++) {
    if (chosen[line.segmentStart + k] !== 1) continue
    const text = parsed.segments[line.segmentStart + k]!.text
    parts.push(k > previous + 1 ? `… ${text}` : text)
    previous = k
  }
  if (previous < line.segmentCount - 1) parts.push("…")
  return parts.join(" ")
}

/**
 * Renders the chosen segments in material order, with turn prefixes; a gap
 * inside a turn is an ellipsis in front of the line after it. Turns left out
 * between chosen ones get no line of their own: the times of the turn
 * prefixes show the gap, and a line that says only `[…]` says nothing.
 */
export const render = (parsed: Parsed, chosen: Uint8Array): string => {
  const out: Array<string> = []
  let omitted = 0
  let openGroup = -1
  let date: string | undefined
  for (const line of parsed.lines) {
    let has = false
    for (let k = 0; k < line.segmentCount && !has; k++) has = chosen[line.segmentStart + k] === 1
    if (!has) {
      if (line.countable) omitted++
      continue
    }
    const inTurn = line.prefix !== undefined && openGroup === line.group
    let text = lineText(line, chosen, parsed)
    if (omitted > 0 && inTurn && !text.startsWith("… ")) text = `… ${text}`
    omitted = 0
    if (line.prefix === undefined) {
      out.push(text)
      openGroup = -1
    } else if (inTurn) {
      out.push(`  ${text}`)
    } else {
      out.push(`${shortPrefix(line.prefix, date)} ${text}`)
      date = dateOf(line.prefix) ?? date
      openGroup = line.group
    }
  }
  return out.join("\n")
}
