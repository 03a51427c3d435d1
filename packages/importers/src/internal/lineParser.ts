/**
 * A JSONL file read as it grows: its lines pushed in batches, each push giving
 * the turns its lines added, by conversation.
 *
 * @internal
 */
import type { ConversationTurn } from "@precis/core"
import { Sink } from "./common.js"
import type { LineReader } from "./jsonl.js"
import type { SkipReport, Skipped } from "../SkipReport.js"
import { tolerant } from "./tolerant.js"

/** The turns a push added to one conversation, and their lines. */
export interface Fresh {
  readonly suffix: string | undefined
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
  readonly lines: ReadonlyArray<number>
}

/**
/**
 * Reads the lines pushed to it with `reader` (a file in `format`, `lines`
 * lines of it read already): each push returns the turns its lines added, by
 * conversation (a conversation without new turns left out), or throws the
 * `LineFailure` of a bad line; when `lenient`, a bad line is skipped instead,
 * and `report` gives what the pushes since its last call skipped and mended.
 */
export const make = (strictReader: LineReader, format: string, lenient: boolean, lines = 0) => {
  const out = new Sink(format, lenient)
  const skipped: Array<Skipped> = []
  const reader = lenient ? tolerant(strictReader, skipped) : strictReader
  const seen = new Map<object, number>()
  let line = lines
  return {
    lineCount: () => line,
    report: (): SkipReport => ({ skipped: skipped.splice(0), mended: out.mended.splice(0) }),
    push: (lines: ReadonlyArray<string>): ReadonlyArray<Fresh> => {
      for (const raw of lines) reader.push(raw.endsWith("\r") ? raw.slice(0, -1) : raw, ++line, out)
      const fresh: Array<Fresh> = []
      for (const conversation of out.conversations) {
        const from = seen.get(conversation) ?? 0
        if (conversation.turns.length === from) continue
        seen.set(conversation, conversation.turns.length)
        fresh.push({
          suffix: conversation.suffix,
          turns: conversation.turns.slice(from),
          lines: conversation.lines.slice(from)
        })
      }
      return fresh
    }
  }
}
