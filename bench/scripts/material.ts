/**
 * The summarization material before (`Transcript.formatTurns`) and after
 * (`Material.render`) on each transcript the bench reads: size in characters,
 * estimated tokens, and render throughput. Fixtures are read from
 * `../shared/fixtures/transcripts` next to the repository, or from the folder
 * given as the first argument; without either, the example session alone.
 *
 *   pnpm exec tsx --conditions=@precis/source bench/scripts/material.ts [FIXTURES_DIR]
 */
import { Material, TokenEstimator, Transcript } from "@precis/core"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Inputs from "../src/Inputs.js"

const dir = process.argv[2] ?? Inputs.fixturesDir
const files = [
  ...(fs.existsSync(Inputs.exampleSession) ? [Inputs.exampleSession] : []),
  ...(fs.existsSync(dir)
    ? fs.readdirSync(dir).sort().filter(Inputs.isSession)
      .map((f) => path.join(dir, f))
    : [])
]
const estimate = TokenEstimator.approximate.estimate
const rows: Array<Record<string, string | number>> = []
for (const file of files) {
  const input = Inputs.load(file)
  const before = Transcript.formatTurns(input.turns)
  let after = Material.render(input.turns)
  // Throughput over the raw transcript's bytes: the median of runs for ~1 s, after a warm-up.
  for (let i = 0; i < 20; i++) Material.render(input.turns)
  const runs: Array<number> = []
  const deadline = performance.now() + 1000
  while (performance.now() < deadline || runs.length < 3) {
    const start = performance.now()
    after = Material.render(input.turns)
    runs.push(performance.now() - start)
  }
  runs.sort((a, b) => a - b)
  const median = runs[Math.floor(runs.length / 2)]!
  rows.push({
    file: input.name,
    turns: input.turns.length,
    "chars before": before.length,
    "chars after": after.length,
    "tokens before": estimate(before),
    "tokens after": estimate(after),
    ratio: Number((after.length / before.length).toFixed(3)),
    "render MB/s": Number((input.bytes / 1e6 / (median / 1000)).toFixed(1))
  })
}
console.table(rows)
