/**
 * The last request precis sends in the agent loop of `pnpm bench loop` (what
 * an agent pays: `assemble(session, { budget: 32000 })` after every turn, the
 * simulated model answering with the first 10% of its material), written to a
 * file to read as the agent that continues the work would, with the probe
 * facts it keeps and misses.
 *
 *   PRECIS_FIXTURES_DIR=../shared/fixtures/transcripts node --import tsx --conditions=@precis/source \
 *     packages/bench/scripts/last-request.ts [SESSION] [OUT]
 *
 * SESSION: a session of `AgentPays.sessions()` (default claude-code-spotter-ae4a77f8); OUT: default /tmp/last-request.txt.
 */
import * as fs from "node:fs"
import * as AgentPays from "../src/AgentPays.js"

const session = process.argv[2] ?? "claude-code-spotter-ae4a77f8"
const out = process.argv[3] ?? "/tmp/last-request.txt"
const { last, result } = await AgentPays.measureWithLast({ session, method: "precis", budget: 32_000, sessionTokens: 200_000 })
fs.writeFileSync(out, last)
const probes = result.probes === undefined
  ? "no probes"
  : `probe facts kept ${result.probes.kept} of ${result.probes.total}; missed: ${result.probes.missed.join(", ") || "none"}`
console.log(`${out}: ${last.length} characters, ${result.prefixChanges} prefix changes, ${result.compactions} compactions; ${probes}`)
