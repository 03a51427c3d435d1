/**
 * Section 4, offline throughput: import + compact + store of a transcript file
 * into a SQLite file in a temp directory, with the extractive provider: MB/s
 * and peak memory, for each available transcript and a generated session
 * (100 MB; 10 MB with `--quick`), each in its own process. Inputs under
 * 20 MB are measured twice in their process: the first run is what the CLI
 * pays (a fresh process, nothing compiled yet), the second what an agent
 * that keeps precis loaded pays (its code already optimized by V8).
 *
 * @since 0.1.0
 */
import { NodeFileSystem } from "@effect/platform-node"
import { CompactionManager } from "@precis/compaction"
import { Importer } from "@precis/importers"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as child from "./internal/child.js"
import * as stack from "./internal/stack.js"
import * as Inputs from "./Inputs.js"
import { figure, type Figure } from "./Results.js"
import * as Synthetic from "./Synthetic.js"

/**
 * What to import: a file, or a generated precis JSONL session of `megabytes`.
 *
 * @since 0.1.0
 */
export type Source = { readonly kind: "file"; readonly file: string } | { readonly kind: "generated"; readonly megabytes: number }

/**
 * One run's figures.
 *
 * @since 0.1.0
 */
export interface Result {
  readonly source: string
  readonly bytes: number
  readonly turns: number
  readonly importMs: number
  readonly storeMs: number
  readonly compactMs: number
  readonly totalMs: number
  readonly leaves: number
  readonly condensed: number
  /** The same input measured again in the same process (a fresh store), when it was. */
  readonly warm?: Result | undefined
}

/** Inputs up to this size are measured a second time in their process. */
const WARM_MAX_BYTES = 20e6

/**
 * Writes a deterministic precis JSONL session of at least `megabytes` MB to `file`.
 *
 * @since 0.1.0
 */
export const generate = (file: string, megabytes: number): number => {
  const fd = fs.openSync(file, "w")
  let bytes = 0
  let buffer = ""
  try {
    for (const turn of Synthetic.turns({ seed: 31 })) {
      buffer += `${JSON.stringify({ role: turn.role, content: turn.content, id: turn.id, timestamp: turn.timestamp })}\n`
      if (buffer.length > 1 << 20) {
        bytes += fs.writeSync(fd, buffer)
        buffer = ""
        if (bytes >= megabytes * 1e6) break
      }
    }
    if (buffer.length > 0) bytes += fs.writeSync(fd, buffer)
  } finally {
    fs.closeSync(fd)
  }
  return bytes
}

/**
 * Imports, stores and compacts one source (in this process).
 *
 * @since 0.1.0
 */
export const measureOne = async (source: Source): Promise<Result> => {
  const first = await measureRun(source)
  return first.bytes <= WARM_MAX_BYTES ? { ...first, warm: await measureRun(source) } : first
}

const measureRun = async (source: Source): Promise<Result> => {
  const dir = stack.tempDir()
  try {
    const file = source.kind === "file" ? source.file : path.join(dir, "generated.jsonl")
    if (source.kind === "generated") generate(file, source.megabytes)
    const bytes = fs.statSync(file).size
    return await Effect.runPromise(Effect.gen(function*() {
      const store = yield* Store.all
      const manager = yield* CompactionManager.CompactionManager
      const t0 = performance.now()
      const turns = Importer.allTurns(yield* Importer.importFile(file))
      const t1 = performance.now()
      yield* store.appendTurns("bench", turns)
      const t2 = performance.now()
      const stats = yield* manager.compact("bench")
      const t3 = performance.now()
      return {
        source: source.kind === "file" ? path.basename(file) : `generated ${source.megabytes} MB session`,
        bytes,
        turns: turns.length,
        importMs: t1 - t0,
        storeMs: t2 - t1,
        compactMs: t3 - t2,
        totalMs: t3 - t0,
        leaves: stats.leafSummariesCreated,
        condensed: stats.condensedSummariesCreated
      }
    }).pipe(
      Effect.provide(stack.layer(path.join(dir, "bench.db"), ExtractiveProvider.layer())),
      Effect.provide(NodeFileSystem.layer)
    ))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

/**
 * The sources of a run.
 *
 * @since 0.1.0
 */
export const plan = (options: Options): ReadonlyArray<Source> => [
  ...Inputs.files().map((file) => ({ kind: "file", file }) as const),
  { kind: "generated", megabytes: options.quick ? 10 : 100 }
]

/**
 * The section's figures, each source in a child process.
 *
 * @since 0.1.0
 */
export const run = async (options: Options): Promise<{ figures: ReadonlyArray<Figure>; results: ReadonlyArray<Result & { maxRssMB: number }> }> => {
  const results: Array<Result & { maxRssMB: number }> = []
  const figures: Array<Figure> = []
  const idle = await child.idleRss("throughput")
  for (const source of plan(options)) {
    const r = await child.run<Result>("throughput", source)
    results.push(r)
    const speed = (r: Result, name: string) =>
      figure({
        section: "throughput",
        name: `${r.source}: ${name}`,
        value: r.bytes / 1e6 / (r.totalMs / 1000),
        unit: "MB/s",
        target: { op: ">=", value: 20, on: "value" },
        note: `${(r.bytes / 1e6).toFixed(2)} MB, ${r.turns} turns in ${r.totalMs.toFixed(0)} ms ` +
          `(import ${r.importMs.toFixed(0)}, store ${r.storeMs.toFixed(0)}, compact ${r.compactMs.toFixed(0)}); ` +
          `${r.leaves} leaves, ${r.condensed} condensed`
      })
    figures.push(
      speed(r, "import + store + compact"),
      ...(r.warm === undefined ? [] : [speed(r.warm, "import + store + compact, second run in the process")]),
      figure({
        section: "throughput",
        name: `${r.source}: peak RSS of the process`,
        value: r.maxRssMB,
        unit: "MB",
        baseline: { name: "idle process with the same modules", value: idle, unit: "MB" }
      })
    )
  }
  return { figures, results }
}
