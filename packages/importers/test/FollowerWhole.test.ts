/**
 * Following sessions kept whole, on real folders on disk: Gemini CLI's chats
 * (`tmp/<hash>/chats/session-*.json`, rewritten whole at each turn) and
 * opencode's storage (a session's info, message and part files). Each change
 * reads the session again and appends only the turns not yet stored; the
 * last message waits until a look finds the session unchanged.
 */
import { assert, describe, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { following, tempDir } from "./follow.js"

const user = (id: string, content: string) => ({ id, timestamp: "2025-10-01T09:00:00.000Z", type: "user", content })
const gemini = (id: string, content: string, command: string) => ({
  id,
  timestamp: "2025-10-01T09:00:01.000Z",
  type: "gemini",
  content,
  toolCalls: [{
    id: `${id}-call`,
    name: "run_shell_command",
    args: { command },
    status: "success",
    result: [{ functionResponse: { id: `${id}-call`, name: "run_shell_command", response: { output: "ok" } } }]
  }]
})

// Gemini CLI writes the whole conversation again at each change (pretty-printed).
const writeChat = (file: string, messages: ReadonlyArray<unknown>) =>
  fs.writeFileSync(file, JSON.stringify({ sessionId: "a1b2", projectHash: "9f8e", startTime: "2025-10-01T09:00:00.000Z", messages }, null, 2))

const idsOf = (session: string) => Effect.map(Effect.flatMap(TurnStore.TurnStore, (store) => store.turns(session)), (turns) => turns.map((t) => t.id))

describe("following sessions kept whole", () => {
  it.live("a Gemini CLI chat rewritten whole: each turn stored once, the last message once it is settled", () => {
    const dir = tempDir()
    const chats = path.join(dir, "tmp", "9f8e", "chats")
    fs.mkdirSync(chats, { recursive: true })
    const chat = path.join(chats, "session-2025-10-01T09-00-a1b2.json")
    // Beside it, Gemini CLI's other JSON files, which are not sessions.
    fs.writeFileSync(path.join(dir, "tmp", "9f8e", "logs.json"), "[]")
    fs.writeFileSync(path.join(chats, "notes.json"), "{}")
    writeChat(chat, [user("u1", "Make the build pass"), gemini("g1", "Building.", "npm run build")])
    const session = "session-2025-10-01T09-00-a1b2"
    return following(dir, [dir], (follower, events) =>
      Effect.gen(function*() {
        // The user's turn at once; the answer (its call and result) waits: Gemini may still be writing it.
        assert.strictEqual(yield* follower.poll, 1)
        assert.deepStrictEqual(yield* idsOf(session), ["u1"])
        // Unchanged since: settled, stored.
        assert.strictEqual(yield* follower.poll, 2)
        assert.deepStrictEqual(yield* idsOf(session), ["u1", "g1", "g1#1"])
        const reads = (yield* follower.counts).reads
        assert.strictEqual(yield* follower.poll, 0)
        assert.strictEqual((yield* follower.counts).reads, reads)
        // The next turn: the file written again whole; only what is new is added.
        writeChat(chat, [user("u1", "Make the build pass"), gemini("g1", "Building.", "npm run build"), user("u2", "Now test"), gemini("g2", "Testing.", "npm test")])
        assert.strictEqual(yield* follower.poll, 1)
        assert.strictEqual(yield* follower.poll, 2)
        assert.deepStrictEqual(yield* idsOf(session), ["u1", "g1", "g1#1", "u2", "g2", "g2#1"])
        assert.deepStrictEqual(yield* follower.sessions, [session])
        assert.deepStrictEqual(events.filter((e) => e._tag === "FileFailed"), [])
      })).pipe(
        // Another run on the same store adds nothing: the turns are known by their ids.
        Effect.zipRight(following(dir, [dir], (follower) =>
          Effect.gen(function*() {
            assert.strictEqual(yield* follower.poll, 0)
            assert.strictEqual(yield* follower.poll, 0)
            assert.deepStrictEqual(yield* idsOf(session), ["u1", "g1", "g1#1", "u2", "g2", "g2#1"])
          })))
      )
  })

  it.live("settled (a hook at the agent's event): the whole chat is stored in one poll", () => {
    const dir = tempDir()
    const chat = path.join(dir, "session-x.json")
    writeChat(chat, [user("u1", "Make the build pass"), gemini("g1", "Building.", "npm run build")])
    return following(dir, [chat], (follower) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* follower.poll, 3)
        assert.deepStrictEqual(yield* idsOf("session-x"), ["u1", "g1", "g1#1"])
      }), { settled: true })
  })

  it.live("opencode's storage: a session followed through its info file, a new part file seen, its folders of parts never listed", () => {
    const dir = tempDir()
    const storage = path.join(dir, "opencode", "storage")
    const put = (file: string, value: unknown) => {
      fs.mkdirSync(path.dirname(path.join(storage, file)), { recursive: true })
      fs.writeFileSync(path.join(storage, file), JSON.stringify(value, null, 2))
    }
    put("session/prj1/ses_9.json", { id: "ses_9", projectID: "prj1", directory: "/work/app", title: "t", time: { created: 1736000000000 } })
    put("message/ses_9/msg_a1.json", { id: "msg_a1", sessionID: "ses_9", role: "user", time: { created: 1736000000000 } })
    put("part/msg_a1/prt_1.json", { id: "prt_1", sessionID: "ses_9", messageID: "msg_a1", type: "text", text: "Show the config" })
    put("message/ses_9/msg_a2.json", { id: "msg_a2", sessionID: "ses_9", role: "assistant", time: { created: 1736000001000 } })
    put("part/msg_a2/prt_2.json", { id: "prt_2", sessionID: "ses_9", messageID: "msg_a2", type: "text", text: "Reading it." })
    // A stray JSONL under the parts is not followed: their folders are read through their session only.
    put("part/msg_a2/stray.jsonl", { role: "user", content: "not a session" })
    return following(dir, [dir], (follower, events) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* follower.poll, 1)
        assert.strictEqual(yield* follower.poll, 1)
        assert.deepStrictEqual(yield* idsOf("ses_9"), ["msg_a1", "msg_a2"])
        // The tool part finishes: a new file among the parts, the session file untouched.
        put("part/msg_a2/prt_3.json", {
          id: "prt_3",
          sessionID: "ses_9",
          messageID: "msg_a2",
          type: "tool",
          tool: "bash",
          callID: "call_1",
          state: { status: "completed", input: { command: "cat opencode.json" }, output: "{}" }
        })
        put("message/ses_9/msg_a3.json", { id: "msg_a3", sessionID: "ses_9", role: "user", time: { created: 1736000002000 } })
        put("part/msg_a3/prt_4.json", { id: "prt_4", sessionID: "ses_9", messageID: "msg_a3", type: "text", text: "Thanks" })
        // Its folder of messages is watched: the change is found (notified, or by the poll that comes round to it).
        // msg_a2 was stored before its call was made: it stays as it was; the result and the next request are added.
        let added = 0
        for (let i = 0; i < 40 && added < 2; i++) added += yield* follower.poll
        assert.deepStrictEqual(yield* idsOf("ses_9"), ["msg_a1", "msg_a2", "prt_3", "msg_a3"])
        assert.deepStrictEqual(yield* follower.sessions, ["ses_9"])
        assert.deepStrictEqual(events.filter((e) => e._tag === "FileFailed"), [])
      }))
  })
})
