/**
 * Claude Code sessions as a new user met them (issue 30 §6): a queued message
 * written twice, a branch named HEAD outside a repository.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { SessionState } from "@precis/core"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as LineParser from "../src/LineParser.js"
import { jsonl, ok } from "./helpers.js"

const user = (uuid: string, content: string) => ({ type: "user", uuid, sessionId: "sess-1", message: { role: "user", content } })
const queue = (operation: string, content?: string) => ({
  type: "queue-operation",
  operation,
  timestamp: "2025-06-01T12:00:04.000Z",
  sessionId: "sess-1",
  ...(content === undefined ? {} : { content })
})
const claudeSample = jsonl(
  user("u-1", "Run the tests"),
  { type: "assistant", uuid: "a-1", message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }] } },
  { type: "user", uuid: "u-2", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] } }
)

describe("Claude Code sessions", () => {
  it("stores a queued message once when Claude Code also writes it as a user line (dequeued), and a later same request again", () => {
    const text = claudeSample + jsonl(
      queue("enqueue", "check again"),
      queue("dequeue"),
      user("u-9", "check again"),
      { type: "assistant", uuid: "a-9", message: { role: "assistant", content: "Checked." } },
      user("u-10", "check again")
    )
    const turns = ok(text, "claude-code")
    assert.deepStrictEqual(turns.slice(3).map((t) => [t.role, t.content]), [
      ["user", "check again"],
      ["assistant", "Checked."],
      ["user", "check again"]
    ])
    assert.strictEqual(turns[3]!.metadata!.queued, true)
    assert.strictEqual(turns[5]!.id, "u-10")
    // A message removed from the queue (shown to the model mid-turn) has no user line: a later same request is one.
    const removed = ok(claudeSample + jsonl(queue("enqueue", "go on"), queue("remove"), user("u-11", "go on")), "claude-code")
    assert.deepStrictEqual(removed.slice(3).map((t) => t.content), ["go on", "go on"])
  })

  it("stores a dequeued message once when its user line comes after the parser's state was saved and resumed", () => {
    const lines = (values: ReadonlyArray<unknown>) => values.map((v) => JSON.stringify(v))
    const first = LineParser.make("claude-code", "s.jsonl", { strict: false })!
    const before = Either.getOrThrow(first.push(lines([...claudeSample.trim().split("\n").map((l) => JSON.parse(l)), queue("enqueue", "check again")])))
    const state = Option.getOrThrow(first.state())
    // Another process goes on from the saved state (a JSON round trip, as the store keeps it).
    const resumed = Option.getOrThrow(LineParser.resume(JSON.parse(JSON.stringify(state)), "s.jsonl", { strict: false }))
    const after = Either.getOrThrow(resumed.push(lines([queue("dequeue"), user("u-9", "check again"), user("u-10", "check again")])))
    const contents = [...before, ...after].flatMap((c) => c.turns).map((t) => t.content)
    assert.deepStrictEqual(contents.slice(3), ["check again", "check again"])
    assert.strictEqual(after.flatMap((c) => c.turns)[0]!.id, "u-10")
  })

  it("treats a gitBranch of HEAD (outside a repository) as no branch", () => {
    const text = jsonl(
      { type: "user", uuid: "u-1", cwd: "/tmp/scratch", gitBranch: "HEAD", message: { role: "user", content: "Go" } },
      { type: "assistant", uuid: "a-1", cwd: "/tmp/scratch", gitBranch: "HEAD", message: { role: "assistant", content: "Gone." } }
    )
    const header = SessionState.render(SessionState.fold(ok(text, "claude-code")))
    expect(header).toContain("- directory: /tmp/scratch")
    assert.notInclude(header, "branch:")
  })

})
