/**
 * The store suite's cases of the work queue and the session lease (each case on a fresh store: the
 * queue must start empty).
 *
 * @internal
 */
import { assert, expect } from "@effect/vitest"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Fixtures from "../../Fixtures.js"
import type { Case } from "./case.js"

/** @internal */
export const cases: ReadonlyArray<Case> = [
  {
    name: "the work queue: appends queue their session, claims go round it, a settle holds unless turns came in",
    fresh: true,
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const claimed = Effect.map(store.claimWork, Option.map((claim) => claim.sessionId))
        expect(yield* store.claimWork).toEqual(Option.none())
        yield* store.appendTurns("qa", Fixtures.conversation(2))
        yield* store.appendTurns("qb", Fixtures.conversation(1))
        // The least claimed first (then by id); a claim moves the session behind the others.
        expect([yield* claimed, yield* claimed, yield* claimed]).toEqual(["qa", "qb", "qa"].map(Option.some))
        const b = Option.getOrThrow(yield* store.claimWork)
        expect(b.sessionId).toBe("qb")
        // Turns came in since the claim: the settle leaves the session queued, with a new stamp.
        yield* store.appendTurns("qb", Fixtures.conversation(2))
        expect(yield* store.settleWork(b)).toBe(false)
        const a = Option.getOrThrow(yield* store.claimWork)
        expect(a.sessionId).toBe("qa")
        expect(yield* store.settleWork(a)).toBe(true)
        const b2 = Option.getOrThrow(yield* store.claimWork)
        expect(b2.sessionId).toBe("qb")
        assert.notStrictEqual(b2.stamp, b.stamp)
        expect(yield* store.settleWork(b2)).toBe(true)
        expect(yield* store.claimWork).toEqual(Option.none())
        // An append that adds nothing (repeats) or fails (a conflict) queues nothing.
        expect(yield* store.appendTurns("qa", Fixtures.conversation(2))).toEqual([])
        yield* Effect.flip(store.appendTurns("qa", [Fixtures.turn("user", "other", { id: "t0" })]))
        expect(yield* store.claimWork).toEqual(Option.none())
        // A rolled-back transaction takes its queue entry with it.
        yield* Effect.flip(store.withTransaction(Effect.zipRight(store.appendTurns("qc", Fixtures.conversation(1)), Effect.fail("no"))))
        expect(yield* store.claimWork).toEqual(Option.none())
      })
  },
  {
    name: "claims made at the same moment take different sessions",
    fresh: true,
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const ids = Array.from({ length: 8 }, (_, i) => `c${i}`)
        yield* Effect.forEach(ids, (id) => store.appendTurns(id, Fixtures.conversation(1)), { discard: true })
        const claims = yield* Effect.all(Array.from({ length: 8 }, () => store.claimWork), { concurrency: 8 })
        expect(claims.map((claim) => Option.getOrThrow(claim).sessionId).sort()).toEqual(ids)
      })
  },
  {
    name: "tryWithSessionLease runs only while nobody holds the lease",
    fresh: true,
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        const inner = yield* store.withSessionLease("busy", store.tryWithSessionLease("busy", Effect.succeed("ran")))
        expect(inner).toEqual(Option.none())
        expect(yield* store.tryWithSessionLease("busy", Effect.succeed("ran"))).toEqual(Option.some("ran"))
        // Released after: the lease can be taken again, with waiting too.
        expect(yield* store.withSessionLease("busy", Effect.succeed(1))).toBe(1)
      })
  }
]
