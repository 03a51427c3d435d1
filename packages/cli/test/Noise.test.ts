/**
 * The noise in what `precis context` gives the agent that continues a real
 * Claude Code session (the shared fixtures, compacted with the defaults and
 * assembled at 16k), counted by kind: each must be absent. Skipped where the
 * fixtures are absent.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { repoRoot, runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const fixtures = path.resolve(repoRoot, "..", "shared", "fixtures", "transcripts")
const sessions = ["claude-code-spotter-258c7280", "claude-code-spotter-ae4a77f8"]

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/
// A marker precis writes: a masked or cut output, and where its full text is.
const MARKER = /\[tool output masked:|chars cut;|full text: (?:turn|summary) /
const TURN_HEAD = /^\[[^\]\n]+\] (\w+): /
// A line that is only an exit status (`exit status 2`, `(exit 0)`, `Exit code 1`), not a result's status line.
const BARE_EXIT = /^\s*(?:(?:exit code|exit status|exit)[: ]\s*-?\d+|\((?:exit code|exit status|exit)[: ]\s*-?\d+\))\s*$/i

/** How many of each kind of noise `context` holds. */
const noiseOf = (context: string): Record<string, number> => {
  const lines = context.split("\n")
  const count = (test: (line: string, i: number) => boolean) => lines.filter(test).length
  // The first request, as the context's first line (pinned) shows it: any other line that repeats it.
  const first = TURN_HEAD.exec(lines[0] ?? "")
  const request = first === null ? "" : lines[0]!.slice(first[0].length, first[0].length + 40)
  return {
    // Raw or escaped (`\u001b` as the context escapes a control character) terminal escapes.
    ansi: count((line) => line.includes("\u001b") || line.includes("\\u001b")),
    usage: count((line) => /<usage>|\btotal_tokens: \d+/.test(line)),
    fullIdInMarker: count((line) => MARKER.test(line) && UUID.test(line)),
    plainWordAlso: count((line) => /^\s*Also: [a-z]+$/.test(line)),
    harnessTurns: count((line) => {
      const head = TURN_HEAD.exec(line)
      const body = head === null ? line : line.slice(head[0].length)
      return /rate-limit-options|Unknown slash command|^<(?:command-name|local-command-\w+)>/.test(body) ||
        (head?.[1] === "user" && /^\[REDACTED[\w -]*\]$/.test(body.trim()))
    }),
    repeatedLines: count((line, i) =>
      i >= 2 && line.trim().length > 0 && line === lines[i - 1] && line === lines[i - 2]
    ),
    bareExitLines: count((line) => {
      const head = TURN_HEAD.exec(line)
      return head?.[1] !== "tool" && BARE_EXIT.test(head === null ? line : line.slice(head[0].length))
    }),
    firstRequestRepeats: request.length === 0
      ? 0
      : count((line, i) => i > 0 && (line.includes(`user: ${request}`) || line.includes(`first request: ${request}`)))
  }
}

describe.skipIf(!fs.existsSync(fixtures))("the noise in a Claude Code fixture's context", () => {
  for (const name of sessions) {
    it.live(`${name}: no terminal escapes, usage blocks, full ids in markers, plain-word Also lines, harness turns, repeated or bare exit lines, nor the first request twice`, () =>
      Effect.gen(function*() {
        const file = path.join(fixtures, `${name}.jsonl`)
        if (!fs.existsSync(file)) return
        const db = path.join(dir, `${name}.db`)
        const compacted = yield* runCli(["compact", file, "--db", db])
        assert.strictEqual(compacted.code, 0, compacted.stderr)
        const result = yield* runCli(["context", "--db", db, "--budget", "16000"])
        assert.strictEqual(result.code, 0, result.stderr)
        assert.isAbove(result.stdout.length, 1000)
        assert.deepStrictEqual(noiseOf(result.stdout), {
          ansi: 0,
          usage: 0,
          fullIdInMarker: 0,
          plainWordAlso: 0,
          harnessTurns: 0,
          repeatedLines: 0,
          bareExitLines: 0,
          firstRequestRepeats: 0
        })
      }), { timeout: 300_000 })
  }

  it("counts each kind of noise it looks for", () => {
    const noisy = [
      "[2026-02-11T20:36:45] user: Implement spotter-gqc",
      "[14:48] user: \\u001b[2mCompacted\\u001b[22m",
      "  <usage>total_tokens: 19831",
      "[… 4 lines; full text: turn 1a2252ee-0c1d-4e6f-8a9b-0123456789ab]",
      "Also: done",
      "[14:49] user: <command-name>/rate-limit-options</command-name>",
      "x", "x", "x",
      "[20:56] tool: exit 128",
      "  exit status 2",
      "[2026-02-11T20:36] user: Implement spotter-gqc",
      "- first request: Implement spotter-gqc [1a2252ee]"
    ].join("\n")
    assert.deepStrictEqual(noiseOf(noisy), {
      ansi: 1,
      usage: 1,
      fullIdInMarker: 1,
      plainWordAlso: 1,
      harnessTurns: 1,
      repeatedLines: 1,
      bareExitLines: 1,
      firstRequestRepeats: 2
    })
  })
})
