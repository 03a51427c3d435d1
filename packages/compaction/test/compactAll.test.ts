/**
 * `CompactionManager.compactAll`, the worker loop, on SQLite and PostgreSQL:
 * every session with work is compacted once, concurrent workers share the
 * sessions out without duplicating work, and a session another holder has is
 * skipped and come back to. (Workers as real processes:
 * packages/cli/test/Workers.test.ts.)
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, expect, layer } from "@effect/vitest"
import { Summarizer, SummaryTask } from "@precis/core"
import { Store, TurnStore } from "@precis/store"
import { Fixtures, ScriptedProvider, StoreInvariants } from "@precis/testing"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as CompactionManager from "../src/CompactionManager.js"
import { pgStoreLayer, skipPg, storeLayer } from "./helpers.js"

const options: CompactionManager.CompactAllOptions = { freshTailTurns: 4, leafChunkTokens: 120, minFanIn: 2, maxFanIn: 3, retryDelay: "10 millis" }
const expectations = { freshTailTurns: 4, minFanIn: 2, maxFanIn: 3, condensedFully: true }

// A short real delay per summary, so that concurrent workers interleave.
const provider = ScriptedProvider.respond((request) =>
  ScriptedProvider.delayed("2 millis", `summary of ${(request.task === undefined ? 0 : SummaryTask.material(request.task).length)} chars`)
)

/** `count` sessions `w0..` (or `PREFIX0..`), of `turns` turns each. */
const seed = (count: number, turns: number, prefix = "w") =>
  Effect.flatMap(Store.all, (store) =>
    Effect.forEach(
      Array.from({ length: count }, (_, i) => `${prefix}${i}`),
      (id) => store.appendTurns(id, Fixtures.conversation(turns)),
      { discard: true }
    ))

/** Turns covered by a leaf, per session: each must be every turn but the fresh tail. */
const coveredPerSession = Effect.flatMap(Store.all, (store) =>
  Effect.flatMap(store.sessions, (sessions) =>
    Effect.forEach(sessions, (session) =>
      Effect.map(store.summaries(session.id, { depth: 0 }), (leaves) => leaves.flatMap((l) => l.sourceTurnIds).length))))

/** Polls `condition` on the real clock until it holds. */
const eventually = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.repeat(condition, { until: (ok) => ok, schedule: Schedule.spaced("5 millis") })

/** A second manager over the same store: another worker, as another process would be. */
const otherWorker = CompactionManager.make()

const suite = (name: string, store: Layer.Layer<Store.Store | SqlClient.SqlClient>) =>
  describe(name, () => {
    layer(CompactionManager.layer().pipe(Layer.provideMerge(store), Layer.provideMerge(Summarizer.layer()), Layer.provide(provider)), {
      excludeTestServices: true
    })((it) => {
      it.effect("two concurrent workers compact every session once between them, then find nothing", () =>
        Effect.gen(function*() {
          yield* seed(12, 14)
          const a = yield* CompactionManager.CompactionManager
          const b = yield* otherWorker
          const [ra, rb] = yield* Effect.all([a.compactAll(options), b.compactAll(options)], { concurrency: 2 })
          const ids = [...ra.sessions, ...rb.sessions].map((s) => s.sessionId)
          // No session was compacted by both: the lease gave each to one worker.
          expect(new Set(ids).size).toBe(ids.length)
          // Neither idled while the other worked.
          assert.isAbove(ra.sessions.length, 0)
          assert.isAbove(rb.sessions.length, 0)
          expect([...ids].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `w${i}`).sort())
          expect(ra.totals.turnsCompacted + rb.totals.turnsCompacted).toBe(12 * 10)
          expect(yield* coveredPerSession).toEqual(Array.from({ length: 12 }, () => 10))
          expect(yield* StoreInvariants.violations(expectations)).toEqual([])
          const again = yield* a.compactAll(options)
          expect(again).toEqual({ sessions: [], totals: again.totals, skippedLocked: 0 })
          expect(again.totals.turnsCompacted + again.totals.leafSummariesCreated).toBe(0)
        }))

      it.effect("finds work through the queue: a later run reads only the sessions turns came to", () =>
        Effect.gen(function*() {
          const store = yield* Store.all
          yield* seed(6, 14, "q")
          // Too short to have work: queued by its append, dropped by the first worker to claim it.
          yield* store.appendTurns("short", Fixtures.conversation(3))
          const first = yield* (yield* CompactionManager.CompactionManager).compactAll(options)
          expect(first.sessions.map((s) => s.sessionId).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `q${i}`))
          expect(yield* store.claimWork).toEqual(Option.none())
          yield* store.appendTurns("q2", Fixtures.conversation(24))
          const read: Array<string> = []
          const watched = TurnStore.TurnStore.of({
            ...store,
            uncoveredTurns: (sessionId) => Effect.suspend(() => {
              read.push(sessionId)
              return store.uncoveredTurns(sessionId)
            })
          })
          const worker = yield* CompactionManager.make().pipe(Effect.provideService(TurnStore.TurnStore, watched))
          const second = yield* worker.compactAll(options)
          expect(second.sessions.map((s) => s.sessionId)).toEqual(["q2"])
          expect(second.totals.turnsCompacted).toBe(10)
          expect(new Set(read)).toEqual(new Set(["q2"]))
          expect(yield* store.claimWork).toEqual(Option.none())
          expect(yield* StoreInvariants.violations(expectations)).toEqual([])
        }))

      it.effect("skips a session another holder has, and comes back to it once it is free", () =>
        Effect.gen(function*() {
          const store = yield* Store.all
          const cm = yield* CompactionManager.CompactionManager
          yield* Effect.forEach(["x", "y", "z"], (id) => store.appendTurns(id, Fixtures.conversation(14)), { discard: true })
          const held = yield* Deferred.make<void>()
          const gate = yield* Deferred.make<void>()
          const holder = yield* Effect.fork(
            store.withSessionLease("y", Effect.zipRight(Deferred.succeed(held, undefined), Deferred.await(gate)))
          )
          yield* Deferred.await(held)
          const worker = yield* Effect.fork(cm.compactAll(options))
          // x and z are done while y is held; the worker keeps looking at y.
          yield* eventually(
            Effect.map(
              Effect.all([store.summaries("x"), store.summaries("z")]),
              ([x, z]) => x.length > 0 && z.length > 0
            )
          )
          expect(yield* store.summaries("y")).toEqual([])
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.join(holder)
          const result = yield* Fiber.join(worker)
          expect(result.sessions.map((s) => s.sessionId).sort()).toEqual(["x", "y", "z"])
          assert.isAbove(result.skippedLocked, 0)
          expect(result.totals.turnsCompacted).toBe(30)
          expect(yield* StoreInvariants.violations(expectations)).toEqual([])
        }))
    })
  })

suite("compactAll (SQLite)", storeLayer())
describe.skipIf(skipPg)("PostgreSQL", () => {
  suite("compactAll (PostgreSQL)", pgStoreLayer())
})
