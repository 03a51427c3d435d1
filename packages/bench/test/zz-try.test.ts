import { it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as Either from "effect/Either"
import { Importer } from "@precis/importers"
import { TokenEstimator } from "@precis/core"
import { SessionState } from "@precis/compaction"
it("prints", () => {
  for (const f of ["claude-code-spotter-258c7280", "claude-code-spotter-ae4a77f8"]) {
    const r = Importer.parse(readFileSync(`/work/shared/fixtures/transcripts/${f}.jsonl`, "utf8"), "claude-code", f)
    if (Either.isLeft(r)) throw r.left
    const turns = Importer.allTurns(r.right)
    const cut = turns.findIndex((t) => t.role === "user" && t.content.startsWith("This session is being continued"))
    for (const [label, span] of [["prefix", turns.slice(0, cut)], ["whole", turns]] as const) {
      const text = SessionState.render(SessionState.fold(span), 2400)
      console.log(`##### ${f} ${label}: ${span.length} turns, ${TokenEstimator.approximate.estimate(text)} tokens\n${text}`)
    }
  }
})
