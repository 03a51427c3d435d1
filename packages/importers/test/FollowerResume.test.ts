/**
 * The follower across processes and hostile files: a file already followed is
 * read from its recorded offset by a new follower (its parser resumed from the
 * state recorded, never the lines before parsed again), in chunks however
 * small (a line, a UTF-8 sequence cut between two reads), a file rewritten in
 * place is read again with its turns kept once, and a bad line is left out
 * with the lines after it read.
 */
import { assert, describe, it } from "@effect/vitest"
import { FollowedFiles, TurnStore } from "@precis/store"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Importer from "../src/Importer.js"
import * as Follower from "../src/Follower.js"
import { at, caseFolders, followerLayer, following, polls } from "./follow.js"

const fresh = caseFolders()

/**
 * A Claude Code session of `rounds` rounds: an assistant line calling a tool (ids reused as
 * `call_0` by every response), its result on a user line, a user line without uuid (a derived id),
 * and text with multi-byte characters.
 */
const claudeLines = (rounds: number, from = 0): Array<string> =>
  Array.from({ length: rounds }, (_, k) => {
    const i = from + k
    return [
      JSON.stringify({
        type: "assistant",
        uuid: `a${i}`,
        timestamp: at(3 * i),
        message: {
          role: "assistant",
          content: [{ type: "text", text: `Round ${i}: café ☕ 日本 🙂` }, { type: "tool_use", id: "call_0", name: `Tool${i}`, input: { n: i } }]
        }
      }),
      JSON.stringify({
        type: "user",
        uuid: `r${i}`,
        timestamp: at(3 * i + 1),
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "call_0", content: `out ${i} é` }] }
      }),
      JSON.stringify({ type: "user", timestamp: at(3 * i + 2), message: { role: "user", content: `next ${i}, naïve` } })
    ]
  }).flat()

const text = (lines: ReadonlyArray<string>) => lines.map((line) => `${line}\n`).join("")

/** The turns a whole-file import reads, as the store keeps them (id, role, content, tool name). */
const expected = (content: string) => {
  const parsed = Importer.parse(content, "claude-code", "x.jsonl")
  assert.isTrue(Either.isRight(parsed))
  return Either.getOrThrow(parsed).conversations.flatMap((c) => c.turns).map((t) => [t.id, t.role, t.content, t.metadata?.toolName])
}

const stored = (session: string) =>
  Effect.map(
    Effect.flatMap(TurnStore.TurnStore, (store) => store.turns(session)),
    (turns) => turns.map((t) => [t.id, t.role, t.content, t.metadata?.toolName])
  )

describe("a file already followed", () => {
  it.live("a new follower reads only the bytes added since, its parser resumed: the turns of a whole-file import", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "s.jsonl")
      const first = text(claudeLines(40))
      // Cut after a tool call: its result (and its name) comes in the part read by the next follower.
      const cut = first + `${claudeLines(41).slice(-3)[0]}\n`
      fs.writeFileSync(file, cut)
      yield* following(dir, [file], (follower) => polls(follower, 1), { session: "s" })
      const added = `${claudeLines(41).slice(-2).join("\n")}\n${text(claudeLines(3, 41))}`
      fs.appendFileSync(file, added)
      const counts = yield* following(dir, [file], (follower) => Effect.zipRight(polls(follower, 1), follower.counts), { session: "s" })
      assert.strictEqual(counts.bytes, Buffer.byteLength(added))
      assert.deepStrictEqual(yield* following(dir, [], () => stored("s")), expected(cut + added))
      const row = yield* following(dir, [], () => Effect.flatMap(FollowedFiles.FollowedFiles, (files) => files.get(file)))
      assert.strictEqual(Option.getOrThrow(row).byteOffset, Buffer.byteLength(cut + added))
    }))

  const fixture = path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    "../../../../shared/fixtures/transcripts/claude-code-spotter-258c7280.jsonl"
  )
  it.live.skipIf(!fs.existsSync(fixture))("a real session followed in five processes gives the turns of its import", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "real.jsonl")
      const all = fs.readFileSync(fixture, "utf8")
      const lines = all.split("\n").filter((line) => line.length > 0)
      fs.writeFileSync(file, "")
      for (let part = 1; part <= 5; part++) {
        fs.appendFileSync(file, text(lines.slice(Math.floor(((part - 1) * lines.length) / 5), Math.floor((part * lines.length) / 5))))
        yield* following(dir, [file], (follower) => polls(follower, 1), { session: "real", chunkSize: 64 * 1024 })
      }
      assert.deepStrictEqual(yield* following(dir, [], () => stored("real")), expected(text(lines)))
    }), { timeout: 60_000 })
})

describe("follow", () => {
  it.live("polls until interrupted: the batches of the lines appended meanwhile come as they are written", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "f.jsonl")
      fs.writeFileSync(file, text(claudeLines(1)))
      let next = 1
      const batches = yield* Effect.flatMap(Follower.Follower, (follower) =>
        follower.follow({ paths: [file], session: "f", interval: "20 millis" }).pipe(
          Stream.filter((event) => event._tag === "Imported"),
          Stream.tap(() => Effect.sync(() => fs.appendFileSync(file, text(claudeLines(1, next++))))),
          Stream.take(3),
          Stream.runCollect
        )).pipe(Effect.provide(followerLayer(path.join(dir, "store.db"))))
      assert.deepStrictEqual(Chunk.toReadonlyArray(batches).map((e) => e._tag === "Imported" && e.added), [3, 3, 3])
    }))
})

describe("reading in chunks", () => {
  it.live("chunks of 7 bytes (lines and UTF-8 sequences cut between reads) give the turns of a whole-file import", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "c.jsonl")
      const content = text(claudeLines(6))
      fs.writeFileSync(file, content)
      const added = yield* following(dir, [file], (follower) => polls(follower, 2), { session: "c", chunkSize: 7 })
      assert.strictEqual(added, 18)
      assert.deepStrictEqual(yield* following(dir, [], () => stored("c")), expected(content))
    }))
})

describe("a file rewritten in place", () => {
  it.live("same inode, same head, a middle line gone and lines added: read again, each turn stored once", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "w.jsonl")
      const lines = claudeLines(10)
      fs.writeFileSync(file, text(lines))
      const inode = fs.statSync(file).ino
      yield* following(dir, [file], (follower) => polls(follower, 1), { session: "w" })
      // What a writeFile of the whole transcript does: the same file, a middle line gone, two rounds more.
      const rewritten = [...lines.slice(0, 14), ...lines.slice(15), ...claudeLines(2, 10)]
      fs.writeFileSync(file, text(rewritten))
      assert.strictEqual(fs.statSync(file).ino, inode)
      const events = yield* following(dir, [file], (_, events) => Effect.as(polls(_, 1), events), { session: "w" })
      assert.deepStrictEqual(events.map((e) => e._tag), ["Restarted", "Imported"])
      const turns = yield* following(dir, [], () => stored("w"))
      // Each turn once: the turns of the lines with a uuid, and every turn of the file as it is now.
      const ids = turns.map((t) => t[0])
      assert.strictEqual(ids.length, new Set(ids).size)
      assert.deepStrictEqual(ids.filter((id) => /^[ar]\d+$/.test(String(id))).length, 24)
      const now = expected(text(rewritten))
      assert.deepStrictEqual(turns.slice(-6), now.slice(-6))
      for (const turn of now) assert.isTrue(ids.includes(turn[0]), String(turn[0]))
    }))
})

describe("a bad line", () => {
  it.live("is reported and left out; the lines after it are read, now and as the file grows", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "b.jsonl")
      const lines = claudeLines(4)
      fs.writeFileSync(file, text([...lines.slice(0, 5), "{\"type\": \"user\", \"message\": ", ...lines.slice(5)]))
      const events = yield* following(dir, [file], (follower, events) => Effect.as(polls(follower, 1), events), { session: "b" })
      assert.deepStrictEqual(events.filter((e) => e._tag === "LineSkipped").map((e) => e._tag === "LineSkipped" && e.line), [6])
      assert.deepStrictEqual(events.filter((e) => e._tag === "FileFailed"), [])
      fs.appendFileSync(file, text(claudeLines(1, 4)))
      yield* following(dir, [file], (follower) => polls(follower, 1), { session: "b" })
      assert.deepStrictEqual(yield* following(dir, [], () => stored("b")), expected(text([...lines, ...claudeLines(1, 4)])))
    }))
})

describe("another program's log, read as import reads it", () => {
  it.live("a bad line is skipped once with its text, a NUL shown as ␀; a new follower goes on from the lenient parser's state", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "n.jsonl")
      const bad = "{\"type\": \"assistant\", \"message\": "
      const nul = JSON.stringify({ type: "user", uuid: "nul", timestamp: at(90), message: { role: "user", content: "bin\u0000ary" } })
      const first = [...claudeLines(2), bad, nul, ...claudeLines(1, 2)]
      fs.writeFileSync(file, text(first))
      const [events, counts] = yield* following(dir, [file], (follower, events) =>
        Effect.zip(Effect.as(polls(follower, 1), events), follower.counts), { session: "n" })
      // One report per bad line (the lenient parser's, not a failed push besides), with the line's text to keep.
      const skipped = events.flatMap((e) => (e._tag === "LineSkipped" ? [e] : []))
      assert.deepStrictEqual(skipped.map((e) => [e.file, e.line, e.text]), [[file, 7, bad]])
      assert.match(skipped[0]!.reason, /^invalid JSON/)
      assert.deepStrictEqual(events.filter((e) => e._tag === "LineMended"), [
        Follower.Event.LineMended({ file, line: 8, reason: "NUL (U+0000) in the content shown as ␀" })
      ])
      assert.strictEqual(counts.skipped, 1)
      const stored1 = yield* following(dir, [], () => stored("n"))
      assert.deepStrictEqual(stored1, expected(text(first)))
      assert.isTrue(stored1.some((t) => t[2] === "bin␀ary"))
      // The file grows by another bad line: a new follower reports only it (line 7 is not read again).
      const second = [bad, ...claudeLines(1, 3)]
      fs.appendFileSync(file, text(second))
      const later = yield* following(dir, [file], (follower, events) => Effect.as(polls(follower, 1), events), { session: "n" })
      assert.deepStrictEqual(later.flatMap((e) => (e._tag === "LineSkipped" ? [e.line] : [])), [first.length + 1])
      assert.deepStrictEqual(later.map((e) => e._tag), ["LineSkipped", "Imported"])
      assert.deepStrictEqual(yield* following(dir, [], () => stored("n")), expected(text([...first, ...second])))
    }))

  it.live("in chunks of 7 bytes (the bad line and the NUL cut between reads): each said once, the turns of a whole-file import", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "k.jsonl")
      const nul = JSON.stringify({ type: "user", uuid: "nul", timestamp: at(90), message: { role: "user", content: "é\u0000☕" } })
      const content = text([...claudeLines(2), "{\"type\": \"user\", \"message\": 1, ☕", nul, ...claudeLines(2, 2)])
      fs.writeFileSync(file, content)
      const events = yield* following(dir, [file], (follower, events) => Effect.as(polls(follower, 2), events), { session: "k", chunkSize: 7 })
      assert.deepStrictEqual(events.flatMap((e) => (e._tag === "LineSkipped" ? [e.line] : [])), [7])
      assert.deepStrictEqual(events.flatMap((e) => (e._tag === "LineMended" ? [e.line] : [])), [8])
      assert.deepStrictEqual(yield* following(dir, [], () => stored("k")), expected(content))
    }))

  it.live("a log whose reader saves no state (Codex) is parsed again up to its offset by a new follower: its bad line not said again", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "rollout.jsonl")
      const item = (i: number) =>
        JSON.stringify({ timestamp: at(i), type: "response_item", payload: { type: "message", role: i % 2 === 0 ? "user" : "assistant", content: [{ type: i % 2 === 0 ? "input_text" : "output_text", text: `step ${i}` }] } })
      const meta = JSON.stringify({ timestamp: at(0), type: "session_meta", payload: { id: "s1", cwd: "/repo", cli_version: "0.40.0" } })
      const first = [meta, item(1), item(2), "{\"timestamp\": ", item(3)]
      fs.writeFileSync(file, text(first))
      const before = yield* following(dir, [file], (follower, events) => Effect.as(polls(follower, 1), events), { session: "x" })
      assert.deepStrictEqual(before.flatMap((e) => (e._tag === "LineSkipped" ? [e.line] : [])), [4])
      fs.appendFileSync(file, text([item(4)]))
      const after = yield* following(dir, [file], (follower, events) => Effect.as(polls(follower, 1), events), { session: "x" })
      assert.deepStrictEqual(after.map((e) => e._tag), ["Imported"])
      const turns = yield* following(dir, [], () => stored("x"))
      assert.deepStrictEqual(turns.map((t) => t[2]), ["step 1", "step 2", "step 3", "step 4"])
    }))
})
