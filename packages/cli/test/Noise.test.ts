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

/** How many of each kind of noise `context` holds. */
const noiseOf = (context: string): Record<string, number> => {
  const lines = context.split("\n")
  const count = (test: (line: string, i: number) => boolean) => lines.filter(test).length
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
    )
  }
}

describe.skipIf(!fs.existsSync(fixtures))("the noise in a Claude Code fixture's context", () => {
  for (const name of sessions) {
    it.live(`${name}: no terminal escapes, usage blocks, full ids in markers, plain-word Also lines, harness turns or repeated lines`, () =>
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
          repeatedLines: 0
        })
      }), { timeout: 300_000 })
  }

  it("counts each kind of noise it looks for", () => {
    const noisy = [
      "[14:48] user: \\u001b[2mCompacted\\u001b[22m",
      "  <usage>total_tokens: 19831",
      "[… 4 lines; full text: turn 1a2252ee-0c1d-4e6f-8a9b-0123456789ab]",
      "Also: done",
      "[14:49] user: <command-name>/rate-limit-options</command-name>",
      "x", "x", "x"
    ].join("\n")
    assert.deepStrictEqual(noiseOf(noisy), {
      ansi: 1,
      usage: 1,
      fullIdInMarker: 1,
      plainWordAlso: 1,
      harnessTurns: 1,
      repeatedLines: 1
    })
  })
})
