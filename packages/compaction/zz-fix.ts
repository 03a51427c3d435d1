import { Summarizer, TokenEstimator, Transcript, type ConversationTurn } from "@precis/core"
import { ScriptedProvider } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Importer from "../cli/src/Importer.js"
import * as ExtractiveProvider from "../provider-extractive/src/ExtractiveProvider.js"
import * as CompactionManager from "./src/CompactionManager.js"
import * as MemoryStore from "./src/MemoryStore.js"
import { storeLayer, shortReply } from "./test/helpers.js"

const dir = "/work/shared/fixtures/transcripts"
const configs: Array<[string, CompactionManager.Options]> = [["defaults", {}], ["chunk2000", { leafChunkTokens: 2000 }]]
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json") || f.endsWith(".jsonl"))) {
  const text = fs.readFileSync(path.join(dir, file), "utf8")
  const parsed = Importer.parse(text, "auto", file)
  if (Either.isLeft(parsed)) { console.log(file, "ERROR", parsed.left.message); continue }
  const bySession = new Map<string, Array<ConversationTurn.ConversationTurn>>()
  for (const t of parsed.right) { const s = t.sessionId ?? "default"; bySession.set(s, [...(bySession.get(s) ?? []), t]) }
  const tokens = parsed.right.reduce((n, t) => n + TokenEstimator.approximate.estimate(Transcript.formatTurn(t)), 0)
  for (const [provName, provider] of [["scripted", ScriptedProvider.respond(shortReply)], ["extractive", ExtractiveProvider.layer()]] as const) {
    for (const [name, options] of configs) {
      const program = Effect.gen(function*() {
        const store = yield* MemoryStore.MemoryStore
        const cm = yield* CompactionManager.CompactionManager
        const summarizer = yield* Summarizer.Summarizer
        const t0 = performance.now()
        let leaves = 0, condensed = 0, maxDepth = -1, active = 0, tools = 0
        for (const [s, turns] of bySession) {
          tools += turns.filter(CompactionManager.isToolResult).length
          yield* store.appendTurns(s, turns)
          const st = yield* cm.compact(s, options)
          leaves += st.leafSummariesCreated; condensed += st.condensedSummariesCreated
          for (const x of yield* store.summaries(s)) maxDepth = Math.max(maxDepth, x.depth)
          active += (yield* cm.context(s)).tokens
        }
        const tiers = yield* summarizer.tierCounts
        console.log(`${file} sessions=${bySession.size} turns=${parsed.right.length} toolResults=${tools} tokens=${tokens} provider=${provName} config=${name} leaves=${leaves} condensed=${condensed} maxDepth=${maxDepth} calls=${leaves + condensed} tiers=${JSON.stringify(tiers)} activeTokens=${active} ms=${(performance.now() - t0).toFixed(0)}`)
      }).pipe(Effect.provide(CompactionManager.layer().pipe(Layer.provideMerge(Layer.mergeAll(storeLayer(), Summarizer.layer().pipe(Layer.provide(provider)))))))
      await Effect.runPromise(program)
    }
  }
}
