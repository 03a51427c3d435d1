/**
 * Work over many items (the turns of a long session, the rows of a big read)
 * in chunks, yielding to the other fibers between them: the loop stays as
 * fast, and an interruption (Ctrl-C, a deadline) lands after the chunk at
 * hand instead of after the whole loop.
 *
 * @example
 * ```ts
 * import { Chunked } from "@precis/core"
 * const total = Chunked.reduce([1, 2, 3], 0, (sum, n) => sum + n) // Effect<number>
 * ```
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/**
 * The items done between two yields: enough that yielding costs nothing
 * measurable, few enough that a chunk takes a few milliseconds.
 *
 * @since 0.1.0
 */
export const size = 2048

/**
 * `f` folded over `items` from `initial`, a yield after every {@link size} items.
 *
 * @since 0.1.0
 */
export const reduce = <A, S>(
  items: Iterable<A>,
  initial: S,
  f: (state: S, item: A, index: number) => S,
  chunk: number = size
): Effect.Effect<S> =>
  Effect.suspend(() => {
    const iterator = items[Symbol.iterator]()
    let state = initial
    let index = 0
    let done = false
    const step = Effect.sync(() => {
      for (let n = 0; n < chunk; n++) {
        const next = iterator.next()
        if (next.done === true) {
          done = true
          return
        }
        state = f(state, next.value, index++)
      }
    })
    return Effect.zipRight(
      Effect.whileLoop({ while: () => !done, body: () => Effect.zipLeft(step, Effect.yieldNow()), step: () => {} }),
      Effect.sync(() => state)
    )
  })

/**
 * `f` over `items`, in order, a yield after every {@link size} items.
 *
 * @since 0.1.0
 */
export const map = <A, B>(items: Iterable<A>, f: (item: A, index: number) => B, chunk: number = size): Effect.Effect<Array<B>> =>
  reduce(items, [] as Array<B>, (out, item, index) => {
    out.push(f(item, index))
    return out
  }, chunk)
