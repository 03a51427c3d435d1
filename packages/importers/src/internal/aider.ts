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
 * The work aider does itself is read as tool calls (aider's `commands.py`),
 * so that the session state names its files and commands: the user's `/run
 * CMD` (or `!CMD`), `/test CMD` and `/git ARGS` are a shell call answered by
 * aider's lines after it; `/add FILES` and `/read-only FILES` a read of each
 * file (a glob left out), answered by aider's line naming it; aider's
 * `Applied edit to FILE` an edit of the file. Its other commands (`/drop`,
 * `/clear`, `/tokens`, ...) are marked `meta`: not requests; those that
 * carry a message (`/ask`, `/code`, `/architect`, `/copy-context`, `/context`)
 * stay the user's requests.
 *
 * @internal
 */
import { call, Emitter } from "./agentTurns.js"
import type { Sink, ToolCall } from "./common.js"
import type { Format } from "./format.js"

const STARTED = /^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)/

type Kind = "user" | "system" | "assistant"

/** A run of lines of one kind: where it starts, its text, the run's start time on a run's first. */
interface Block {
  readonly kind: Kind
  readonly line: number
  readonly content: string
  readonly started: string | undefined
}

// The commands whose argument is a message for the model: the user's request.
const ASKS = new Set(["ask", "code", "architect", "copy-context", "context", "chat-mode"])
const APPLIED = /^Applied edit to (.+)$/

/** The blocks of a history, in order. */
const blocksOf = (text: string): Array<Block> => {
  const blocks: Array<Block> = []
  let kind: Kind | undefined
  let from = 0
  let body: Array<string> = []
  let started: string | undefined
  const flush = () => {
    const content = body.join("\n").trim()
    if (kind !== undefined && content.length > 0) {
      blocks.push({ kind, line: from, content, started })
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
  return blocks
}

/** A call an aider command makes, with the file it reads (a read's). */
interface Made {
  readonly call: ToolCall
  readonly file?: string
}

/** The calls a user's aider command makes, if it is one that runs a command or reads files. */
const commandCalls = (content: string, line: number): ReadonlyArray<Made> | undefined => {
  const bang = /^!\s*([\s\S]+)$/.exec(content)
  const command = bang !== null ? ["run", bang[1]!] : /^\/([\w-]+)\s*([\s\S]*)$/.exec(content)?.slice(1)
  if (command === undefined) return undefined
  const [name, rest] = [command[0]!, command[1]!.trim()]
  const id = (k: number) => `aider:${line}.${k}`
  if ((name === "run" || name === "test") && rest.length > 0) return [{ call: call(id(1), "run", { command: rest }) }]
  if (name === "git") return [{ call: call(id(1), "run", { command: `git ${rest}`.trim() }) }]
  if (name === "add" || name === "read-only") {
    return rest.split(/\s+/).filter((file) => file.length > 0 && !/[*?[]/.test(file)).map((file, k) => ({ call: call(id(k + 1), "read_file", { file_path: file }), file }))
  }
  return undefined
}

// Aider's lines naming `file` (its path or its end), else all of them: what answers a read of it.
const linesNaming = (output: string, file: string): string => {
  const lines = output.split("\n").filter((l) => l.includes(file) || file.endsWith(`/${l.replace(/^Added (\S+) to the chat.*$/, "$1")}`))
  return lines.join("\n")
}

/** Reads an aider chat history into `out`. */
export const read = (text: string, out: Sink): void => {
  const emit = new Emitter()
  const blocks = blocksOf(text)
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    const draft = { timestamp: block.started }
    const calls = block.kind === "user" ? commandCalls(block.content, block.line) : undefined
    if (calls !== undefined) {
      // The command, then what aider printed after it as its result.
      const output = blocks[i + 1]?.kind === "system" ? blocks[++i]!.content : ""
      emit.add(out, block.line, { ...draft, role: "user", content: block.content, metadata: { meta: true } })
      emit.assistant(out, block.line, [], calls.map((made) => made.call), {})
      for (const made of calls) {
        emit.result(out, block.line, { callId: made.call.id, content: made.file === undefined ? output : linesNaming(output, made.file) }, {})
      }
      continue
    }
    const command = block.kind === "user" ? /^\/([\w-]+)/.exec(block.content)?.[1] : undefined
    const meta = block.kind === "system" || (command !== undefined && !ASKS.has(command))
    const applied = block.kind === "system" ? block.content.split("\n").map((l) => APPLIED.exec(l)?.[1]).filter((f) => f !== undefined) : []
    emit.add(out, block.line, { ...draft, role: block.kind, content: block.content, metadata: meta ? { meta: true } : undefined })
    if (applied.length > 0) {
      // The edits aider applied, as calls of the reply they came from, each answered by aider's line.
      const edits = applied.map((file, k) => call(`aider:${block.line}.${k + 1}`, "edit_file", { file_path: file }))
      emit.assistant(out, block.line, [], edits, {})
      edits.forEach((c, k) => emit.result(out, block.line, { callId: c.id, content: `Applied edit to ${applied[k]}` }, {}))
    }
  }
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
