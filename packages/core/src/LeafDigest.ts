/**
 * The digest of a leaf's turns: what an LLM summarizer reads of each turn,
 * the whole turn staying in the store, one `read` away. A short turn is kept
 * whole; of a long one, only the lines a summary needs:
 * - a tool's output (a file read, a command): its first line (the status, or
 *   `read PATH (N lines)`) and the lines that carry results or errors
 *   (`OutputDigest.matters`);
 * - a message: its first and last lines;
 * - any turn: each line that brings a key the fact check requires
 *   (`FactCheck.keysOf`) and no line before it in the digest gave, so a path,
 *   an identifier or an id that later turns refer to stays where it was said
 *   first.
 * Each gap is marked `[… N lines; read ID]` with the turn's short id
 * (`SessionState.shortId`), or `[… N lines]` when the turn has no id.
 * Every key of the full turns is a key of the digest.
 *
 * @since 0.1.0
 */
import * as ConversationTurn from "./ConversationTurn.js"
import * as FactCheck from "./FactCheck.js"
import { plural } from "./internal/text.js"
import * as OutputDigest from "./OutputDigest.js"
import * as SessionState from "./SessionState.js"
import * as SummaryTask from "./SummaryTask.js"

/**
 * A turn is kept whole up to this many lines.
 *
 * @since 0.1.0
 */
export const wholeLines = 6

/** A message keeps its first and last lines. */
const HEAD = 2
const TAIL = 2

/**
 * The mark of `n` lines of a turn left out: `[… N lines; read ID]`, or
 * `[… N lines]` without an id.
 *
 * @example
 * ```ts
 * import { LeafDigest } from "@precis/core"
 * LeafDigest.gap(12, "d35f0cc4-428d-436c-b878-0a1b2c3d4e5f") // "[… 12 lines; read d35f0cc4]"
 * ```
 * @since 0.1.0
 */
export const gap = (n: number, id: string | undefined): string =>
  id === undefined ? OutputDigest.omitted(n) : `[… ${plural(n, "line")}; read ${SessionState.shortId(id)}]`

// The keys (lower-cased) the fact check reads in one line of a turn of `role`.
const lineKeys = (role: string, line: string): ReadonlyArray<string> =>
  FactCheck.keysOf({ kind: "leaf", targetTokens: 0, turns: [{ role, content: line }] }).map((fact) =>
    fact.text.toLowerCase()
  )

// Whether line `i` of `n` is kept for what it is, whatever its keys.
const keptForItself = (tool: boolean, line: string, i: number, n: number): boolean =>
  tool ? i === 0 || OutputDigest.matters(line) : i < HEAD || i >= n - TAIL

/**
 * The digest of `turns`, in order: each turn with its role, time and id, its
 * content kept whole when short (at most {@link wholeLines} lines), else its
 * digest lines with each gap marked ({@link gap}).
 *
 * @example
 * ```ts
 * import { LeafDigest } from "@precis/core"
 * LeafDigest.turns([{ role: "user", content: "fix it", id: "t1" }]) // the same turn: short turns are kept whole
 * ```
 * @since 0.1.0
 */
export const turns = (items: ReadonlyArray<SummaryTask.Turn>): ReadonlyArray<SummaryTask.Turn> => {
  const seen = new Set<string>()
  return items.map((turn) => {
    const lines = SummaryTask.lines(turn.content)
    const tool = ConversationTurn.isToolRole(turn.role)
    const kept: Array<string> = []
    // The lines left out since the last kept one: marked as a gap, or kept when the mark would be as long.
    let pending: Array<string> = []
    let dropped = false
    const flush = () => {
      const count = pending.filter((l) => l.trim().length > 0).length
      const mark = gap(count, turn.id)
      if (count > 0 && pending.join("\n").length > mark.length) {
        kept.push(mark)
        dropped = true
      } else if (pending.length > 0 && count > 0) kept.push(...pending)
      else if (pending.length > 0) dropped = true
      pending = []
    }
    lines.forEach((line, i) => {
      const keys = lineKeys(turn.role, line)
      const fresh = keys.some((key) => !seen.has(key))
      for (const key of keys) seen.add(key)
      if (lines.length <= wholeLines || fresh || keptForItself(tool, line, i, lines.length)) {
        flush()
        kept.push(line)
      } else pending.push(line)
    })
    flush()
    return dropped ? { ...turn, content: kept.join("\n") } : turn
  })
}

// The digest of a list of turns, built once however many tiers ask for it.
const digested = new WeakMap<object, string>()

/**
 * The transcript of `task`'s digest ({@link turns}), one turn per line as
 * `Transcript.formatTurns` writes it: what `Prompt.forTask` sends for a leaf.
 * Built once per list of turns.
 *
 * @since 0.1.0
 */
export const transcript = (task: SummaryTask.TurnsTask): string => {
  let text = digested.get(task.turns)
  if (text === undefined) {
    text = SummaryTask.material({ kind: task.kind, turns: turns(task.turns), targetTokens: task.targetTokens })
    digested.set(task.turns, text)
  }
  return text
}
