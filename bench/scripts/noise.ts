/**
 * The noise of a rendered context (what `precis context` prints), counted by
 * class, so a before/after of a change to the header or the summaries can be
 * reproduced:
 *
 * - bare omission lines: a line that is only an omission mark (`[…]`,
 *   `[… 14 lines]`), after its turn prefix, indent or leading `… `;
 * - `Also:` lines, their share of the context's characters, and the summaries
 *   that carry two or more of them;
 * - the header's share of characters taken by turn citations (`[d35f0cc4-…]`);
 * - leaves (depth-0 summaries) under 60 and under 100 tokens;
 * - repetitions of the working directory (the header's `directory:`) in the summaries and in the turns;
 * - `[thinking]` lines inside summaries and the tokens of those turns;
 * - lines cut mid-token (ending inside a path or an open parenthesis);
 * - harness chatter (`block=true timeout=`, npm's funding notes).
 *
 *   pnpm exec tsx --conditions=@precis/source bench/scripts/noise.ts CONTEXT.txt [MORE.txt ...]
 *
 * Prints one column per file.
 */
import { OutputDigest, TokenEstimator, Transcript } from "@precis/core"
import * as fs from "node:fs"
import * as path from "node:path"

const estimate = TokenEstimator.approximate.estimate

interface Block {
  readonly kind: "header" | "summary" | "turns"
  readonly depth: number
  readonly lines: Array<string>
}

// The header of a summary in a printed context (`Transcript.summaryHeader`), with its depth.
const SUMMARY_HEADER = /^\[Summary \d+, depth (\d+)[^\]\n]*\]$/

// A line of a printed context without its indent, if it is indented.
const continuation = (line: string): string | undefined =>
  line.startsWith(Transcript.indent) ? line.slice(Transcript.indent.length) : undefined

// A context's blocks: the session-state header, each summary, and the turns after them.
const blocks = (text: string): Array<Block> => {
  const out: Array<Block> = []
  let current: Block | undefined
  for (const line of text.split("\n")) {
    const summary = SUMMARY_HEADER.exec(line)
    if (summary !== null) {
      current = { kind: "summary", depth: Number(summary[1]), lines: [] }
      out.push(current)
      continue
    }
    if (current === undefined) {
      current = { kind: line.startsWith("Session state") ? "header" : "turns", depth: -1, lines: [] }
      out.push(current)
    }
    // A blank line ends the header; the turns after the summaries are written with full timestamps.
    if (current.kind === "header" && line.length === 0) {
      current = undefined
      continue
    }
    if (current.kind === "summary" && /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\] /.test(line)) {
      current = { kind: "turns", depth: -1, lines: [] }
      out.push(current)
    }
    current.lines.push(line)
  }
  return out
}

// A line's text without its turn prefix, indent and leading ellipsis.
const bodyOf = (line: string): string => {
  const turn = Transcript.turnHead(line)
  const text = turn !== undefined ? turn.content : continuation(line) ?? line
  return text.replace(/^…\s+/, "").trim()
}

const CITATION = / \[[^\]\s]{6,}\]/g

// A line that ends inside a token: an unclosed parenthesis before a word (`Write x.ex (4`), or a
// path cut at a dash (`spotter-worktrees/spotter-`). A directory's `lib/` is a whole path.
const cutMidToken = (line: string): boolean => {
  const body = bodyOf(line)
  if (body.length === 0 || body.endsWith("…")) return false
  const open = (body.match(/\(/g) ?? []).length > (body.match(/\)/g) ?? []).length
  return (open && /\(\S*\w$/.test(body)) || /[\w.]\/[\w.-]*-$/.test(body)
}

const CHATTER = /\bblock=true\b.*\btimeout=\d+|packages? (?:is|are) looking for funding|run `?npm fund`? for details/i

// How many times `needle` occurs in the blocks' lines.
const count = (of: ReadonlyArray<Block>, needle: string): number =>
  of.reduce((n, b) => n + b.lines.join("\n").split(needle).length - 1, 0)

const measure = (text: string): Record<string, string | number> => {
  const all = blocks(text)
  const lines = text.split("\n")
  const header = all.find((b) => b.kind === "header")
  const headerText = header?.lines.join("\n") ?? ""
  const citations = (headerText.match(CITATION) ?? []).reduce((n, c) => n + c.length, 0)
  const directory = /^- directory: (\S+)/m.exec(headerText)?.[1]
  const summaries = all.filter((b) => b.kind === "summary")
  const leaves = summaries.filter((b) => b.depth === 0)
  const alsoLines = lines.filter((l) => l.startsWith("Also: "))
  let thinkingLines = 0
  let thinkingTokens = 0
  for (const summary of summaries) {
    let inThinking = false
    for (const line of summary.lines) {
      const turn = Transcript.turnHead(line)
      if (turn !== undefined || continuation(line) === undefined) {
        inThinking = bodyOf(line).startsWith("[thinking]")
      }
      if (!inThinking) continue
      thinkingLines++
      thinkingTokens += estimate(line)
    }
  }
  const tokens = estimate(text)
  return {
    lines: lines.length,
    tokens,
    "header tokens": estimate(headerText),
    "header: citation share": Number((citations / Math.max(1, headerText.length)).toFixed(3)),
    "bare omission lines": lines.filter((l) => OutputDigest.isOmission(bodyOf(l))).length,
    "Also lines": alsoLines.length,
    "Also share (chars)": Number((alsoLines.reduce((n, l) => n + l.length + 1, 0) / Math.max(1, text.length)).toFixed(3)),
    "summaries with 2+ Also": summaries.filter((b) => b.lines.filter((l) => l.startsWith("Also: ")).length >= 2).length,
    summaries: summaries.length,
    leaves: leaves.length,
    "leaves < 60 tokens": leaves.filter((b) => estimate(b.lines.join("\n")) < 60).length,
    "leaves < 100 tokens": leaves.filter((b) => estimate(b.lines.join("\n")) < 100).length,
    "cwd repetitions in summaries": directory === undefined ? 0 : count(summaries, directory),
    "cwd repetitions in turns": directory === undefined ? 0 : count(all.filter((b) => b.kind === "turns"), directory),
    "thinking lines in summaries": thinkingLines,
    "thinking tokens in summaries": thinkingTokens,
    "mid-token cuts": summaries.flatMap((b) => b.lines).filter(cutMidToken).length,
    "harness chatter lines": lines.filter((l) => CHATTER.test(l)).length
  }
}

const files = process.argv.slice(2)
if (files.length === 0) {
  process.stderr.write("usage: noise.ts CONTEXT.txt [MORE.txt ...]\n")
  process.exit(2)
}
const columns = files.map((file) => ({ name: path.basename(file), figures: measure(fs.readFileSync(file, "utf8")) }))
const names = Object.keys(columns[0]!.figures)
const rows = [
  `| noise | ${columns.map((c) => c.name).join(" | ")} |`,
  `|---|${columns.map(() => "---:").join("|")}|`,
  ...names.map((name) => `| ${name} | ${columns.map((c) => c.figures[name]).join(" | ")} |`)
]
console.log(rows.join("\n"))
