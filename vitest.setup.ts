/**
 * Set up before every test file of every project (see `setupFiles` in
 * vitest.shared.ts): makes chai's deep equality — `assert.deepStrictEqual`,
 * `assert.deepEqual`, `expect(x).to.eql` — sound on Effect data.
 *
 * chai's `deep-eql` compares two objects by their enumerable keys (inherited
 * ones included) only when both have the same number of them; otherwise it
 * falls back to comparing what the two objects iterate. Effect's `Option`,
 * `Either`, `Exit` and every other yieldable value iterate a single `YieldWrap`
 * (which keeps its value in a private field, so any two look alike), and
 * `Option.none()` has one key fewer than `Option.some(x)` (no `value`): without
 * this comparator `assert.deepStrictEqual(Option.none(), Option.some(3))`
 * passes. Here two iterable plain objects whose key sets differ are unequal;
 * everything else keeps deep-eql's behaviour.
 */
import { chai } from "vitest"

const enumerableKeys = (value: object): Array<string | symbol> => {
  const keys: Array<string | symbol> = []
  for (const key in value) keys.push(key)
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (Object.getOwnPropertyDescriptor(value, symbol)?.enumerable === true) keys.push(symbol)
  }
  return keys
}

/** An object deep-eql compares key by key (not an array, map, set…) that also iterates. */
const isIterableRecord = (value: unknown): value is object =>
  typeof value === "object" && value !== null && Symbol.iterator in value &&
  Object.prototype.toString.call(value) === "[object Object]"

const sameKeys = (left: object, right: object): boolean => {
  const leftKeys = enumerableKeys(left)
  const rightKeys = new Set(enumerableKeys(right))
  return leftKeys.length === rightKeys.size && leftKeys.every((key) => rightKeys.has(key))
}

const comparator = (left: unknown, right: unknown): boolean | null =>
  isIterableRecord(left) && isIterableRecord(right) && !sameKeys(left, right) ? false : null

chai.config.deepEqual = (expected, actual) => chai.util.eql(expected, actual, { comparator })
