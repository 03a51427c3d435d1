/**
 * The invariant checker every compaction test trusts (`StoreInvariants.violations`
 * of @precis/testing) finds what it says it checks: a compacted store is clean,
 * and each corruption written into it afterwards is named.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect, it } from "@effect/vitest"
import { StoreInvariants } from "@precis/testing"
import * as Effect from "effect/Effect"
import { Store } from "@precis/store"
import { Fixtures } from "@precis/testing"
import * as CompactionManager from "../src/CompactionManager.js"
import { managerLayer } from "./helpers.js"

const expectations = { freshTailTurns: 4, minFanIn: 2, maxFanIn: 8, condensedFully: true } as const

it.effect("a clean compaction has no violation; each corruption is named", () =>
  Effect.gen(function*() {
    const store = yield* Store.all
    yield* store.appendTurns("s", Fixtures.conversation(24, { content: (i) => `turn ${i}: ${"words ".repeat(40)}` }))
    yield* Effect.flatMap(CompactionManager.CompactionManager, (m) => m.compact("s", { leafChunkTokens: 150, freshTailTurns: 4, minFanIn: 2 }))
    expect(yield* StoreInvariants.violations(expectations)).toEqual([])
    const sql = yield* SqlClient.SqlClient
    const [leaf, other] = yield* sql<{ id: string }>`SELECT id FROM summaries WHERE depth = 0 ORDER BY time_range_start LIMIT 2`
    const [parent] = yield* sql<{ id: string }>`SELECT id FROM summaries WHERE depth = 1 LIMIT 1`
    const found = (changes: Effect.Effect<unknown, unknown, SqlClient.SqlClient>) =>
      Effect.flatMap(changes, () => StoreInvariants.violations(expectations))

    yield* sql`UPDATE summaries SET token_estimate = token_estimate + 1 WHERE id = ${leaf!.id}`
    expect(yield* found(Effect.void)).toContainEqual(expect.stringMatching(new RegExp(`^summary ${leaf!.id} \\(depth 0\\): token_estimate`)))
    yield* sql`UPDATE summaries SET token_estimate = token_estimate - 1 WHERE id = ${leaf!.id}`

    yield* sql`UPDATE turns SET seq = seq + 100 WHERE session_id = 's' AND id = 't23'`
    expect(yield* found(Effect.void)).toContain("session s: turn t23 has seq 123, expected 23")
    yield* sql`UPDATE turns SET seq = 23 WHERE session_id = 's' AND id = 't23'`

    // The last fresh-tail turn covered by the first leaf too: covered twice, out of order, in the tail.
    yield* sql`INSERT INTO summary_sources (summary_id, position, turn_id, child_summary_id) VALUES (${leaf!.id}, 99, 't23', NULL)`
    const twice = yield* found(Effect.void)
    expect(twice).toContain("session s: a fresh-tail turn is covered")
    expect(twice).toContain("session s: covered turns are not a prefix")
    expect(twice).toContainEqual(expect.stringMatching(/positions are not 0\.\.n-1/))
    expect(twice).toContainEqual(expect.stringMatching(/its turns are not consecutive/))
    yield* sql`DELETE FROM summary_sources WHERE summary_id = ${leaf!.id} AND position = 99`

    // A leaf under another leaf: the wrong depth, a parent that does not link it, a child whose parent_id disagrees.
    yield* sql`UPDATE summaries SET parent_id = ${other!.id} WHERE id = ${leaf!.id}`
    const misplaced = yield* found(Effect.void)
    expect(misplaced).toContain(`summary ${leaf!.id} (depth 0): parent has depth 0`)
    expect(misplaced).toContain(`summary ${leaf!.id} (depth 0): parent ${other!.id} does not link it`)
    expect(misplaced).toContain(`child ${leaf!.id} of ${parent!.id} has parent_id ${other!.id}`)
    expect(yield* StoreInvariants.violations()).not.toEqual([])
  }).pipe(Effect.provide(managerLayer())))
