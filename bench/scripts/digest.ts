/**
 * The output digest of the offline pipeline, for speed work that must not
 * change what precis writes: imports, stores and compacts each input (as
 * `pnpm bench throughput` does: SQLite, the extractive provider, default
 * options), then prints one SHA-256 per input over every stored summary
 * (depth, tier, token estimate, content, in conversation order), the session
 * state and the search hits of a few queries (kind, seq or depth, rank,
 * snippet, sorted: not the ids, which are random, nor the order of equal
 * ranks, which follows the order condensed summaries were written in).
 *
 *   node --import tsx bench/scripts/digest.ts [FILE ...] [--generated MB]
 *
 * Without arguments: the example session, the transcripts of
 * `PRECIS_FIXTURES_DIR` (if set) and a generated 10 MB session. Compare the
 * lines printed before and after a change.
 */
import { NodeFileSystem } from "@effect/platform-node"
import { CompactionManager } from "@precis/compaction"
import { Importer } from "@precis/importers"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as stack from "../src/internal/stack.js"
import * as Inputs from "../src/Inputs.js"
import * as Throughput from "../src/Throughput.js"

const QUERIES = ["error", "test*", "config", "commit"]

const digest = (file: string, dir: string) =>
  Effect.runPromise(Effect.gen(function*() {
    const store = yield* Store.all
    const manager = yield* CompactionManager.CompactionManager
    yield* store.appendTurns("digest", Importer.allTurns(yield* Importer.importFile(file)))
    yield* manager.compact("digest")
    const hash = createHash("sha256")
    const summaries = yield* store.summaries("digest")
    for (const s of summaries) hash.update(`${s.depth}\u0000${s.tier}\u0000${s.tokenEstimate}\u0000${s.content}\u0001`)
    hash.update(Option.match(yield* store.sessionState("digest"), { onNone: () => "", onSome: (s) => s.state }))
    for (const query of QUERIES) {
      const hits = yield* store.search("digest", query)
      hash.update(`${query}\u0000${hits.map((h) => `${h.kind} ${h.seq ?? h.depth} ${h.rank.toFixed(6)} ${h.snippet}`).sort().join("\u0001")}`)
    }
    return { summaries: summaries.length, sha256: hash.digest("hex").slice(0, 16) }
  }).pipe(
    Effect.provide(stack.layer(path.join(dir, "digest.db"), ExtractiveProvider.layer())),
    Effect.provide(NodeFileSystem.layer)
  ))

const args = process.argv.slice(2)
const files: Array<string> = []
let generated: number | undefined = args.length === 0 ? 10 : undefined
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--generated") generated = Number(args[++i] ?? 10)
  else files.push(args[i]!)
}
if (args.length === 0) files.push(...new Set([Inputs.exampleSession, ...Inputs.files()]))
const dir = stack.tempDir()
try {
  if (generated !== undefined) {
    const file = path.join(dir, `generated-${generated}MB.jsonl`)
    Throughput.generate(file, generated)
    files.push(file)
  }
  for (const file of files) {
    const r = await digest(file, fs.mkdtempSync(path.join(dir, "db-")))
    console.log(`${r.sha256}  ${String(r.summaries).padStart(4)} summaries  ${path.basename(file)}`)
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
