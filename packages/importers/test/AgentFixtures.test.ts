/**
 * Every shared sample of another agent's log (`../shared/fixtures/agents`),
 * imported with `--format auto`: its turns, its tool calls each answered by a
 * result, and the session-state header naming the task, the files and the last
 * command; skipped where the fixtures are absent.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { ConversationTurn, SessionState, ToolUse } from "@precis/core"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Importer from "../src/Importer.js"
import { parsed } from "./helpers.js"

const agents = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "agents")

// What each sample holds (a short run of one task): its format, the words of its first request,
// a file its tools touched and its last command (`undefined`: the sample has none).
const expected: Record<string, { format: string; task: string; file?: string; command?: string }> = {
  "codex-agentlogs-crud.jsonl": { format: "codex", task: "create a file `JOKE.md`", file: "JOKE.md", command: "rm /Users/philipp/dev/agentlogs/fixtures/JOKE.md" },
  "opencode-agentlogs-crud.json": { format: "opencode", task: "create a file JOKE.md", file: "JOKE.md", command: "rm \"/Users/philipp/dev/agentlogs/JOKE.md\"" },
  "pi-agentlogs-crud.jsonl": { format: "pi", task: "create a file JOKE.md", file: "JOKE.md", command: "rm JOKE.md" },
  "cline-agentlogs-crud.json": { format: "cline", task: "tell me abouth this repo", file: "README.md", command: "mkdir -p /Users/bee/dev/agentlogs/fixtures/cline && cp " },
  // This history holds the user's aider commands and aider's lines only: files added, no command run.
  "aider-zen-mcp-server.chat.history.md": { format: "aider", task: "/copy-context 请你分析一下", file: "server.py" }
}

describe.skipIf(!fs.existsSync(agents))("the shared samples of other agents", () => {
  const files = fs.existsSync(agents) ? fs.readdirSync(agents).filter((f) => f !== "SOURCES.md" && f !== "LICENSES") : []

  it("are all known here", () => {
    assert.deepStrictEqual([...files].sort(), Object.keys(expected).sort())
  })

  for (const name of files) {
    it(`${name}: detected, every call answered, the header names its task, files and last command`, () => {
      const want = expected[name]!
      const imported = parsed(fs.readFileSync(path.join(agents, name), "utf8"), "auto", name)
      assert.strictEqual(imported.format, want.format)
      const turns = Importer.allTurns(imported)
      assert.isAtLeast(turns.length, 2)
      // Every call has its result, after it, and every result its call.
      const callAt = new Map<string, number>()
      turns.forEach((turn, i) => {
        for (const call of ToolUse.calls(turn)) if (call.id !== undefined) callAt.set(call.id, i)
      })
      const answered = new Set<string>()
      turns.forEach((turn, i) => {
        const result = ToolUse.result(turn)
        if (result === undefined) return
        assert.isDefined(result.callId, `${name}: a result without a call id at turn ${i}`)
        assert.isBelow(callAt.get(result.callId!) ?? Infinity, i, `${name}: result ${result.callId} before its call`)
        assert.isDefined(result.name)
        answered.add(result.callId!)
      })
      // Only a run cut short leaves calls unanswered: those of its last turn.
      const unanswered = [...callAt.entries()].filter(([id]) => !answered.has(id)).map(([, at]) => at)
      for (const at of unanswered) assert.strictEqual(at, turns.length - 1, `${name}: a call of turn ${at} without a result`)
      const header = SessionState.render(SessionState.fold(turns), 4000)
      expect(header).toContain(`- first request: ${want.task}`)
      if (want.file !== undefined) expect(header).toMatch(new RegExp(`- \\S*${want.file.replace(/\./g, "\\.")}\\b`))
      // These runs hold no check (tests, lint, builds): the header names their last command, whatever it was.
      if (want.command === undefined) expect(header).not.toContain("- last command:")
      else expect(header).toContain(`- last command: ${want.command}`)
      for (const turn of turns) assert.isUndefined(ConversationTurn.problem(turn))
    })
  }
})
