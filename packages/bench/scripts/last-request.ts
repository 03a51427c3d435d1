/**
 * The last request precis sends in the agent loop of `pnpm bench loop` (what
 * an agent pays: `assemble(session, { budget: 32000 })` after every turn, the
 * simulated model answering with the first 10% of its material), written to a
 * file to read as the agent that continues the work would, with the probe
 * facts it keeps and misses.
 *
 *   PRECIS_FIXTURES_DIR=../shared/fixtures/transcripts node --import tsx --conditions=@precis/source \
 *     packages/bench/scripts/last-request.ts [SESSION] [OUT] [METHOD]
 *
 * SESSION: a session of `AgentPays.sessions()` (default claude-code-spotter-ae4a77f8); OUT: default /tmp/last-request.txt;
 * METHOD: precis (default), openhands, openhands-tokens (the OpenHands port) or baseline.
 */
import * as fs from "node:fs"
import * as AgentPays from "../src/AgentPays.js"

const session = process.argv[2] ?? "claude-code-spotter-ae4a77f8"
const out = process.argv[3] ?? "/tmp/last-request.txt"
const methods: ReadonlyArray<AgentPays.Method> = ["precis", "openhands", "openhands-tokens", "baseline"]
const method = methods.find((m) => m === (process.argv[4] ?? "precis"))
if (method === undefined) {
  console.error(`unknown method ${JSON.stringify(process.argv[4])}: one of ${methods.join(", ")}`)
  process.exit(2)
}
const { last, result } = await AgentPays.measureWithLast({ session, method, budget: 32_000, sessionTokens: 200_000 })
fs.writeFileSync(out, last)
const probes = result.probes === undefined
  ? "no probes"
  : `probe facts kept ${result.probes.kept} of ${result.probes.total}; missed: ${result.probes.missed.join(", ") || "none"}`
console.log(`${out}: ${last.length} characters, ${result.prefixChanges} prefix changes, ${result.compactions} compactions; ${probes}`)
