import { assert, describe, expect, it } from "@effect/vitest"
import { Chunk, Data, Either, Exit, Option, Schema } from "effect"

/**
 * The assertion forms the tests use must fail on unequal Effect data. chai's
 * deep equality alone passes `Option.none()` against `Option.some(3)`;
 * `vitest.setup.ts` (every project's `setupFiles`) closes that hole.
 */
class Point extends Schema.Class<Point>("Point")({ x: Schema.Number }) {}
class Tagged extends Data.TaggedClass("Tagged")<{ readonly n: number }> {}

const unequal: ReadonlyArray<readonly [string, unknown, unknown]> = [
  ["none / some", Option.none(), Option.some(3)],
  ["some / none", Option.some(3), Option.none()],
  ["some(undefined) / none", Option.some(undefined), Option.none()],
  ["some 3 / some 4", Option.some(3), Option.some(4)],
  ["nested in a record", { a: Option.none() }, { a: Option.some(3) }],
  ["nested in an array", [Option.none()], [Option.some(3)]],
  ["Option / Either", Option.none(), Either.right(3)],
  ["right / left", Either.right(1), Either.left(1)],
  ["succeed / fail", Exit.succeed(1), Exit.fail(1)],
  ["void / succeed", Exit.void, Exit.succeed(1)],
  ["Chunk", Chunk.empty(), Chunk.make(1)],
  ["Data.struct", Data.struct({ n: 1 }), Data.struct({ n: 2 })],
  ["TaggedClass", new Tagged({ n: 1 }), new Tagged({ n: 2 })],
  ["Schema class", new Point({ x: 1 }), new Point({ x: 2 })]
]

const forms: ReadonlyArray<readonly [string, (actual: unknown, expected: unknown) => void]> = [
  ["assert.deepStrictEqual", (actual, expected) => assert.deepStrictEqual(actual, expected)],
  ["assert.deepEqual", (actual, expected) => assert.deepEqual(actual, expected)],
  ["expect().toEqual", (actual, expected) => expect(actual).toEqual(expected)],
  ["expect().toStrictEqual", (actual, expected) => expect(actual).toStrictEqual(expected)]
]

describe("deep equality on Effect data", () => {
  for (const [form, assertion] of forms) {
    it(`${form} fails on unequal values`, () => {
      for (const [name, actual, expected] of unequal) {
        expect(() => assertion(actual, expected), name).toThrow()
      }
    })

    it(`${form} passes on equal values`, () => {
      assertion(Option.none(), Option.none())
      assertion(Option.some({ a: [1] }), Option.some({ a: [1] }))
      assertion({ a: Option.some(3) }, { a: Option.some(3) })
      assertion(Either.left("e"), Either.left("e"))
      assertion(Exit.succeed(1), Exit.succeed(1))
      assertion(new Point({ x: 1 }), new Point({ x: 1 }))
    })
  }
})
