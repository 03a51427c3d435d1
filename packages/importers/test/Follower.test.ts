/**
 * The follower (`precis watch` and the Claude Code hook use it), in-process, poll by poll, against trees
 * made hostile: links that loop, a file under many paths, FIFOs, a socket,
 * a device, bad files among good ones, a replaced file sharing its first
 * kilobyte, a file truncated to nothing, and many idle files (what they cost
 * is counted in looks and reads, not in time).
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import * as Follower from "../src/Follower.js"
import * as Changes from "../src/internal/follow/changes.js"
import { caseFolders, following, polls, sessionJsonl } from "./follow.js"

const fresh = caseFolders()

const imported = (events: ReadonlyArray<Follower.Event>) =>
  events.flatMap((e) => (e._tag === "Imported" ? [`${path.basename(e.file)}:${e.added}`] : []))

const tagged = (events: ReadonlyArray<Follower.Event>, tag: Follower.Event["_tag"]) => events.filter((e) => e._tag === tag)

describe("the follower's tree", () => {
  it.live("links that loop end: each file imported once, under one path", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const tree = path.join(dir, "t")
      fs.mkdirSync(path.join(tree, "sub", "deeper"), { recursive: true })
      fs.writeFileSync(path.join(tree, "a.jsonl"), sessionJsonl(3, "a"))
      fs.writeFileSync(path.join(tree, "sub", "deeper", "b.jsonl"), sessionJsonl(2, "b"))
      // Loops up and sideways, a link to itself, a dangling link, a hard link and a link to the same file.
      fs.symlinkSync("..", path.join(tree, "up"))
      fs.symlinkSync("..", path.join(tree, "sub", "up"))
      fs.symlinkSync("../..", path.join(tree, "sub", "deeper", "top"))
      fs.symlinkSync(".", path.join(tree, "sub", "self"))
      fs.symlinkSync("nowhere", path.join(tree, "gone.jsonl"))
      fs.linkSync(path.join(tree, "a.jsonl"), path.join(tree, "sub", "hard.jsonl"))
      fs.symlinkSync(path.join(tree, "a.jsonl"), path.join(tree, "sub", "soft.jsonl"))
      yield* following(dir, [tree, path.join(tree, "sub")], (follower, events) =>
        Effect.gen(function*() {
          assert.strictEqual(yield* polls(follower, 3), 5)
          assert.deepStrictEqual(imported(events).sort(), ["a.jsonl:3", "b.jsonl:2"])
          assert.deepStrictEqual(tagged(events, "FileFailed"), [])
        }))
    }))

  it.live("one file reachable under forty paths is one file", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const tree = path.join(dir, "t")
      fs.mkdirSync(tree)
      fs.writeFileSync(path.join(tree, "one.jsonl"), sessionJsonl(4, "o"))
      for (let i = 0; i < 40; i++) fs.symlinkSync(".", path.join(tree, `loop${i}`))
      yield* following(dir, [tree], (follower, events) =>
        Effect.gen(function*() {
          assert.strictEqual(yield* polls(follower, 2), 4)
          assert.deepStrictEqual(events.map((e) => e._tag === "Imported" ? e.file : e._tag), [path.join(tree, "one.jsonl")])
        }))
    }))

  it.live("FIFOs, a socket and a device named *.jsonl are never opened; the files beside them are read", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const tree = path.join(dir, "t")
      fs.mkdirSync(tree)
      execFileSync("mkfifo", [path.join(tree, "a-pipe.jsonl"), path.join(dir, "outside.fifo")])
      fs.symlinkSync(path.join(dir, "outside.fifo"), path.join(tree, "b-linked-pipe.jsonl"))
      fs.symlinkSync("/dev/zero", path.join(tree, "c-zero.jsonl"))
      const socket = net.createServer().listen(path.join(tree, "d-socket.jsonl"))
      yield* Effect.addFinalizer(() => Effect.sync(() => socket.close()))
      fs.writeFileSync(path.join(tree, "e-real.jsonl"), sessionJsonl(2, "r"))
      yield* following(dir, [tree], (follower, events) =>
        Effect.gen(function*() {
          assert.strictEqual(yield* polls(follower, 3), 2)
          assert.deepStrictEqual(imported(events), ["e-real.jsonl:2"])
          // A regular file swapped for a FIFO after it was found: refused on its open descriptor.
          fs.rmSync(path.join(tree, "e-real.jsonl"))
          execFileSync("mkfifo", [path.join(tree, "e-real.jsonl")])
          yield* polls(follower, 3)
          assert.deepStrictEqual(imported(events), ["e-real.jsonl:2"])
        }))
    }).pipe(Effect.scoped))
})

describe("one bad file", () => {
  it.live("whatever fails on a file is reported once, and the other files go on, now and as they grow", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const tree = path.join(dir, "t")
      fs.mkdirSync(tree)
      fs.writeFileSync(path.join(tree, "bad-line.jsonl"), `${sessionJsonl(2, "x")}{"role": "user"}\n`)
      fs.writeFileSync(path.join(tree, "unknown.jsonl"), "{\"what\": 1}\n{\"what\": 2}\n")
      fs.writeFileSync(path.join(tree, "good.jsonl"), sessionJsonl(3, "g"))
      // Two files of one session that disagree on a turn: the second one read is refused.
      fs.mkdirSync(path.join(tree, "other"))
      fs.writeFileSync(path.join(tree, "other", "good.jsonl"), sessionJsonl(3, "g").replace("Step 1:", "Changed 1:"))
      yield* following(dir, [tree], (follower, events) =>
        Effect.gen(function*() {
          yield* polls(follower, 3)
          const failed = tagged(events, "FileFailed").map((e) => e._tag === "FileFailed" ? path.relative(tree, e.file) : "")
          assert.deepStrictEqual(failed.sort(), ["other/good.jsonl", "unknown.jsonl"])
          // A bad line is not a bad file: reported, left out, the lines before it kept.
          assert.deepStrictEqual(tagged(events, "LineSkipped"), [
            Follower.Event.LineSkipped({
              file: path.join(tree, "bad-line.jsonl"),
              line: 3,
              reason: "expected a JSON object with string \"role\" and \"content\"",
              text: "{\"role\": \"user\"}"
            })
          ])
          assert.deepStrictEqual(imported(events), ["bad-line.jsonl:2", "good.jsonl:3"])
          // Left alone while they stay as they are; the good file's new lines still come in.
          fs.appendFileSync(path.join(tree, "good.jsonl"), sessionJsonl(5, "g").split("\n").slice(3).join("\n"))
          yield* polls(follower, 70)
          assert.strictEqual(tagged(events, "FileFailed").length, 2)
          assert.deepStrictEqual(imported(events), ["bad-line.jsonl:2", "good.jsonl:3", "good.jsonl:2"])
        }))
    }))
})

describe("a file's identity", () => {
  it.live("a replacement sharing the first kilobyte is a new file: reported, read from its start, its lines kept", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "s.jsonl")
      const head = JSON.stringify({ id: "h0", role: "user", content: `same first kilobyte ${"x".repeat(1200)}` })
      fs.writeFileSync(file, `${head}\n${sessionJsonl(2, "old")}`)
      yield* following(dir, [file], (follower, events) =>
        Effect.gen(function*() {
          assert.strictEqual(yield* polls(follower, 2), 3)
          // Written beside it, then renamed over it (as editors and log rotation do): longer, same head.
          const next = path.join(dir, "s.jsonl.new")
          fs.writeFileSync(next, `${head}\n${sessionJsonl(4, "new")}`)
          fs.renameSync(next, file)
          assert.strictEqual(yield* polls(follower, 3), 4)
          assert.deepStrictEqual(tagged(events, "Restarted"), [Follower.Event.Restarted({ file, reason: "replaced" })])
          const turns = yield* Effect.flatMap(TurnStore.TurnStore, (store) => store.turns("s"))
          expect(turns.map((t) => t.id)).toEqual(["h0", "old0", "old1", "new0", "new1", "new2", "new3"])
        }))
      // Replaced while nobody watched: the next run knows it by its inode.
      const next = path.join(dir, "s.jsonl.next")
      fs.writeFileSync(next, `${head}\n${sessionJsonl(6, "new")}`)
      fs.renameSync(next, file)
      yield* following(dir, [file], (follower, events) =>
        Effect.gen(function*() {
          assert.strictEqual(yield* polls(follower, 2), 2)
          assert.deepStrictEqual(tagged(events, "Restarted"), [Follower.Event.Restarted({ file, reason: "replaced" })])
        }))
    }))

  it.live("a file truncated to nothing is reported once, in this run and the next, then read from its start", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const file = path.join(dir, "t.jsonl")
      fs.writeFileSync(file, sessionJsonl(3, "t"))
      yield* following(dir, [file], (follower, events) =>
        Effect.gen(function*() {
          yield* polls(follower, 2)
          fs.truncateSync(file, 0)
          yield* polls(follower, 40)
          assert.deepStrictEqual(tagged(events, "Restarted"), [Follower.Event.Restarted({ file, reason: "truncated" })])
        }))
      yield* following(dir, [file], (follower, events) =>
        Effect.gen(function*() {
          yield* polls(follower, 5)
          assert.deepStrictEqual(events, [])
          fs.writeFileSync(file, sessionJsonl(2, "n"))
          assert.strictEqual(yield* polls(follower, 40), 2)
          assert.deepStrictEqual(tagged(events, "Restarted"), [])
        }))
    }))
})

describe("idle files", () => {
  it.live("are looked at less and less often, and never read while they stay the same", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const tree = path.join(dir, "t")
      for (let d = 0; d < 10; d++) {
        fs.mkdirSync(path.join(tree, `d${d}`), { recursive: true })
        for (let f = 0; f < 50; f++) fs.writeFileSync(path.join(tree, `d${d}`, `s${d}-${f}.jsonl`), sessionJsonl(1, `x${d}-${f}-`))
      }
      yield* following(dir, [tree], (follower) =>
        Effect.gen(function*() {
          assert.strictEqual(yield* follower.poll, 500)
          const start = yield* follower.counts
          yield* polls(follower, 256)
          const idle = yield* follower.counts
          assert.strictEqual(idle.reads, start.reads)
          // Polled every time, 500 files would be looked at 128,000 times in 256 polls; backing off to
          // one look in 32 (8 without change notifications) polls, at most a fraction of that.
          assert.isBelow(idle.looks - start.looks, 500 * (256 / 8 + 8))
          // A change is still found, by a notification or by the poll that comes round to it.
          fs.appendFileSync(path.join(tree, "d3", "s3-7.jsonl"), sessionJsonl(2, "x3-7-").split("\n")[1] + "\n")
          let added = 0
          for (let i = 0; i < 40 && added === 0; i++) added = yield* follower.poll
          assert.strictEqual(added, 1)
        }))
    }))

  it.live("a directory's change is notified (fs.watch), so its files are looked at on the next poll", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const changes = yield* Changes.make
      yield* changes.watch([dir])
      assert.isTrue(yield* changes.complete)
      fs.writeFileSync(path.join(dir, "new.jsonl"), "{}\n")
      let taken: ReadonlySet<string> = new Set()
      for (let i = 0; i < 200 && taken.size === 0; i++) {
        yield* Effect.sleep("25 millis")
        taken = yield* changes.take
      }
      assert.deepStrictEqual([...taken], [dir])
      assert.strictEqual((yield* changes.take).size, 0)
    }).pipe(Effect.scoped))
})
