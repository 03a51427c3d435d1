import { describe, expect, it } from "@effect/vitest"
import { FactCheck, LeafDigest, Prompt, SummaryTask } from "@precis/core"
import * as FastCheck from "effect/FastCheck"
import { Arbitraries } from "../src/index.js"

// Lines that carry keys of each kind, mixed with random text, so long turns are digested and keys are at stake.
const keyLine = FastCheck.constantFrom(
  "Edited `src/app/server.ts` and lib/spotter/otel.ex",
  "TypeError: x is undefined at packages/core/src/Prompt.ts",
  "12 tests, 1 failed",
  "$ pnpm exec vitest run packages/core",
  "error TS2304: Cannot find name 'Foo'",
  "Closes spotter-4te.3 and PROJ-12 (#42)",
  "SPOTTER_OTEL_ENABLED=false in config.exs",
  "Exit code 2",
  "`renderContents()` now calls `Material.result`",
  "npm ERR! ENOENT: no such file, open 'package.json'",
  "see https://example.com/docs/digest for details"
)
const line = FastCheck.oneof({ arbitrary: Arbitraries.text, weight: 2 }, { arbitrary: keyLine, weight: 1 })
const session = Arbitraries.turns({ maxLength: 12 }).chain((turns) =>
  FastCheck.tuple(
    ...turns.map((turn) =>
      FastCheck.array(line, { maxLength: 24 }).map((extra): SummaryTask.Turn => ({
        role: turn.role,
        content: [turn.content, ...extra].join("\n"),
        timestamp: turn.timestamp,
        id: turn.id
      }))
    )
  )
)

const keyTexts = (task: SummaryTask.TurnsTask): Set<string> =>
  new Set(FactCheck.keysOf(task).map((fact) => fact.text.toLowerCase()))

describe("LeafDigest: the digest keeps what the fact check requires", () => {
  it.prop(
    "every key of the full turns (FactCheck.keysOf) is a key of their digest",
    [session],
    ([turns]) => {
      const task: SummaryTask.TurnsTask = { kind: "leaf", turns: SummaryTask.turnsOf(turns), targetTokens: 100 }
      const digest = keyTexts({ ...task, turns: LeafDigest.turns(task.turns) })
      for (const key of keyTexts(task)) expect(digest).toContain(key)
    }
  )

  it.prop(
    "a leaf's prompt carries the digest of its turns, never longer than their material",
    [session],
    ([turns]) => {
      const task: SummaryTask.TurnsTask = { kind: "leaf", turns: SummaryTask.turnsOf(turns), targetTokens: 100 }
      expect(Prompt.forTask(task)).toContain(LeafDigest.transcript(task))
      expect(LeafDigest.transcript(task).length).toBeLessThanOrEqual(SummaryTask.material(task).length)
    }
  )
})
