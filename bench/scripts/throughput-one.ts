/**
 * One throughput measurement (`Throughput.measureOne`) in this process, no
 * child, for profiling:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/scripts/throughput-one.ts [FILE | --generated MB]
 *
 * Without `--conditions=@precis/source` the packages run from their `dist/`
 * (after `pnpm exec tsc -b`), so the profile names the compiled lines; with
 * it, from their sources. Prints the result (import, store and compact
 * milliseconds, MB/s; inputs under 20 MB also a second run, `warm`) as JSON.
 */
import * as Throughput from "../src/Throughput.js"

const arg = process.argv[2] ?? "--generated"
const source: Throughput.Source = arg === "--generated"
  ? { kind: "generated", megabytes: Number(process.argv[3] ?? 10) }
  : { kind: "file", file: arg }
const r = await Throughput.measureOne(source)
const mbPerS = (r: Throughput.Result) => r.bytes / 1e6 / (r.totalMs / 1000)
console.log(JSON.stringify({ ...r, mbPerS: mbPerS(r), warmMbPerS: r.warm === undefined ? undefined : mbPerS(r.warm) }))
