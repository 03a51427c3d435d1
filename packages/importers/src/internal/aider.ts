/**
 * aider chat histories (`.aider.chat.history.md`, aider's `io.py`): markdown
 * appended run after run. `# aider chat started at 2025-10-20 21:49:17` starts
 * a run; `#### ` starts each line the user typed; `> ` each line aider printed
 * itself (its banner, `Applied edit to app.py`, a command's output); other
 * lines are the assistant's reply.
 *
 * Mapping: consecutive lines of one kind are one turn: the user's (`user`),
 * aider's own (`system`, marked `meta`), the reply (`assistant`); trailing
 * spaces (markdown line breaks) are dropped. The first turn of a run carries
 * its start time. Ids are derived from position and content.
 *
 * @internal
 */
import { Emitter } from "./agentTurns.js"
import type { Sink } from "./common.js"
import type { Format } from "./format.js"

const STARTED = /^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)/

type Kind = "user" | "system" | "assistant"

/** Reads an aider chat history into `out`. */
export const read = (text: string, out: Sink): void => {
  const emit = new Emitter()
  let kind: Kind | undefined
  let from = 0
  let body: Array<string> = []
  let started: string | undefined
  const flush = () => {
    const content = body.join("\n").trim()
    if (kind !== undefined && content.length > 0) {
      emit.add(out, from, { role: kind, content, timestamp: started, metadata: kind === "system" ? { meta: true } : undefined })
      started = undefined
    }
    kind = undefined
    body = []
  }
  text.split("\n").forEach((raw, index) => {
    const line = raw.replace(/\s+$/, "")
    const run = STARTED.exec(line)
    if (run !== null) {
      flush()
      started = run[1]
      return
    }
    const next: Kind = line.startsWith("#### ") || line === "####" ? "user" : line.startsWith(">") ? "system" : "assistant"
    // A blank line belongs to the reply it sits in, and starts nothing.
    if (line.length === 0 && kind !== "assistant") return
    if (next !== kind) {
      flush()
      kind = next
      from = index + 1
    }
    body.push(next === "user" ? line.replace(/^####\s?/, "") : next === "system" ? line.replace(/^>\s?/, "") : line)
  })
  flush()
}

/** aider histories: text that starts with `# aider chat started at`, or a file named `.aider.chat.history.md`. */
export const format = {
  name: "aider",
  title: "aider chat history markdown",
  lineBased: false,
  reader: read,
  detect: {
    claims: (probe) => probe._tag === "Text" && (STARTED.test(probe.text) || /(?:^|[/\\])\.aider\.chat\.history\.md$/.test(probe.fileName))
  }
} as const satisfies Format<"aider">
