/**
 * Compaction over the real SWE-agent trajectories in ../shared/fixtures (next
 * to the repository); skipped when that folder is absent. The trajectories are
 * read here with a minimal parse of their `history` (compaction does not depend on @precis/importers).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConversationTurn } from "@precis/core"
import { Store } from "@precis/store"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as CompactionManager from "../src/CompactionManager.js"
import { managerLayer } from "./helpers.js"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const transcripts = path.resolve(repoRoot, "..", "shared", "fixtures", "transcripts")
const files = ["swe-agent-marshmallow-1867-function-calling.traj.json", "swe-agent-pydicom-1458.traj.json"]
const available = files.every((file) => fs.existsSync(path.join(transcripts, file)))

const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part: { readonly text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("\n")
    : ""

const readTrajectory = (file: string): ReadonlyArray<ConversationTurn.ConversationTurn> => {
  const history = (JSON.parse(fs.readFileSync(path.join(transcripts, file), "utf8")) as {
    readonly history: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  }).history
  return history.map((message, i) =>
    ConversationTurn.make({ role: message.role, content: contentText(message.content), id: `${file}#${i}` })
  )
}

describe("real transcripts", () => {
  for (const file of files) {
    it.effect.skipIf(!available)(`${file}: a small-chunk compaction keeps every invariant`, () =>
      Effect.gen(function*() {
        const turns = readTrajectory(file)
        const store = yield* Store.all
        const cm = yield* CompactionManager.CompactionManager
        yield* store.appendTurns("real", turns)
        const options = { freshTailTurns: 5, leafChunkTokens: 1500, minFanIn: 2, maxFanIn: 4 }
        const stats = yield* cm.compact("real", options)
        expect(stats.leafSummariesCreated).toBeGreaterThan(1)
        expect(stats.condensedSummariesCreated).toBeGreaterThan(0)
        expect(yield* StoreInvariants.violations({ freshTailTurns: 5, minFanIn: 2, maxFanIn: 4, condensedFully: true })).toEqual([])
        const context = yield* cm.context("real")
        expect(ConversationTurn.isToolResult(context.turns[0]!)).toBe(false)
        expect((yield* cm.compact("real", options)).leafSummariesCreated).toBe(0)
      }).pipe(Effect.provide(managerLayer())))
  }
})
