/**
 * `pnpm bench [SECTION ...] [--quick] [--out FILE] [--dump DIR]`: runs the benchmark
 * sections (all by default), prints a Markdown table of the figures and writes
 * them to `results.json` (a full run) or `results-partial.json` (`--quick` or
 * some sections only), every figure with its unit and its baseline.
 *
 * Sections: overhead, faults, compaction, loop, throughput, retention, also, tokens,
 * startup, start (a new Claude Code session's digest on a store of 200 sessions), fleet (these need
 * the CLI built: the package's `bench` script builds it; fleet's PostgreSQL part needs `PRECIS_BENCH_PG_URL` or
 * `PRECIS_TEST_PG_URL`), sleep, watch (the first run of `precis watch` over a
 * directory of sessions, on 1 and 2 cores: needs `taskset`), fidelity (probe facts kept by precis's
 * context, its summaries, head/tail truncation and Claude Code's own
 * compaction; `--dump DIR` writes each method's text there).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as child from "./internal/child.js"
import { type Figure, table } from "./Results.js"

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

interface Context {
  readonly quick: boolean
  /** `--dump DIR`: where sections that can (fidelity) write the texts they measured. */
  readonly dump: string | undefined
}

interface SectionResult {
  readonly figures: ReadonlyArray<Figure>
  readonly details?: unknown
}

// Sections and child measurements load their modules on demand, so that a
// child process starts with only what it measures.
const sections: Record<string, (ctx: Context) => Promise<SectionResult>> = {
  overhead: async (ctx) => ({ figures: await (await import("./Overhead.js")).run(ctx) }),
  faults: async (ctx) => ({ figures: await (await import("./FaultLatency.js")).run(ctx) }),
  compaction: async (ctx) => {
    const { figures, results } = await (await import("./CompactionCost.js")).run(ctx)
    return { figures, details: results }
  },
  loop: async (ctx) => {
    const loops = await (await import("./AgentLoop.js")).run(ctx)
    const pays = await (await import("./AgentPays.js")).run(ctx)
    return { figures: [...loops.figures, ...pays.figures], details: { loops: loops.results, pays: pays.results } }
  },
  throughput: async (ctx) => {
    const { figures, results } = await (await import("./Throughput.js")).run(ctx)
    return { figures, details: results }
  },
  retention: async () => {
    const Inputs = await import("./Inputs.js")
    const { figures, rows } = (await import("./Retention.js")).run(Inputs.all())
    return { figures, details: rows }
  },
  also: async (ctx) => {
    const Inputs = await import("./Inputs.js")
    const { figures, rows } = await (await import("./AlsoLine.js")).run(Inputs.all(), ctx)
    return { figures, details: rows }
  },
  tokens: async () => {
    const Inputs = await import("./Inputs.js")
    return { figures: (await import("./TokenAccuracy.js")).run(Inputs.all()) }
  },
  startup: async (ctx) => ({ figures: (await import("./Startup.js")).run(ctx) }),
  start: async (ctx) => ({ figures: await (await import("./ProjectStart.js")).run(ctx) }),
  sleep: async (ctx) => {
    const { figures, results } = await (await import("./SleepLoop.js")).run(ctx)
    return { figures, details: results }
  },
  fleet: async (ctx) => {
    const { figures, results } = await (await import("./Fleet.js")).run(ctx)
    return { figures, details: results }
  },
  watch: async (ctx) => {
    const { figures, results } = await (await import("./WatchFirstRun.js")).run(ctx)
    return { figures, details: results }
  },
  fidelity: async (ctx) => (await import("./fidelity/Fidelity.js")).run({ dump: ctx.dump })
}

const children: Record<string, (args: never) => Promise<object>> = {
  compaction: async (args) => (await import("./CompactionCost.js")).measureOne(args),
  loop: async (args) => (await import("./AgentLoop.js")).measureOne(args),
  pays: async (args) => (await import("./AgentPays.js")).measureOne(args),
  throughput: async (args) => (await import("./Throughput.js")).measureOne(args),
  sleep: async (args) => (await import("./SleepLoop.js")).measureOne(args),
  // Loads what a measurement loads, and does nothing: the memory baseline.
  idle: async (args: { readonly of: string }) => {
    if (args.of === "compaction") await import("./CompactionCost.js")
    if (args.of === "throughput") await import("./Throughput.js")
    return {}
  }
}

const machine = () => ({
  cpus: os.availableParallelism(),
  cpuModel: os.cpus()[0]?.model ?? "unknown",
  totalMemGB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  loadAverage: os.loadavg().map((x) => Number(x.toFixed(2)))
})

const main = async (argv: ReadonlyArray<string>): Promise<void> => {
  if (argv[0] === "--child") {
    const run = children[argv[1] ?? ""]
    if (run === undefined) throw new Error(`unknown child measurement ${argv[1]}`)
    child.reply(await run(JSON.parse(argv[2] ?? "{}") as never))
    return
  }
  const quick = argv.includes("--quick")
  const outIndex = argv.indexOf("--out")
  const dumpIndex = argv.indexOf("--dump")
  const names = argv.filter((a, i) =>
    !a.startsWith("--") && (outIndex < 0 || i !== outIndex + 1) && (dumpIndex < 0 || i !== dumpIndex + 1)
  )
  const dump = dumpIndex >= 0 && argv[dumpIndex + 1] !== undefined ? path.resolve(argv[dumpIndex + 1]!) : undefined
  const unknown = names.filter((n) => !(n in sections))
  if (unknown.length > 0) {
    process.stderr.write(`unknown section(s) ${unknown.join(", ")}; choose from ${Object.keys(sections).join(", ")}\n`)
    process.exitCode = 2
    return
  }
  const selected = names.length > 0 ? names : Object.keys(sections)
  const out = outIndex >= 0 && argv[outIndex + 1] !== undefined
    ? path.resolve(argv[outIndex + 1]!)
    : path.join(packageDir, !quick && names.length === 0 ? "results.json" : "results-partial.json")
  const { fixturesDir } = await import("./Inputs.js")
  if (!fs.existsSync(fixturesDir)) {
    process.stderr.write(`note: ${fixturesDir} is absent; only the example and synthetic sessions are measured\n`)
  }
  const startedAt = new Date().toISOString()
  const before = machine()
  const figures: Array<Figure> = []
  const details: Record<string, unknown> = {}
  const seconds: Record<string, number> = {}
  for (const name of selected) {
    process.stderr.write(`bench: ${name}${quick ? " (quick)" : ""}...\n`)
    const t0 = performance.now()
    const result = await sections[name]!({ quick, dump })
    seconds[name] = Number(((performance.now() - t0) / 1000).toFixed(1))
    figures.push(...result.figures)
    if (result.details !== undefined) details[name] = result.details
    process.stderr.write(`bench: ${name} done in ${seconds[name]} s\n`)
  }
  const document = {
    startedAt,
    quick,
    sections: selected,
    machine: { ...before, loadAverageAtEnd: machine().loadAverage },
    secondsPerSection: seconds,
    figures,
    details
  }
  fs.writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`)
  process.stdout.write(`${table(figures)}\n\nwrote ${path.relative(process.cwd(), out)}\n`)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  process.exitCode = 1
})
