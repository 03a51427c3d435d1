/**
 * Section 7, start time of the `precis` command: `precis --help` as a user
 * runs it (the shipped bin of `@precis/cli`, compiled JavaScript in `dist/`),
 * against `node -e ""` started by the same code in the same run, interleaved.
 *
 * @since 0.1.0
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { figure, type Figure } from "./Results.js"
import * as Stats from "./Stats.js"

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

/**
 * The path of the `precis` bin, from the manifest of `@precis/cli`. Fails when
 * the package is not built (`dist/bin.js` is what the bin imports).
 *
 * @since 0.1.0
 */
export const binPath = (): string => {
  const manifestPath = createRequire(import.meta.url).resolve("@precis/cli/package.json")
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as { readonly bin: { readonly precis: string } }
  const dir = path.dirname(manifestPath)
  if (!fs.existsSync(path.join(dir, "dist", "bin.js"))) {
    throw new Error(`${dir}/dist/bin.js is missing: build first (pnpm build)`)
  }
  return path.join(dir, manifest.bin.precis)
}

/** Wall time (ms) of one run of `node ARGS`, which must exit 0. */
const timeRun = (args: ReadonlyArray<string>): number => {
  const t0 = performance.now()
  const result = spawnSync(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" })
  const ms = performance.now() - t0
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${result.status}: ${result.stderr}`)
  return ms
}

/**
 * Wall times (ms) of `precis --help` and of `node -e ""`, in interleaved
 * rounds after one warm-up run of each (which fills the file cache).
 *
 * @since 0.1.0
 */
export const measure = (options: Options): {
  readonly helpMs: ReadonlyArray<number>
  readonly nodeMs: ReadonlyArray<number>
} => {
  const bin = binPath()
  const rounds = options.quick ? 5 : 15
  timeRun([bin, "--help"])
  timeRun(["-e", ""])
  const helpMs: Array<number> = []
  const nodeMs: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    helpMs.push(timeRun([bin, "--help"]))
    nodeMs.push(timeRun(["-e", ""]))
  }
  return { helpMs, nodeMs }
}

/**
 * The section's figures: the median start time of `precis --help` against
 * the median start of an empty Node process.
 *
 * @since 0.1.0
 */
export const run = (options: Options): ReadonlyArray<Figure> => {
  const { helpMs, nodeMs } = measure(options)
  return [
    figure({
      section: "startup",
      name: "precis --help: wall time, median",
      value: Stats.median(helpMs),
      unit: "ms",
      baseline: { name: "node -e \"\" (an empty Node process)", value: Stats.median(nodeMs), unit: "ms" },
      target: { op: "<=", value: 500, on: "value" },
      note: `${helpMs.length} interleaved runs; fastest ${Stats.quantile(helpMs, 0).toFixed(0)} ms against ${Stats.quantile(nodeMs, 0).toFixed(0)} ms`
    })
  ]
}
