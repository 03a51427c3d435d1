import { it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as Either from "effect/Either"
import { Importer } from "@precis/importers"
import { SessionState } from "@precis/compaction"
it("prints", () => {
  for (const f of ["claude-code-spotter-258c7280", "claude-code-spotter-ae4a77f8"]) {
    const r = Importer.parse(readFileSync(`/work/shared/fixtures/transcripts/${f}.jsonl`, "utf8"), "claude-code", f)
    if (Either.isLeft(r)) throw r.left
    const turns = Importer.allTurns(r.right)
    for (let k = 0; k < 15; k++) {
      const t0 = performance.now()
      const s = SessionState.fold(turns)
      const t1 = performance.now()
      const text = SessionState.render(s, 2400)
      const t2 = performance.now()
      console.log(f, turns.length, "turns fold", (t1 - t0).toFixed(1), "ms render", (t2 - t1).toFixed(1), text.length, "chars", JSON.stringify(s).length)
      if (k === 14 && process.env.SHOW) console.log(text)
    }
  }
})
