/**
 * Section `watch`, the first run of `precis watch` over a directory of
 * sessions: the shipped bin as a user runs it (default settings but a zero
 * idle threshold and short checks), on a fresh store, from its start to its
 * `idle` event (every session imported and compacted down to its fresh
 * tail), pinned to 1 core and to 2 cores (`taskset`: `--parallel-sessions`
 * defaults to the cores it may use, `--workers` to one less). Twice: with the
 * extractive provider (CPU-bound) and with a simulated model answering after
 * 20 to 50 ms (`PRECIS_BENCH_MODEL_MS`, as in `fleet`). On each core count,
 * Sleep Mode alone (`--workers 0`: the idle cycle, sessions at once in one
 * process) and the worker processes (`--workers 1`: this process and a child
 * `precis compact --all` compact the backlog at once; the default on 2
 * cores). Each rate is in MB of transcripts per second, a ratio against the
 * same provider's 1-core run with Sleep Mode alone (the default on 1 core) of
 * the same section run.
 *
 * @since 0.1.0
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ModelServer from "./internal/modelServer.js"
import { figure, type Figure } from "./Results.js"
import { binPath } from "./Startup.js"
import { median } from "./Stats.js"
import * as Synthetic from "./Synthetic.js"

/**
 * @since 0.1.0
 */
export interface Options {
  readonly quick: boolean
}

/**
 * One run: the provider, the cores it was pinned to, sessions compacted at
 * once, and its wall time (median of the repeats) over `mb` of transcripts.
 *
 * @since 0.1.0
 */
export interface WatchRunResult {
  readonly provider: "extractive" | "simulated"
  readonly cores: number
  /** Worker processes besides watch itself (`--workers`): 0 is Sleep Mode alone. */
  readonly workers: number
  readonly mb: number
  readonly seconds: number
  readonly turnsCompacted: number
}

const flags = ["--idle-threshold", "0 seconds", "--check-interval", "100 millis", "--poll-interval", "100 millis", "--json"]

/** `sessions` transcripts of about `tokens` tokens each (coding-agent shaped), in `dir`; their total size in MB. */
const writeSessions = (dir: string, sessions: number, tokens: number): number => {
  let bytes = 0
  for (let s = 0; s < sessions; s++) {
    const turns = Synthetic.session(tokens, { seed: s + 1, idPrefix: `s${s}-` })
    const text = turns.map((turn) => JSON.stringify({ id: turn.id, role: turn.role, content: turn.content, timestamp: turn.timestamp }))
      .join("\n") + "\n"
    fs.writeFileSync(path.join(dir, `s${s}.jsonl`), text)
    bytes += Buffer.byteLength(text)
  }
  return bytes / 2 ** 20
}

/** One first run: `precis watch dir` on a fresh store until its `idle` event; seconds and turns compacted. */
const firstRun = (
  dir: string,
  cores: number,
  workers: number,
  model: ModelServer.Model | undefined
): Promise<{ readonly seconds: number; readonly turns: number }> =>
  new Promise((resolve, reject) => {
    const db = path.join(os.tmpdir(), `precis-bench-watch-${process.pid}-${Date.now()}.db`)
    const args = [
      "-c",
      Array.from({ length: cores }, (_, i) => i).join(","),
      process.execPath,
      binPath(),
      "watch",
      dir,
      "--db",
      db,
      ...flags,
      "--workers",
      `${workers}`,
      ...(model === undefined ? [] : ["--provider", "openai"])
    ]
    const started = performance.now()
    const child = spawn("taskset", args, { env: { ...process.env, ...model?.env }, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    let turns = 0
    child.stderr.on("data", (data: Buffer) => (err += data.toString()))
    child.stdout.on("data", (data: Buffer) => {
      out += data.toString()
      const lines = out.split("\n")
      out = lines.pop()!
      for (const line of lines) {
        const event = JSON.parse(line) as {
          readonly event: string
          readonly turnsProcessed?: number
          readonly turnsCompacted?: number
        }
        if (event.event === "cycle-completed") turns += event.turnsProcessed ?? 0
        if (event.event === "worker-done") turns += event.turnsCompacted ?? 0
        if (event.event === "idle") {
          const seconds = (performance.now() - started) / 1000
          child.kill("SIGINT")
          child.on("exit", () => {
            fs.rmSync(db, { force: true })
            resolve({ seconds, turns })
          })
        }
      }
    })
    child.on("exit", (code) => {
      if (code !== 130 && code !== 0) reject(new Error(`precis watch exited with ${code}: ${err}`))
    })
  })

/**
 * The section: 16 sessions of about 40,000 tokens (8 of 20,000 with
 * `quick`), each configuration run 3 times (once with `quick`), the median kept.
 *
 * @since 0.1.0
 */
export const run = async (
  options: Options
): Promise<{ readonly figures: ReadonlyArray<Figure>; readonly results: ReadonlyArray<WatchRunResult> }> => {
  if (spawnSync("taskset", ["-c", "0", "true"]).status !== 0 || os.availableParallelism() < 2) {
    process.stderr.write("note: watch: needs taskset and 2 cores; skipped\n")
    return { figures: [], results: [] }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-bench-watch-"))
  const model = await ModelServer.start(ModelServer.latencyRange())
  const results: Array<WatchRunResult> = []
  try {
    const mb = writeSessions(dir, options.quick ? 8 : 16, options.quick ? 20_000 : 40_000)
    const configurations = (["extractive", "simulated"] as const).flatMap((provider) =>
      [[1, 0], [1, 1], [2, 0], [2, 1]].map(([cores, workers]) => ({ provider, cores: cores!, workers: workers! }))
    )
    for (const c of configurations) {
      const runs: Array<{ readonly seconds: number; readonly turns: number }> = []
      for (let i = 0; i < (options.quick ? 1 : 3); i++) {
        runs.push(await firstRun(dir, c.cores, c.workers, c.provider === "simulated" ? model : undefined))
      }
      results.push({
        provider: c.provider,
        cores: c.cores,
        workers: c.workers,
        mb: Number(mb.toFixed(2)),
        seconds: Number(median(runs.map((r) => r.seconds)).toFixed(2)),
        turnsCompacted: runs[0]!.turns
      })
    }
  } finally {
    await model.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const range = ModelServer.latencyRange()
  const label = (r: WatchRunResult) =>
    `${r.provider === "extractive" ? "extractive provider" : `simulated ${range.min}-${range.max} ms model`}, ` +
    `${r.cores} core${r.cores === 1 ? "" : "s"}, ` +
    (r.workers === 0 ? "Sleep Mode alone (--workers 0)" : `--workers ${r.workers}`)
  const rate = (r: WatchRunResult) => Number((r.mb / r.seconds).toFixed(3))
  const figures = results.map((r) => {
    const base = results.find((b) => b.provider === r.provider && b.cores === 1 && b.workers === 0)!
    return figure({
      section: "watch",
      name: `first run of precis watch, ${label(r)}: MB of transcripts per second`,
      value: rate(r),
      unit: "MB/s",
      baseline: base === r ? undefined : { name: label(base), value: rate(base), unit: "MB/s" },
      note: `${r.mb} MB in ${r.seconds} s, start to idle; ${r.turnsCompacted} turns compacted`
    })
  })
  return { figures, results }
}
