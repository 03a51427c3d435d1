/**
 * A small compacted store for the tests of the commands that read one
 * (`show`, `context`, `sessions`, …), and the shape of `show --json`'s nodes.
 */
import { assert } from "@effect/vitest"
import * as path from "node:path"
import { beforeAll } from "vitest"
import { type Result, run, sessionJsonl, write } from "./run.js"

/** Compaction flags that make a small session a DAG of several leaves and condensed levels. */
export const dagFlags = ["--leaf-chunk-tokens", "150", "--fresh-tail", "6", "--min-fan-in", "2", "--max-fan-in", "4"]

/** The keys of a node of `show --json`. */
export const JSON_NODE_KEYS = [
  "children",
  "depth",
  "id",
  "parentId",
  "tier",
  "timeRangeEnd",
  "timeRangeStart",
  "tokenEstimate"
]

/** A node of `show --json`. */
export interface Node {
  readonly id: string
  readonly depth: number
  readonly tier: string
  readonly parentId: string | null
  readonly tokenEstimate: number
  readonly timeRangeStart: string | null
  readonly timeRangeEnd: string | null
  readonly children: ReadonlyArray<string>
}

/** A compacted store: its file, the conversation file it was made of, and what `compact --json` printed. */
export interface CompactedStore {
  readonly db: string
  readonly file: string
  /** The result of `compact FILE --json` (once `beforeAll` has run). */
  readonly compacted: () => Result
}

/**
 * Compacts 40 turns (ids `t0` … `t39`, one minute apart from 2025-01-01) into
 * `dir/dag.db`, session `dag`, with {@link dagFlags}, before the tests of the
 * file (or `describe` block) that calls it.
 */
export const compactedStore = (dir: string): CompactedStore => {
  const db = path.join(dir, "dag.db")
  const file = write(dir, "dag.jsonl", sessionJsonl(40))
  let result: Result | undefined
  beforeAll(async () => {
    result = await run(["compact", file, "--db", db, "--json", ...dagFlags])
    assert.strictEqual(result.code, 0, result.stderr)
  })
  return { db, file, compacted: () => result! }
}
