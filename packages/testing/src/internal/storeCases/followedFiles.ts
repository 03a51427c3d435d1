/**
 * The store suite's cases of the followed files: rows round-trip, a `put`
 * replaces the row, and a `put` in a transaction is committed with the turns
 * appended there, or not at all.
 *
 * @internal
 */
import { assert } from "@effect/vitest"
import { FollowedFiles, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Fixtures from "../../Fixtures.js"
import type { Case } from "./case.js"

const followed = new FollowedFiles.FollowedFile({
  path: "/suite/a.jsonl",
  sessionId: "ff-a",
  format: "claude-code",
  byteOffset: 120,
  lineCount: 3,
  size: 130,
  fileId: "2049:77",
  checksum: "sampled:0123",
  parserState: "{\"format\":\"claude-code\"}"
})

/** @internal */
export const cases: ReadonlyArray<Case> = [
  {
    name: "followed files: a row round-trips, a put replaces it, the list is by path",
    run: () =>
      Effect.gen(function*() {
        const files = yield* FollowedFiles.FollowedFiles
        yield* files.put(followed)
        const grown = new FollowedFiles.FollowedFile({ ...followed, byteOffset: 240, lineCount: 6, size: 240 })
        yield* files.put(grown)
        const bare = new FollowedFiles.FollowedFile({
          path: "/suite/0.jsonl",
          sessionId: "ff-0",
          format: "precis",
          byteOffset: 0,
          lineCount: 0,
          size: 0,
          checksum: ""
        })
        yield* files.put(bare)
        assert.deepStrictEqual(yield* files.get(followed.path), Option.some(grown))
        assert.deepStrictEqual(yield* files.get("/suite/none.jsonl"), Option.none())
        const listed = (yield* files.list).filter((file) => file.path.startsWith("/suite/"))
        assert.deepStrictEqual(listed, [bare, grown])
      })
  },
  {
    name: "followed files: a put is committed with the turns of its transaction, or neither is",
    run: () =>
      Effect.gen(function*() {
        const turns = yield* TurnStore.TurnStore
        const files = yield* FollowedFiles.FollowedFiles
        const read = (session: string, fail: boolean) =>
          turns.withTransaction(Effect.gen(function*() {
            yield* turns.appendTurns(session, Fixtures.conversation(3))
            yield* files.put(new FollowedFiles.FollowedFile({ ...followed, path: `/suite/${session}.jsonl`, sessionId: session }))
            if (fail) return yield* Effect.fail("interrupted" as const)
          }))
        assert.strictEqual(yield* Effect.flip(read("ff-lost", true)), "interrupted")
        assert.deepStrictEqual(yield* turns.turns("ff-lost"), [])
        assert.deepStrictEqual(yield* files.get("/suite/ff-lost.jsonl"), Option.none())
        yield* read("ff-kept", false)
        assert.strictEqual((yield* turns.turns("ff-kept")).length, 3)
        assert.isTrue(Option.isSome(yield* files.get("/suite/ff-kept.jsonl")))
      })
  }
]
