/**
 * SessionState.outline: a session's hand-over (asked, done, left, next, files).
 */
import { assert, describe, it } from "@effect/vitest"
import * as ConversationTurn from "../src/ConversationTurn.js"
import * as SessionState from "../src/SessionState.js"

type Meta = { readonly [key: string]: unknown }

const user = (id: string, content: string) => ConversationTurn.make({ role: "user", content, id })
const say = (id: string, content: string) => ConversationTurn.make({ role: "assistant", content, id })

const call = (id: string, name: string, input: Meta) =>
  ConversationTurn.make({
    role: "assistant",
    content: `[tool_call ${name}] ${JSON.stringify(input)}`,
    id,
    metadata: { toolCalls: [{ id: `c-${id}`, name, arguments: JSON.stringify(input) }] }
  })

const result = (id: string, callTurn: string, content: string, isError = false) =>
  ConversationTurn.make({
    role: "tool",
    content,
    id,
    metadata: isError ? { toolCallId: `c-${callTurn}`, isError: true } : { toolCallId: `c-${callTurn}` }
  })

const bash = (id: string, command: string, output: string, isError = false) => [
  call(id, "Bash", { command }),
  result(`${id}r`, id, output, isError)
]

const work = [
  user("u1", "Fix the login bug"),
  call("e1", "Write", { file_path: "/app/src/login.ts", content: "x" }),
  result("e1r", "e1", "File created successfully"),
  call("e2", "Read", { file_path: "/app/README.md" }),
  result("e2r", "e2", "# app"),
  ...bash("b1", "git commit -m \"fix: login\"", "[main 1a2b3c] fix: login"),
  ...bash("b2", "bd close app-1", "✓ Closed app-1"),
  ...bash("b3", "bd update app-2 --status in_progress", "ok"),
  ...bash("b4", "git push", "rejected", true),
  call("t1", "TodoWrite", { todos: [{ content: "fix login", status: "completed" }, { content: "add a test", status: "pending" }, { content: "update docs", status: "pending" }] }),
  result("t1r", "t1", "ok")
]

describe("SessionState.outline", () => {
  it("sorts the state into done and left, with the last commit, the plan's first open item as next, the files written", () => {
    const outline = SessionState.outline(SessionState.fold(work))
    assert.deepStrictEqual(outline.asked, { text: "Fix the login bug", turnId: "u1" })
    assert.isUndefined(outline.latest)
    assert.deepStrictEqual(outline.lastCommit, { text: "git commit \"fix: login\"", turnId: "b1" })
    assert.deepStrictEqual(outline.done.map((l) => l.text), ["git commit \"fix: login\"", "app-1: closed"])
    assert.deepStrictEqual(outline.left.map((l) => l.text), [
      "git push failed: rejected",
      "app-2: in_progress",
      "[ ] update docs"
    ])
    assert.deepStrictEqual(outline.next, { text: "add a test", turnId: "t1" })
    assert.deepStrictEqual(outline.files.map((f) => [f.path, f.action]), [["/app/src/login.ts", "created"]])
  })

  it("an unanswered latest request is the next step; an answered one is not", () => {
    const asked = SessionState.fold([...work, user("u2", "Now make the logout button red")])
    assert.deepStrictEqual(SessionState.outline(asked).latest, { text: "Now make the logout button red", turnId: "u2" })
    assert.deepStrictEqual(SessionState.outline(asked).next, { text: "Now make the logout button red", turnId: "u2" })
    const answered = SessionState.fold([say("a9", "Done: it is red now.")], asked)
    assert.deepStrictEqual(SessionState.outline(answered).next, { text: "add a test", turnId: "t1" })
  })

  it("without a request to answer or a plan item open, the newest open error is the next step, said once", () => {
    const state = SessionState.fold([
      user("u1", "Ship the release"),
      ...bash("b1", "pnpm test", "FAIL a.test.ts\nTests: 1 failed", true),
      ...bash("b2", "git commit -m \"release\"", "pre-commit hook failed: lint", true),
      say("a1", "The hook refused the commit.")
    ])
    const outline = SessionState.outline(state)
    assert.deepStrictEqual(outline.next, { text: "resolve git commit \"release\" failed: pre-commit hook failed: lint", turnId: "b2" })
    assert.deepStrictEqual(outline.left.map((l) => l.turnId), ["b1r"])
    assert.isUndefined(outline.lastCommit)
  })
})

describe("the next step, one rule for the header and the hand-over", () => {
  // The turn the header's `Next:` line cites, and its words.
  const headerNext = (state: SessionState.State) => SessionState.render(state).match(/^Next:\n(- .*)$/m)?.[1]

  it("both give the same step, in their own words, whatever the state", () => {
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<ConversationTurn.ConversationTurn>, string | undefined, string | undefined]> = [
      // A request the agent works on without a plan and without an answer: the request (the
      // outline used to give nothing here, the request not being the last turn).
      ["working", [user("u1", "Fix the login bug"), ...bash("b1", "ls", "src")], "Fix the login bug",
        "- the first request, not yet answered [u1]"],
      // The agent planned after the request: the plan's open item (the header used to give the request).
      ["planned", work, "add a test", "- plan: add a test [t1]"],
      // A request made after the plan: the request.
      ["asked again", [...work, user("u2", "Now make the logout button red")], "Now make the logout button red",
        "- the latest request, not yet answered [u2]"],
      // Answered, no plan: the newest open error before the agent's stated intent (the header used to
      // give the intent).
      ["error", [user("u1", "Ship it"), ...bash("b1", "pnpm test", "FAIL a.test.ts\nTests: 1 failed", true),
        say("a1", "The test fails. Now I'll write the release notes.")], "resolve pnpm test: FAIL a.test.ts",
        "- resolve pnpm test: FAIL a.test.ts [b1r]"],
      // Answered, no plan, no open error: the agent's stated intent (the outline used to give nothing).
      ["intent", [user("u1", "Ship it"), say("a1", "The build is green. Now I'll write the release notes.")],
        "Now I'll write the release notes", "- the agent's last stated intent: Now I'll write the release notes [a1]"]
    ]
    for (const [name, turns, outlined, header] of cases) {
      const state = SessionState.fold(turns)
      const next = SessionState.outline(state).next
      assert.strictEqual(next?.text, outlined, name)
      assert.strictEqual(headerNext(state), header, name)
      if (next !== undefined) assert.include(header ?? "", `[${SessionState.shortId(next.turnId)}]`, name)
    }
  })
})

