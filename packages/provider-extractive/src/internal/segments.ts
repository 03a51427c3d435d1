/**
 * The material of a summary task split into its lines and their candidate
 * segments, each line with its turn's context: read from the task's items
 * (a leaf's turns, a condensation's child summaries), never from a rendered
 * material.
 *
 * @internal
 */
import { ConversationTurn, Escape, OutputDigest, SessionState, SummaryTask, TokenEstimator, Transcript } from "@precis/core"
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

// Builds the lines and segments, one line at a time.
class Builder {
  readonly lines: Array<Line> = []
  readonly segments: Array<Segment> = []
  group = -1
  // The turn a summary's text is in, while its continuation lines follow.
  private prefix: string | undefined
  private role = ""
  private tool = false
  private position = 0
  constructor(private readonly maxSegmentChars: number) {}

  /** Opens a turn: `prefix` is its `[time] role:` head, `role` its role as written. */
  turn(prefix: string, role: string): void {
    this.group++
    this.position = 0
    this.prefix = prefix
    this.role = role.trim().toLowerCase()
    this.tool = ConversationTurn.isToolRole(this.role)
  }

  /** A line outside any turn (`structural`: a summary's header, no candidate). */
  standalone(text: string, structural: boolean): void {
    this.group++
    this.position = 0
    this.prefix = undefined
    this.role = ""
    this.tool = false
    this.add(text, structural)
  }

  /** A line of the open turn, its first when the turn was just opened. */
  add(raw: string, structural = false): void {
    // A listing's line number is position, not content: never a fact, never output.
    const text = OutputDigest.stripLineNumber(raw)
    // An omission mark (this provider's `[…]`, the material's `[… N lines]`) is structure, never content.
    structural ||= OutputDigest.isOmission(text)
    // Syntax alone (`}`, `end`, `);`) is never a candidate, nor worth a marker.
    const blank = !NON_BLANK.test(text) || isSyntax(text)
    const entry: Line = {
      prefix: this.prefix,
      group: this.group,
      role: this.role,
      tool: this.tool,
      text,
      position: this.position++,
      segmentStart: this.segments.length,
      segmentCount: 0,
      countable: !structural && !blank
    }
    if (!structural && !blank) {
      for (const piece of splitLong(text, this.maxSegmentChars)) this.segments.push({ line: this.lines.length, text: piece })
      entry.segmentCount = this.segments.length - entry.segmentStart
    }
    this.lines.push(entry)
  }

  /**
   * The lines of a summary's text (what a model or this provider wrote): a
   * line with a turn head (`[HH:MM] role: text`, `Transcript.turnHead`) opens
   * a turn, an indented line continues the open one, any other line stands
   * alone.
   */
  text(text: string): void {
    for (const line of SummaryTask.lines(text)) {
      if (this.prefix !== undefined && line.startsWith(Transcript.indent)) {
        this.add(line.slice(Transcript.indent.length))
        continue
      }
      const head = Transcript.turnHead(line)
      if (head === undefined) this.standalone(line, false)
      else {
        this.turn(Transcript.turnPrefix(head), head.role)
        this.add(head.content)
      }
    }
  }
}

/**
 * The lines and segments of `task`, read from its items: each turn of a leaf
 * opens a turn with its role and time, its content's lines after it; each
 * child summary of a condensation is its header (structure: no candidate)
 * and its text, read as a summary's text is (`Builder.text`), a blank line
 * between two children. Nothing of the material is parsed back.
 */
export const parse = (task: SummaryTask.SummaryTask, maxSegmentChars: number): Parsed => {
  const builder = new Builder(maxSegmentChars)
  if (SummaryTask.isText(task)) builder.text(task.text)
  else if (SummaryTask.isTurns(task)) {
    for (const turn of task.turns) {
      builder.turn(Transcript.turnPrefix(turn), Escape.line(turn.role))
      for (const line of SummaryTask.lines(turn.content)) builder.add(line)
    }
  } else {
    task.summaries.forEach((summary, i) => {
      if (i > 0) builder.standalone("", false)
      builder.standalone(Transcript.summaryHeader(i + 1, summary), true)
      builder.text(summary.content)
    })
  }
  return { lines: builder.lines, segments: builder.segments }
}

/** The lines and segments of a summary's text (a prior summary), read as {@link parse} reads a child's. */
export const parseText = (text: string, maxSegmentChars: number): Parsed => {
  const builder = new Builder(maxSegmentChars)
  builder.text(text)
  return { lines: builder.lines, segments: builder.segments }
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
