/**
 * A hook's blocking report, where Claude Code writes it in a session file
 * (what a hook that exits 2 wrote on stderr, or the reason of its
 * `decision: "block"`), and the check failures it reports:
 *
 * - a Stop (or SubagentStop) hook: a meta user line, `Stop hook feedback:\n[COMMAND]: REASON`;
 * - a PostToolUse hook: a `hook_blocking_error` attachment line, which the
 *   agent reads as `PostToolUse:Edit hook blocking error from command: "COMMAND": [COMMAND]: STDERR`
 *   (the importer gives it that text; older versions wrote it so, within a `<system-reminder>`);
 * - a PreToolUse hook: the result of the call it refused, its text the hook's
 *   (the importer marks it `hookRefused` in the turn's metadata, `ToolMetadata`).
 *
 * @internal
 */
import * as Commands from "./commands.js"

/** A hook's report: the hook's command when the transcript names it, and what it said. */
export interface Report {
  readonly command: string | undefined
  readonly text: string
}

const FEEDBACK = /(?:^|\n)(?:Subagent)?Stop hook feedback:\s*\n?(?:\[([^\]\n]+)\]:\s*)?([\s\S]*)/
const BLOCKING = /(?:^|\n|>)\s*[\w:]+ hook blocking error from command: "([^"\n]*)":\s*([\s\S]*?)\s*(?:<\/system-reminder>|$)/

/** The report a (user or meta) message holds, if it is a Stop hook's feedback or a hook's blocking error. */
export const reportOf = (text: string): Report | undefined => {
  const blocking = BLOCKING.exec(text)
  if (blocking !== null) {
    const command = blocking[1]!
    // The error repeats the command first: `[COMMAND]: STDERR`.
    const said = blocking[2]!.startsWith(`[${command}]:`) ? blocking[2]!.slice(command.length + 3) : blocking[2]!
    return { command, text: said.trim() }
  }
  const feedback = FEEDBACK.exec(text)
  return feedback === null ? undefined : { command: feedback[1], text: feedback[2]!.trim() }
}

/** A check a report says failed, with its first error line when the report has one. */
export interface Failure {
  readonly check: Commands.Check
  readonly detail: string | undefined
}

// A section heading of a report naming a tool: `[CREDO]`, `[DIALYZER]` (a line of its own or its start).
const HEADING = /^\[([A-Za-z][\w-]*)\]/

/**
 * The check failures a report states: the hook's own command when it is a
 * check (`npx tsc --noEmit`), else each check a section heading names
 * (`[CREDO]` is `mix credo`), with the section's first error line. Each
 * command is labelled `(hook)`: the agent did not run it.
 */
export const failures = (report: Report): ReadonlyArray<Failure> => {
  // Some hooks escape the line breaks of what they report.
  const lines = report.text.replace(/\\n/g, "\n").split("\n")
  const own = report.command === undefined
    ? undefined
    : Commands.simpleCommands(report.command).map(Commands.checkOf).filter((c) => c !== undefined).at(-1)
  if (own !== undefined) return [{ check: labelled(own), detail: detailOf(lines) }]
  const out: Array<Failure> = []
  lines.forEach((line, i) => {
    const heading = HEADING.exec(line.trim())
    const check = heading === null ? undefined : Commands.checkNamed(heading[1]!)
    if (check === undefined || out.some((f) => f.check.family === check.family)) return
    const end = lines.findIndex((l, j) => j > i && HEADING.test(l.trim()))
    const section = [line.trim().slice(heading![0].length), ...lines.slice(i + 1, end === -1 ? undefined : end)]
    out.push({ check: labelled(check), detail: detailOf(section) })
  })
  return out
}

// A line that points at a place in a file (`lib/a.ex:57:13`, `src/a.ts(3,4)`).
const LOCATION = /[\w./-]+\.\w+(?::\d+|\(\d+)/
// What a checker draws before its lines (credo's `┃`).
const framed = (line: string) => line.replace(/^[\s┃│|]+/, "").trim()

/**
 * Why a section of a report failed: its first error line; else its first place in a file, with the
 * message before it when tagged (credo's `[R] ↘ …`), else after it (dialyzer); else its first line.
 */
const detailOf = (section: ReadonlyArray<string>): string | undefined => {
  const lines = section.map(framed).filter((l) => l.length > 0)
  const error = Commands.errorLine(lines.join("\n"))
  if (error !== undefined) return error
  const at = lines.findIndex((l) => LOCATION.test(l))
  if (at === -1) return Commands.failureDetail(lines.join("\n"))
  // A checker that tags its issues (credo's `[R] ↘ message`) says the message first.
  const before = lines[at - 1]
  const message = before !== undefined && /^\[[A-Z]\]\s/.test(before)
    ? `${before} ${lines[at]}`
    : `${lines[at]} ${lines[at + 1] ?? ""}`
  return Commands.clip(message, 160)
}

const labelled = (check: Commands.Check): Commands.Check => ({ ...check, command: `${check.command} (hook)` })
