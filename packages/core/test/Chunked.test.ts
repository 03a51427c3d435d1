/**
 * Work over many items yields between chunks: a fiber interrupted while it
 * folds stops after the chunk at hand (not after the whole loop), and the
 * result of a loop run to its end is the plain loop's. `SessionState.foldEffect`
 * is the fold of a long session done so.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Chunked from "../src/Chunked.js"
import * as ConversationTurn from "../src/ConversationTurn.js"
import * as SessionState from "../src/SessionState.js"

const N = 100_000

/** Forks `work`, lets it run until its first yield, interrupts it: how many items it had done. */
const interruptedAfterFirstYield = (work: (seen: { count: number }) => Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    const seen = { count: 0 }
    const fiber = yield* Effect.fork(work(seen))
    // The fiber runs until it yields; the plain loop would not yield before its end.
    while (seen.count === 0) yield* Effect.yieldNow()
    const exit = yield* Fiber.interrupt(fiber)
    return { exit, count: seen.count }
  })

describe("Chunked", () => {
  it.effect("reduce and map give the plain loop's result, index included", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 5000 }, (_, i) => i)
      assert.strictEqual(yield* Chunked.reduce(items, 0, (sum, n) => sum + n), items.reduce((a, b) => a + b, 0))
      assert.deepStrictEqual(yield* Chunked.map(items, (n, i) => n * 2 + i, 7), items.map((n, i) => n * 2 + i))
      assert.deepStrictEqual(yield* Chunked.map([], (n: number) => n), [])
      // Any iterable, read once.
      assert.strictEqual(yield* Chunked.reduce(new Set([1, 2, 3]).values(), 0, (sum, n) => sum + n), 6)
    }))

  it.effect("an interruption lands after the chunk at hand, not after the loop", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: N }, (_, i) => i)
      const { count, exit } = yield* interruptedAfterFirstYield((seen) =>
        Chunked.reduce(items, 0, (sum, n) => {
          seen.count++
          return sum + n
        })
      )
      assert.isTrue(Exit.isInterrupted(exit))
      assert.isAtLeast(count, Chunked.size)
      assert.isBelow(count, N)
      assert.strictEqual(count % Chunked.size, 0)
    }))

  it.effect("SessionState.foldEffect folds as fold does, and stops at an interruption", () =>
    Effect.gen(function*() {
      const turns = Array.from({ length: 3 * Chunked.size + 5 }, (_, i) =>
        ConversationTurn.make({
          role: i % 2 === 0 ? "user" : "assistant",
          content: i % 2 === 0 ? `Fix bug ${i} in src/file${i}.ts` : `$ pnpm test\nrun ${i}`,
          id: `t${i}`
        }))
      assert.deepStrictEqual(yield* SessionState.foldEffect(turns), SessionState.fold(turns))
      const many = Array.from({ length: 20 }, () => turns).flat()
      const { count, exit } = yield* interruptedAfterFirstYield((seen) =>
        SessionState.foldEffect({
          *[Symbol.iterator]() {
            for (const turn of many) {
              seen.count++
              yield turn
            }
          }
        })
      )
      assert.isTrue(Exit.isInterrupted(exit))
      assert.isBelow(count, many.length)
    }))
})
