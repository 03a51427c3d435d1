import * as FileSystem from "@effect/platform/FileSystem"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, expect, it } from "@effect/vitest"
import { type ConversationTurn, ToolMetadata } from "@precis/core"
import { Arbitraries } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as ImportError from "../src/ImportError.js"
import * as Importer from "../src/Importer.js"
import * as LineParser from "../src/LineParser.js"
import { err, jsonl, ok } from "./helpers.js"


// ---------------------------------------------------------------------------- samples

const precisSample = jsonl(
  { role: "user", content: "Fix the login bug", timestamp: "2025-03-01T10:00:00Z", id: "u1" },
  { role: "assistant", content: "Looking at src/auth.ts\nline two", timestamp: "2025-03-01T10:00:05Z" },
  { role: "tool", content: "ok", metadata: { toolCallId: "c1", toolName: "bash" }, sessionId: "s-9" }
)

const openAiMessages = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: [{ type: "text", text: "List the files" }, { type: "image_url", image_url: { url: "x" } }] },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: "{\"cmd\":\"ls -la\"}" } }]
  },
  { role: "tool", tool_call_id: "call_1", content: "README.md\nsrc" },
  { role: "assistant", content: "There are two entries." }
]

const claudeSample = jsonl(
  { type: "summary", summary: "Earlier work", leafUuid: "x" },
  {
    type: "user",
    uuid: "u-1",
    parentUuid: null,
    sessionId: "sess-1",
    timestamp: "2025-06-01T12:00:00.000Z",
    message: { role: "user", content: "Run the tests" }
  },
  { type: "file-history-snapshot", messageId: "m", snapshot: {} },
  {
    type: "assistant",
    uuid: "a-1",
    parentUuid: "u-1",
    sessionId: "sess-1",
    timestamp: "2025-06-01T12:00:03.000Z",
    message: {
      role: "assistant",
      model: "claude-x",
      content: [
        { type: "thinking", thinking: "Tests live in test/" },
        { type: "text", text: "Running them now." },
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test" } }
      ]
    }
  },
  { type: "progress", data: { step: 1 } },
  {
    type: "user",
    uuid: "u-2",
    parentUuid: "a-1",
    sessionId: "sess-1",
    timestamp: "2025-06-01T12:00:09.000Z",
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "1 failed" }], is_error: true }]
    }
  },
  { type: "system", content: "hook ran", uuid: "sys-1" }
)

const sweAgentTraj = {
  environment: "swe_main",
  trajectory: [{ action: "ls", observation: "a.py" }],
  history: [
    { role: "system", content: "SETTING: ...", agent: "main", message_type: "system_prompt" },
    { role: "user", content: "ISSUE: crash in a.py", agent: "main", message_type: "observation" },
    {
      role: "assistant",
      content: "Let me look.",
      agent: "main",
      message_type: "action",
      tool_calls: [{ id: "call_a", type: "function", function: { name: "open", arguments: "{\"path\":\"a.py\"}" } }]
    },
    { role: "tool", content: "[File: a.py]", agent: "main", message_type: "observation", tool_call_ids: ["call_a"] }
  ],
  info: { exit_status: "submitted" }
}

const openHandsEvents = [
  { id: 0, timestamp: "2025-01-20T20:29:13.519638", source: "environment", message: "", observation: "agent_state_changed", content: "", extras: { agent_state: "loading" } },
  { id: 1, timestamp: "2025-01-20T20:29:32.163218", source: "environment", message: "Agent state changed to init", action: "change_agent_state", args: { agent_state: "init" } },
  { id: 2, timestamp: "2025-01-20T20:29:32.262843", source: "user", message: "Build a todo app", action: "message", args: { content: "Build a todo app" } },
  { id: 3, timestamp: "2025-01-20T20:29:32.289136", source: "user", message: "No observation", cause: 2, observation: "null", content: "", extras: {} },
  {
    id: 4,
    timestamp: "2025-01-20T20:29:35.040676",
    source: "agent",
    message: "Running command: mkdir app",
    action: "run",
    tool_call_metadata: { function_name: "execute_bash", tool_call_id: "toolu_9" },
    args: { command: "mkdir app", thought: "First a folder." }
  },
  {
    id: 5,
    timestamp: "2025-01-20T20:29:35.699033",
    source: "agent",
    message: "Command `mkdir app` executed with exit code 0.",
    cause: 4,
    observation: "run",
    tool_call_metadata: { function_name: "execute_bash", tool_call_id: "toolu_9" },
    content: "",
    extras: { command: "mkdir app" },
    success: true
  },
  { id: 6, timestamp: "2025-01-20T20:30:35.414886", source: "agent", message: "Done: the app is in app/.", action: "message", args: { content: "Done: the app is in app/." } }
]

const oasstTree = {
  message_tree_id: "tree-1",
  tree_state: "ready_for_export",
  prompt: {
    message_id: "m1",
    text: "How do I sort a list in Python?",
    role: "prompter",
    replies: [
      { message_id: "m2b", text: "Second best", role: "assistant", rank: 1, replies: [] },
      {
        message_id: "m2a",
        text: "Use sorted(xs).",
        role: "assistant",
        rank: 0,
        replies: [{ message_id: "m3", text: "And in reverse?", role: "prompter", replies: [] }]
      }
    ]
  }
}

// ---------------------------------------------------------------------------- formats

describe("precis JSONL", () => {
  it("reads turns with ids, timestamps, metadata and the source format", () => {
    const turns = ok(precisSample, "precis")
    assert.deepStrictEqual(turns.map((t) => t.role), ["user", "assistant", "tool"])
    assert.strictEqual(turns[0]!.id, "u1")
    assert.strictEqual(turns[0]!.timestamp, "2025-03-01T10:00:00Z")
    assert.strictEqual(turns[1]!.content, "Looking at src/auth.ts\nline two")
    assert.match(turns[1]!.id!, /^precis:1-[0-9a-f]{12}$/)
    assert.deepStrictEqual(turns[2]!.metadata, { toolCallId: "c1", toolName: "bash", sourceFormat: "precis" })
    assert.strictEqual(turns[2]!.sessionId, "s-9")
  })

  it.prop("round-trips any turns written as JSONL", [FastCheck.array(Arbitraries.turn, { maxLength: 20 })], ([turns]) => {
    const text = turns.map((t) => JSON.stringify(t)).join("\n")
    const read = ok(text, "precis")
    assert.deepStrictEqual(read.map((t) => [t.role, t.content, t.timestamp]), turns.map((t) => [t.role, t.content, t.timestamp]))
    turns.forEach((t, i) => {
      if (t.id !== undefined) assert.strictEqual(read[i]!.id, t.id)
    })
    const derived = read.filter((_, i) => turns[i]!.id === undefined).map((t) => t.id)
    assert.strictEqual(new Set(derived).size, derived.length)
  })

  it("gives the same ids on a second import, and distinct ids to distinct turns", () => {
    const a = ok(precisSample, "precis").map((t) => t.id)
    const b = ok(precisSample, "precis").map((t) => t.id)
    assert.deepStrictEqual(a, b)
    assert.strictEqual(new Set(a).size, a.length)
    const repeated = ok(jsonl({ role: "user", content: "ok" }, { role: "user", content: "ok" }), "precis")
    assert.notStrictEqual(repeated[0]!.id, repeated[1]!.id)
  })

  it("gives a turn a session id only when its line names one", () => {
    assert.deepStrictEqual(ok(precisSample, "precis").map((t) => t.sessionId), [undefined, undefined, "s-9"])
  })

  it("reports the line of a malformed record, blank lines counted", () => {
    const text = `${jsonl({ role: "user", content: "a" })}\n${jsonl({ role: "user", content: "b" })}${
      jsonl({ role: "user", text: "c" })
    }`
    const e = err(text, "precis", "session.jsonl")
    assert.strictEqual(e._tag, "ImportError")
    assert.deepStrictEqual([e.reason, e.line], ["InvalidLine", 4])
    assert.isTrue(ImportError.isImportError(e))
    assert.isFalse(ImportError.isImportError(new Error(e.message)))
    assert.strictEqual(e.message, "session.jsonl:4: expected a JSON object with string \"role\" and \"content\"")
  })

  it("reports the line of invalid JSON", () => {
    const e = err(`${jsonl({ role: "user", content: "a" })}{"role": "user", "content": "b"\n`, "precis", "s.jsonl")
    assert.strictEqual(e.line, 2)
    expect(e.message).toMatch(/^s\.jsonl:2: invalid JSON: /)
  })

  it("rejects a non-string timestamp", () => {
    const e = err(jsonl({ role: "user", content: "a", timestamp: 5 }), "precis", "s.jsonl")
    assert.strictEqual(e.message, "s.jsonl:1: \"timestamp\" must be a string when present")
  })
})

describe("OpenAI chat messages", () => {
  it("keeps tool calls and tool results as turns with metadata", () => {
    const turns = ok(JSON.stringify(openAiMessages), "openai")
    assert.deepStrictEqual(turns.map((t) => t.role), ["system", "user", "assistant", "tool", "assistant"])
    assert.strictEqual(turns[1]!.content, "List the files\n[image_url]")
    assert.strictEqual(turns[2]!.content, "[tool_call bash] {\"cmd\":\"ls -la\"}")
    assert.deepStrictEqual(turns[2]!.metadata!.toolCalls, [{ id: "call_1", name: "bash", arguments: "{\"cmd\":\"ls -la\"}" }])
    assert.strictEqual(turns[3]!.metadata!.toolCallId, "call_1")
    assert.strictEqual(turns[3]!.metadata!.toolName, "bash")
    assert.strictEqual(turns[3]!.metadata!.sourceFormat, "openai")
    assert.match(turns[0]!.id!, /^openai:0-/)
  })

  it("accepts { messages: [...] }", () => {
    const turns = ok(JSON.stringify({ model: "gpt", messages: openAiMessages }), "openai")
    assert.strictEqual(turns.length, 5)
  })

  it("reports the line where a bad message starts", () => {
    const text = [
      "{",
      "  \"messages\": [",
      "    {\"role\": \"user\", \"content\": \"hi\"},",
      "    {\"role\": \"assistant\", \"content\": \"hello\"},",
      "    {",
      "      \"content\": \"no role\"",
      "    }",
      "  ]",
      "}"
    ].join("\n")
    const e = err(text, "openai", "chat.json")
    assert.strictEqual(e.line, 5)
    assert.strictEqual(e.message, "chat.json:5: message 3: expected a message object with a string \"role\"")
  })

  it("reports the line of a JSON syntax error", () => {
    const text = "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"user\" \"content\": \"x\"}\n]"
    const e = err(text, "openai", "chat.json")
    assert.strictEqual(e.line, 3)
    expect(e.description).toContain("invalid JSON")
  })
})

describe("Claude Code sessions", () => {
  it("reads user, assistant and tool-result turns and skips other lines", () => {
    const turns = ok(claudeSample, "claude-code")
    assert.deepStrictEqual(turns.map((t) => t.role), ["user", "assistant", "tool"])
    assert.deepStrictEqual(turns.map((t) => t.id), ["u-1", "a-1", "u-2"])
    assert.deepStrictEqual(turns.map((t) => t.sessionId), ["sess-1", "sess-1", "sess-1"])
    assert.strictEqual(turns[0]!.timestamp, "2025-06-01T12:00:00.000Z")
    assert.strictEqual(
      turns[1]!.content,
      "[thinking] Tests live in test/\nRunning them now.\n[tool_call Bash] {\"command\":\"npm test\"}"
    )
    assert.deepStrictEqual(turns[1]!.metadata!.toolCalls, [{ id: "toolu_1", name: "Bash", arguments: "{\"command\":\"npm test\"}" }])
    assert.strictEqual(turns[2]!.content, "1 failed")
    assert.strictEqual(turns[2]!.metadata!.toolCallId, "toolu_1")
    assert.strictEqual(turns[2]!.metadata!.toolName, "Bash")
    assert.strictEqual(turns[2]!.metadata!.isError, true)
  })

  it("splits a user line with several blocks into several turns with distinct ids", () => {
    const text = jsonl({
      type: "user",
      uuid: "u-9",
      message: {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "one" },
          { type: "tool_result", tool_use_id: "t2", content: "two" },
          { type: "text", text: "and now this" }
        ]
      }
    })
    const turns = ok(text, "claude-code")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.id, t.content]), [
      ["tool", "u-9#0", "one"],
      ["tool", "u-9#1", "two"],
      ["user", "u-9#2", "and now this"]
    ])
  })

  it("keeps each line's cwd and gitBranch in the turn's metadata", () => {
    const text = jsonl(
      { type: "user", uuid: "u-1", cwd: "/work/app", gitBranch: "main", message: { role: "user", content: "Go" } },
      {
        type: "user",
        uuid: "u-2",
        cwd: "/work/app/sub",
        gitBranch: "feature-x",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] }
      },
      { type: "assistant", uuid: "a-1", cwd: "", message: { role: "assistant", content: "no directory" } }
    )
    const turns = ok(text, "claude-code")
    assert.deepStrictEqual(turns.map((t) => [t.metadata!.cwd, t.metadata!.gitBranch]), [
      ["/work/app", "main"],
      ["/work/app/sub", "feature-x"],
      [undefined, undefined]
    ])
  })

  const queue = (operation: string, content?: string) => ({
    type: "queue-operation",
    operation,
    timestamp: "2025-06-01T12:00:04.000Z",
    sessionId: "sess-1",
    ...(content === undefined ? {} : { content })
  })

  it("reads a message the user queued as a user turn; other queue operations and task notifications stay skipped", () => {
    const text = claudeSample + jsonl(
      queue("enqueue", "new beads for the epic were added. tackle them"),
      queue("remove"),
      queue("enqueue", "<task-notification>\n<task-id>b0be39e</task-id>\n<status>completed</status>\n</task-notification>"),
      queue("enqueue", "   "),
      queue("popAll", "ignored")
    )
    const turns = ok(text, "claude-code")
    assert.deepStrictEqual(turns.map((t) => t.role), ["user", "assistant", "tool", "user"])
    const queued = turns[3]!
    assert.strictEqual(queued.content, "new beads for the epic were added. tackle them")
    assert.strictEqual(queued.timestamp, "2025-06-01T12:00:04.000Z")
    assert.strictEqual(queued.sessionId, "sess-1")
    assert.strictEqual(queued.metadata!.queued, true)
    assert.match(queued.id!, /^claude-code:3-/)
  })

  it("puts a message queued between a tool call and its result after the result", () => {
    const lines = claudeSample.trimEnd().split("\n")
    // The sample's tool result is its 6th line: queue the message just before it.
    const text = [...lines.slice(0, 5), JSON.stringify(queue("enqueue", "check again")), ...lines.slice(5)].join("\n") + "\n"
    const turns = ok(text, "claude-code")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.content]), [
      ["user", "Run the tests"],
      ["assistant", turns[1]!.content],
      ["tool", "1 failed"],
      ["user", "check again"]
    ])
    // Read line by line (as `precis watch` does), the same turns with the same ids.
    const parser = LineParser.make("claude-code", "live.jsonl")!
    const pushed = text.trimEnd().split("\n").flatMap((line) =>
      Either.getOrThrow(parser.push([line])).flatMap((c) => c.turns)
    )
    assert.deepStrictEqual(pushed.map((t) => t.id), turns.map((t) => t.id))
  })

  it("adds a queued message whose tool result never comes at the end of the file", () => {
    const lines = claudeSample.trimEnd().split("\n").slice(0, 5)
    const text = [...lines, JSON.stringify(queue("enqueue", "stop and commit"))].join("\n") + "\n"
    const turns = ok(text, "claude-code")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.content.slice(0, 15)]), [
      ["user", "Run the tests"],
      ["assistant", "[thinking] Test"],
      ["user", "stop and commit"]
    ])
  })

  it("reports the line of a message line without a message", () => {
    const text = claudeSample + jsonl({ type: "assistant", uuid: "a-2" })
    const e = err(text, "claude-code", "session.jsonl")
    assert.strictEqual(e.line, 8)
    expect(e.message).toContain("session.jsonl:8: expected \"message\"")
  })
})

describe("SWE-agent trajectories", () => {
  it("reads history[] in order with tool calls", () => {
    const turns = ok(JSON.stringify(sweAgentTraj, null, 2), "swe-agent")
    assert.deepStrictEqual(turns.map((t) => t.role), ["system", "user", "assistant", "tool"])
    assert.strictEqual(turns[2]!.content, "Let me look.\n[tool_call open] {\"path\":\"a.py\"}")
    assert.strictEqual(turns[3]!.metadata!.toolCallId, "call_a")
    assert.strictEqual(turns[3]!.metadata!.toolName, "open")
    assert.strictEqual(turns[1]!.metadata!.messageType, "observation")
    assert.isUndefined(turns[0]!.timestamp)
  })

  it("keeps the directory of SWE-agent's prompt as metadata.cwd", () => {
    const traj = {
      ...sweAgentTraj,
      history: [
        ...sweAgentTraj.history,
        { role: "user", content: "done\n(Open file: n/a)\n(Current directory: /pydicom__pydicom)\nbash-$", agent: "main" }
      ]
    }
    const turns = ok(JSON.stringify(traj), "swe-agent")
    assert.deepStrictEqual(turns.map((t) => t.metadata!.cwd), [undefined, undefined, undefined, undefined, "/pydicom__pydicom"])
  })

  it("fails without a history array, at line 1", () => {
    const e = err(JSON.stringify({ trajectory: [] }), "swe-agent", "run.traj")
    assert.strictEqual(e.message, "run.traj:1: expected a JSON object with a \"history\" array (a SWE-agent trajectory)")
  })

  it("reports the line where a bad history entry starts", () => {
    const bad = { ...sweAgentTraj, history: [...sweAgentTraj.history.slice(0, 2), { role: 3, content: "x" }] }
    const text = JSON.stringify(bad, null, 2)
    const e = err(text, "swe-agent", "run.traj")
    const expected = text.split("\n").findIndex((l) => l.includes("\"role\": 3")) // the line after the "{"
    assert.strictEqual(e.line, expected)
    expect(e.description).toContain("history[2]")
  })
})

describe("OpenAI-style messages (openai and swe-agent)", () => {
  const withoutFormat = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>) =>
    turns.map(({ content, metadata, role }) => {
      const { sourceFormat: _, ...rest } = metadata ?? {}
      return { role, content, metadata: rest }
    })

  it("read the same messages into the same turns in both formats", () => {
    const openai = ok(JSON.stringify(openAiMessages), "openai")
    const swe = ok(JSON.stringify({ history: openAiMessages }), "swe-agent")
    assert.deepStrictEqual(withoutFormat(swe), withoutFormat(openai))
    assert.deepStrictEqual(swe.map((t) => t.metadata!.sourceFormat), Array(5).fill("swe-agent"))
    assert.match(swe[0]!.id!, /^swe-agent:0-[0-9a-f]{12}$/)
  })

  it("keep every id of a result that answers several calls", () => {
    const history = [
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "a", type: "function", function: { name: "open", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "edit", arguments: { line: 3 } } }
        ]
      },
      { role: "tool", content: "done", tool_call_ids: ["b", "a"] }
    ]
    const turns = ok(JSON.stringify({ history }), "swe-agent")
    assert.strictEqual(turns[0]!.content, "[tool_call open] {}\n[tool_call edit] {\"line\":3}")
    assert.deepStrictEqual(turns[1]!.metadata, {
      toolCallId: "b",
      toolCallIds: ["b", "a"],
      toolName: "edit",
      sourceFormat: "swe-agent"
    })
  })

  it("read a legacy function_call and the function result that answers it", () => {
    const turns = ok(
      JSON.stringify([
        { role: "assistant", content: null, function_call: { name: "lookup", arguments: "{\"q\":\"x\"}" } },
        { role: "function", name: "lookup", content: "found" }
      ]),
      "openai"
    )
    assert.strictEqual(turns[0]!.content, "[tool_call lookup] {\"q\":\"x\"}")
    assert.deepStrictEqual(turns[0]!.metadata!.toolCalls, [{ name: "lookup", arguments: "{\"q\":\"x\"}" }])
    assert.strictEqual(turns[1]!.metadata!.toolName, "lookup")
  })

  it("reject malformed tool_calls at the line of the message", () => {
    const text = JSON.stringify({ history: [{ role: "user", content: "hi" }, { role: "assistant", tool_calls: [{ id: 1 }] }] }, null, 2)
    const e = err(text, "swe-agent", "run.traj")
    assert.strictEqual(e.line, text.split("\n").findIndex((l) => l.includes("\"assistant\"")))
    assert.strictEqual(e.description, "history[1]: \"tool_calls\" must be an array of { id, function: { name, arguments } }")
  })
})

describe("OpenHands events", () => {
  it("turns messages, actions and observations into turns, skipping bookkeeping", () => {
    const turns = ok(JSON.stringify(openHandsEvents), "openhands")
    assert.deepStrictEqual(turns.map((t) => t.role), ["user", "assistant", "tool", "assistant"])
    assert.strictEqual(turns[0]!.content, "Build a todo app")
    assert.strictEqual(turns[1]!.content, "First a folder.\n$ mkdir app")
    assert.deepStrictEqual(turns[1]!.metadata!.toolCalls, [
      { id: "toolu_9", name: "execute_bash", arguments: "{\"command\":\"mkdir app\"}" }
    ])
    assert.strictEqual(turns[2]!.metadata!.toolCallId, "toolu_9")
    assert.strictEqual(turns[2]!.metadata!.cause, "4")
    assert.strictEqual(turns[0]!.timestamp, "2025-01-20T20:29:32.262843")
    assert.match(turns[0]!.id!, /^openhands:2-[0-9a-f]{12}$/)
  })

  it("keeps a command's working directory and exit code from extras.metadata", () => {
    const events = openHandsEvents.map((e) =>
      e.id === 5 ? { ...e, extras: { command: "mkdir app", metadata: { exit_code: 0, working_dir: "/workspace" } } } : e
    )
    const tool = ok(JSON.stringify(events), "openhands").find((t) => t.role === "tool")!
    assert.strictEqual(tool.metadata!.cwd, "/workspace")
    assert.strictEqual(tool.metadata!.exitCode, 0)
  })

  it("reports the line where a bad event starts", () => {
    const text = "[\n" + [...openHandsEvents.slice(0, 2), { id: 9, source: "agent" }].map((e) => JSON.stringify(e)).join(",\n") + "\n]"
    const e = err(text, "openhands", "events.json")
    assert.strictEqual(e.line, 4)
    expect(e.description).toContain("event 3")
  })
})

describe("OpenAssistant trees", () => {
  it("follows the rank-0 reply at each level", () => {
    const turns = ok(jsonl(oasstTree), "oasst")
    assert.deepStrictEqual(turns.map((t) => [t.role, t.id, t.content]), [
      ["user", "m1", "How do I sort a list in Python?"],
      ["assistant", "m2a", "Use sorted(xs)."],
      ["user", "m3", "And in reverse?"]
    ])
    assert.strictEqual(turns[0]!.sessionId, "tree-1")
  })
})

describe("syntax errors", () => {
  // Each text breaks JSON on line 3.
  const broken: ReadonlyArray<[Importer.ConcreteFormat, string]> = [
    ["precis", `${jsonl({ role: "user", content: "a" }, { role: "user", content: "b" })}{"role": "user", "content": }\n`],
    ["claude-code", `${claudeSample.split("\n").slice(0, 2).join("\n")}\n{"type": "user", "message": {"role": "user", "content": "x"}\n`],
    ["oasst", `${jsonl(oasstTree, oasstTree)}{"message_tree_id": "t", "prompt": {"message_id": "m", "text": "x", "role": "prompter"}\n`],
    ["openai", "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"user\", \"content\": \"unterminated}\n]"],
    ["swe-agent", "{\n  \"history\": [\n    {\"role\": \"user\", \"content\": \"x\",}\n  ]\n}"],
    ["openhands", "[\n  {\"id\": 0, \"action\": \"message\", \"args\": {}},\n  {\"id\": 1 \"observation\": \"run\"}\n]"]
  ]
  for (const [format, text] of broken) {
    it(`gives the line of invalid JSON in ${format}`, () => {
      const e = err(text, format, "t")
      assert.strictEqual(e.line, 3, e.message)
      expect(e.message).toMatch(/^t:3: invalid JSON: /)
    })
  }

  it("reports a malformed tree in oasst at its line", () => {
    const e = err(jsonl(oasstTree, { message_tree_id: "t", prompt: { text: "no id", role: "prompter" } }), "oasst", "trees.jsonl")
    assert.strictEqual(e.message, "trees.jsonl:2: expected message nodes with string \"message_id\", \"text\" and \"role\"")
  })
})

describe("byte-order marks", () => {
  it("are ignored in JSON and JSONL files", () => {
    assert.strictEqual(ok(`\uFEFF${JSON.stringify(openAiMessages)}`, "auto").length, 5)
    assert.strictEqual(ok(`\uFEFF${precisSample}`, "auto").length, 3)
  })
})

// ---------------------------------------------------------------------------- detection

describe("detect", () => {
  const cases: ReadonlyArray<[string, string, Importer.ConcreteFormat]> = [
    ["precis", precisSample, "precis"],
    ["openai array", JSON.stringify(openAiMessages, null, 2), "openai"],
    ["openai object", JSON.stringify({ messages: openAiMessages }, null, 2), "openai"],
    ["claude-code (summary first)", claudeSample, "claude-code"],
    ["swe-agent", JSON.stringify(sweAgentTraj, null, 2), "swe-agent"],
    ["swe-agent minified", JSON.stringify(sweAgentTraj), "swe-agent"],
    ["openhands", JSON.stringify(openHandsEvents, null, 2), "openhands"],
    ["oasst", jsonl(oasstTree), "oasst"]
  ]
  for (const [name, text, format] of cases) {
    it(`detects ${name} by content, whatever the file name`, () => {
      assert.deepStrictEqual(Importer.detect(text, "transcript.txt"), Option.some(format))
      assert.deepStrictEqual(ok(text, "auto", "transcript.txt"), ok(text, format))
    })
  }

  it("detects from a truncated sample", () => {
    const big = JSON.stringify([...openHandsEvents, ...Array.from({ length: 2000 }, () => openHandsEvents[6])], null, 2)
    assert.deepStrictEqual(Importer.detect(big.slice(0, 3000)), Option.some("openhands"))
    const traj = JSON.stringify({ ...sweAgentTraj, trajectory: Array.from({ length: 3000 }, () => sweAgentTraj.trajectory[0]) }, null, 2)
    assert.deepStrictEqual(Importer.detect(traj.slice(0, 2000)), Option.some("swe-agent"))
  })

  it("gives up on unknown content", () => {
    assert.isTrue(Option.isNone(Importer.detect("hello world")))
    assert.isTrue(Option.isNone(Importer.detect(jsonl({ foo: 1 }))))
    const e = err("hello", "auto", "notes.txt")
    expect(e.message).toMatch(/^notes\.txt:1: cannot detect the transcript format/)
  })

  it("imports nothing from a blank file, whatever the format", () => {
    assert.deepStrictEqual(ok("\n  \n", "auto"), [])
    for (const format of Importer.formats) {
      assert.deepStrictEqual(Importer.parse("\uFEFF \n", format, "blank"), Either.right({ file: "blank", format, conversations: [], skipped: [], mended: [] }))
    }
  })
})

// ---------------------------------------------------------------------------- files

describe("importFile", () => {
  const withFile = <A, E>(name: string, content: string, f: (file: string) => Effect.Effect<A, E, FileSystem.FileSystem>) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = path.join(dir, name)
      yield* fs.writeFileString(file, content)
      return yield* f(file)
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer))

  it.effect("streams a JSONL file into the same turns as parse", () =>
    withFile("session.jsonl", claudeSample, (file) =>
      Effect.gen(function*() {
        const imported = yield* Importer.importFile(file)
        assert.strictEqual(imported.format, "claude-code")
        assert.deepStrictEqual(Importer.allTurns(imported), ok(claudeSample, "claude-code"))
        const named = yield* Importer.importFile(file, { format: "claude-code" })
        assert.deepStrictEqual(named, imported)
      })))

  it.effect("reads a JSON file whole", () =>
    withFile("run.traj", JSON.stringify(sweAgentTraj, null, 2), (file) =>
      Effect.gen(function*() {
        const turns = Importer.allTurns(yield* Importer.importFile(file, { format: "auto" }))
        assert.strictEqual(turns.length, 4)
      })))

  it.effect("fails with FILE:LINE and no turns on a bad line", () => {
    const text = precisSample + "\n" + "not json\n" + jsonl({ role: "user", content: "after" })
    return withFile("bad.jsonl", text, (file) =>
      Effect.gen(function*() {
        const e = yield* Effect.flip(Importer.importFile(file))
        assert.strictEqual(e._tag, "ImportError")
        assert.strictEqual(e.file, file)
        assert.strictEqual(e.line, 5)
        expect(e.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:5: invalid JSON`))
      }))
  })

  it.effect("reports an unreadable file", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(Importer.importFile("/nonexistent/precis/session.jsonl"))
      assert.strictEqual(e.line, 1)
      expect(e.message).toMatch(/^\/nonexistent\/precis\/session\.jsonl:1: cannot read the file/)
      assert.strictEqual(e.reason, "Unreadable")
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})

// ---------------------------------------------------------------------------- the demo session

describe("examples/coding-session.jsonl", () => {
  it("imports as a multi-hour precis session whose tool results answer earlier calls", () => {
    const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples", "coding-session.jsonl")
    const turns = ok(readFileSync(file, "utf8"), "auto", file)
    assert.isAtLeast(turns.length, 150)
    assert.isAtMost(turns.length, 250)
    const hours = (Date.parse(turns.at(-1)!.timestamp!) - Date.parse(turns[0]!.timestamp!)) / 3_600_000
    assert.isAtLeast(hours, 2.5)
    const calls = new Map<string, string>()
    for (const turn of turns) {
      assert.strictEqual(turn.metadata!.sourceFormat, "precis")
      const toolCalls = turn.metadata!.toolCalls as ReadonlyArray<{ id: string; name: string }> | undefined
      for (const call of toolCalls ?? []) calls.set(call.id, call.name)
      if (turn.role === "tool") assert.strictEqual(calls.get(turn.metadata!.toolCallId as string), turn.metadata!.toolName)
    }
    assert.isAtLeast(calls.size, 60)
  })
})

// ---------------------------------------------------------------------------- real transcripts

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const fixtures = path.resolve(repoRoot, "..", "shared/fixtures/transcripts")

describe.skipIf(!existsSync(fixtures))("real transcripts", () => {
  const expected: ReadonlyArray<[string, Importer.ConcreteFormat, number]> = [
    ["swe-agent-pydicom-1458.traj.json", "swe-agent", 26],
    ["swe-agent-marshmallow-1867-function-calling.traj.json", "swe-agent", 24],
    // 18 events: 8 are state changes or empty observations.
    ["openhands-vue-todo-app.json", "openhands", 10],
    // 100 trees, following the rank-0 reply: 323 messages.
    ["oasst-en-100-trees.jsonl", "oasst", 323]
  ]
  for (const [name, format, count] of expected) {
    it.effect(`imports ${name} as ${format} with ${count} turns`, () =>
      Effect.gen(function*() {
        const file = path.join(fixtures, name)
        const turns = Importer.allTurns(yield* Importer.importFile(file))
        assert.strictEqual(turns.length, count)
        assert.strictEqual(turns[0]!.metadata!.sourceFormat, format)
        assert.strictEqual(new Set(turns.map((t) => t.id)).size, count)
        assert.deepStrictEqual(ok(readFileSync(file, "utf8"), format).map((t) => t.id), turns.map((t) => t.id))
      }).pipe(Effect.provide(NodeFileSystem.layer)))
  }

  it("counts 18 OpenHands events, of which 10 become turns", () => {
    const events = JSON.parse(readFileSync(path.join(fixtures, "openhands-vue-todo-app.json"), "utf8")) as Array<unknown>
    assert.strictEqual(events.length, 18)
  })
})

// ---------------------------------------------------------------------------- incremental parsing

describe("lineParser", () => {
  const sessionFile = path.join(repoRoot, "examples", "coding-session.jsonl")
  it("reads a file pushed in batches as the whole file is read: same turns, ids and lines", () => {
    const text = readFileSync(sessionFile, "utf8")
    const whole = Either.getOrThrow(Importer.parse(text, "precis", sessionFile)).conversations[0]!
    const parser = LineParser.make("precis", sessionFile)!
    const lines = text.split("\n").filter((line, i, all) => i < all.length - 1 || line.length > 0)
    const turns: Array<ConversationTurn.ConversationTurn> = []
    const numbers: Array<number> = []
    for (let i = 0; i < lines.length; i += 7) {
      const batch = Either.getOrThrow(parser.push(lines.slice(i, i + 7)))
      for (const conversation of batch) {
        turns.push(...conversation.turns)
        numbers.push(...conversation.lines)
      }
    }
    expect(turns).toEqual(whole.turns)
    expect(numbers).toEqual(whole.lines)
    expect(parser.lineCount()).toBe(lines.length)
    expect(Either.getOrThrow(parser.push([]))).toEqual([])
  })

  it("names the line of a bad line across batches, and refuses the JSON formats", () => {
    const parser = LineParser.make("precis", "live.jsonl")!
    expect(Either.isRight(parser.push(['{"role":"user","content":"hi"}', ""]))).toBe(true)
    const bad = parser.push(["{not json"])
    assert(Either.isLeft(bad))
    expect(bad.left.message).toMatch(/^live\.jsonl:3: /)
    expect(LineParser.make("openai", "x.json")).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------- the tool metadata of turns

describe("what importers write on a turn", () => {
  const samples: ReadonlyArray<[Importer.ConcreteFormat, string]> = [
    ["precis", precisSample],
    ["openai", JSON.stringify(openAiMessages)],
    ["claude-code", claudeSample],
    ["swe-agent", JSON.stringify(sweAgentTraj)],
    ["openhands", JSON.stringify(openHandsEvents)],
    ["oasst", jsonl(oasstTree)]
  ]
  const isToolMetadata = Schema.is(ToolMetadata.ToolMetadata)
  for (const [format, text] of samples) {
    it(`${format}: its tool keys are ToolMetadata, and each call has its [tool_call] line`, () => {
      for (const turn of ok(text, format)) {
        const written: unknown = Object.fromEntries(
          Object.entries(turn.metadata ?? {}).filter(([key]) => key in ToolMetadata.ToolMetadata.fields)
        )
        if (!isToolMetadata(written)) return assert.fail(JSON.stringify(written))
        assert.deepStrictEqual(ToolMetadata.read(turn.metadata), written)
        const lines = turn.content.split("\n").filter(ToolMetadata.isCallLine)
        // OpenHands writes the action's own detail line (`$ command`) instead.
        const calls = format === "openhands" ? [] : written.toolCalls ?? []
        assert.deepStrictEqual(lines, calls.map((c) => ToolMetadata.callLine(c.name, String(c.arguments))))
      }
    })
  }
})
