/**
 * The material of a summary (a formatted transcript or rendered summaries)
 * split into its lines and their candidate segments, each line with its
 * turn's context.
 *
 * @internal
 */
import { ConversationTurn, OutputDigest, SessionState, TokenEstimator, Transcript } from "@precis/core"
import { isSyntax } from "./score.js"

/** One line of the material, with the turn it belongs to. */
export interface Line {
  /** `"[ts] role:"` of the turn this line belongs to, or `undefined` for a line outside any turn. */
  readonly prefix: string | undefined
  /** Index of the turn (or standalone line) in the material; lines of one turn share it. */
  readonly group: number
  /** The role of the turn, lower-cased (`""` outside a turn). */
  readonly role: string
  /** Whether the turn is tool output (`ConversationTurn.isToolRole`), shortened to its head and tail when long. */
  readonly tool: boolean
  /** The line's text without the turn header, the continuation indent or a listing's line number. */
  readonly text: string
  /** Position of the line inside its turn (0 = the header line). */
  readonly position: number
  /** First segment of this line in `Parsed.segments`, and how many it has (0: not a candidate). */
  segmentStart: number
  segmentCount: number
  /** Whether the line is worth counting in an omission marker (not blank, not only syntax, not structural). */
  readonly countable: boolean
}

/** A candidate unit of text: a line, or a sentence of a long line. */
export interface Segment {
  readonly line: number
  readonly text: string
}

/** The material split into lines and candidate segments, in order. */
export interface Parsed {
  readonly lines: ReadonlyArray<Line>
  readonly segments: Array<Segment>
}

const SENTENCE_BREAK = /(?<=[.!?])\s+(?=["'`(\[A-Z0-9])/
const MIN_SENTENCE = 40
const NON_BLANK = /\S/

/**
 * Splits a long line into sentences (short pieces merged into their
 * predecessor); any piece still longer than `maxChars` is cut with `…`.
 */
const splitLong = (text: string, maxChars: number): ReadonlyArray<string> => {
  if (text.length <= maxChars) return [text]
  const pieces: Array<string> = []
  for (const raw of text.split(SENTENCE_BREAK)) {
    const last = pieces.length - 1
    if (last >= 0 && (raw.length < MIN_SENTENCE || pieces[last]!.length < MIN_SENTENCE) &&
      pieces[last]!.length + raw.length < maxChars) {
      pieces[last] = `${pieces[last]} ${raw}`
    } else {
      pieces.push(raw)
    }
  }
  return pieces.map((p) => (p.length > maxChars ? `${TokenEstimator.takeCodePoints(p, maxChars - 1)}…` : p))
}

/**
 * Parses `material` into lines and segments with core's transcript parser:
 * turn lines (`Transcript.parseTurnLine`) open a turn, continuation lines
 * (`Transcript.parseContinuation`) continue it; summary headers
 * (`Transcript.parseSummaryHeader`) and omission marks
 * (`OutputDigest.isOmission`) are structure and yield no candidate.
 */
export const parse = (material: string, maxSegmentChars: number): Parsed => {
  const raw = material.split("\n")
  const lines: Array<Line> = []
  const segments: Array<Segment> = []
  let group = -1
  let prefix: string | undefined
  let role = ""
  let tool = false
  let position = 0
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i]!.endsWith("\r") ? raw[i]!.slice(0, -1) : raw[i]!
    let text: string
    let structural = false
    const continued = prefix === undefined ? undefined : Transcript.parseContinuation(line)
    if (continued !== undefined) {
      text = continued
      position++
    } else {
      const turn = Transcript.parseTurnLine(line)
      group++
      position = 0
      if (turn !== undefined) {
        prefix = Transcript.turnPrefix(turn)
        role = turn.role.trim().toLowerCase()
        tool = ConversationTurn.isToolRole(role)
        text = turn.content
      } else {
        prefix = undefined
        role = ""
        tool = false
        text = line
        structural = Transcript.parseSummaryHeader(line) !== undefined
      }
    }
    // A listing's line number is position, not content: never a fact, never output.
    text = OutputDigest.stripLineNumber(text)
    // An omission mark (this provider's `[…]`, the material's `[… N lines]`) is structure, never content.
    structural ||= OutputDigest.isOmission(text)
    // Syntax alone (`}`, `end`, `);`) is never a candidate, nor worth a marker.
    const blank = !NON_BLANK.test(text) || isSyntax(text)
    const entry: Line = {
      prefix,
      group,
      role,
      tool,
      text,
      position,
      segmentStart: segments.length,
      segmentCount: 0,
      countable: !structural && !blank
    }
    if (!structural && !blank) {
      for (const piece of splitLong(text, maxSegmentChars)) segments.push({ line: lines.length, text: piece })
      entry.segmentCount = segments.length - entry.segmentStart
    }
    lines.push(entry)
  }
  return { lines, segments }
}

/**
 * The group of the first user request (`SessionState.requestOf` of the turn
 * read back from its lines: a user's turn that is not harness noise), or -1.
 */
export const firstRequestGroup = (lines: ReadonlyArray<Line>): number => {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.position !== 0 || !ConversationTurn.isUserRole(line.role)) continue
    const texts = [line.text]
    for (let j = i + 1; j < lines.length && lines[j]!.group === line.group; j++) texts.push(lines[j]!.text)
    if (SessionState.requestOf({ role: line.role, content: texts.join("\n") }) !== undefined) return line.group
  }
  return -1
}
