import { assert, describe, it } from "@effect/vitest"
import { ConversationTurn, SessionState } from "@precis/core"
import { Store, TurnStore } from "@precis/store"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ActiveContext from "../src/ActiveContext.js"
import * as CompactionManager from "../src/CompactionManager.js"
import { managerLayer, toolSession } from "./helpers.js"

// A session with tool traffic (`toolSession`): how it folds is SessionState's own test (in @precis/core);
// here, where the state is stored and when it is folded again.
const encode = Schema.encodeSync(SessionState.StateFromJson)
const decode = Schema.decodeUnknownSync(SessionState.StateFromJson)

describe("the stored session state", () => {
  const sessionTurns = toolSession

  it.effect("a load folds the turns its caller read instead of reading them, unless they start too late", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", sessionTurns)
      const stored = yield* store.turns("s")
      // A marked copy of the first request tells a fold of `read` from a fold of the store's turns.
      const read = stored.map((t) => t.id === "u1" ? new TurnStore.StoredTurn({ ...t, content: "marked request" }) : t)
      const given = yield* ActiveContext.loadState("s", read)
      assert.deepStrictEqual([given.lastSeq, given.advanced], [sessionTurns.length - 1, true])
      assert.deepStrictEqual(given.state.firstRequest, { text: "marked request", at: 1, turnId: "u1" })
      // Turns from seq 3 on do not hold the first turn to fold (seq 0): the store's turns are read.
      const late = yield* ActiveContext.loadState("s", read.slice(3))
      assert.deepStrictEqual(late.state, SessionState.fold(sessionTurns))
      // With a stored state up to seq 5, turns from seq 3 on hold what is left to fold.
      yield* store.saveSessionState({ sessionId: "s", state: encode(SessionState.fold(sessionTurns.slice(0, 6))), lastSeq: 5 })
      const after = yield* ActiveContext.loadState("s", read.slice(3))
      assert.deepStrictEqual(after.state, SessionState.fold(sessionTurns))
      assert.strictEqual(after.lastSeq, sessionTurns.length - 1)
    }).pipe(Effect.provide(managerLayer())))

  it.effect("a state stored by another version of the fold (version 3, before the errors fixed) is folded again from the start", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      yield* store.appendTurns("s", sessionTurns)
      // What version 3 stored: no `fixed`, and a state that claims to be up to date.
      const { fixed: _, ...rest } = SessionState.fold(sessionTurns)
      const old = JSON.stringify({ ...rest, version: 3, turnCount: 1 })
      yield* store.saveSessionState({ sessionId: "s", state: old, lastSeq: sessionTurns.length - 1 })
      const loaded = yield* ActiveContext.loadState("s")
      assert.deepStrictEqual(loaded.state, SessionState.fold(sessionTurns))
      assert.deepStrictEqual([loaded.lastSeq, loaded.advanced], [sessionTurns.length - 1, true])
    }).pipe(Effect.provide(managerLayer())))

  it.effect("a compaction saves the state of every turn, the fresh tail's included", () =>
    Effect.gen(function*() {
      const store = yield* Store.all
      const manager = yield* CompactionManager.CompactionManager
      yield* store.appendTurns("s", sessionTurns)
      const stats = yield* manager.compact("s", { freshTailTurns: 2, leafChunkTokens: 40 })
      assert.isAbove(stats.turnsCompacted, 0)
      const saved = Option.getOrThrow(yield* store.sessionState("s"))
      assert.strictEqual(saved.lastSeq, sessionTurns.length - 1)
      assert.deepStrictEqual(decode(saved.state), SessionState.fold(sessionTurns))
      // A second run after new turns folds from the stored state on.
      const more = [ConversationTurn.make({ role: "user", content: "and JSON too", id: "u3" })]
      yield* store.appendTurns("s", more)
      yield* manager.compact("s", { freshTailTurns: 0, leafChunkTokens: 40 })
      const again = Option.getOrThrow(yield* store.sessionState("s"))
      assert.strictEqual(again.lastSeq, sessionTurns.length)
      assert.deepStrictEqual(decode(again.state), SessionState.fold([...sessionTurns, ...more]))
    }).pipe(Effect.provide(managerLayer())))

  it.effect("survives reopening, and a load folds only the turns after it", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "precis-state-"))
      const filename = path.join(dir, "state.db")
      const open = <A, E>(effect: Effect.Effect<A, E, Store.Store>) =>
        Effect.scoped(Effect.provide(effect, SqliteStore.layer({ filename }).pipe(Layer.orDie)))
      const first = yield* open(Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("s", sessionTurns.slice(0, 6))
        const loaded = yield* ActiveContext.loadState("s")
        yield* ActiveContext.saveState(loaded)
        return loaded
      }))
      assert.deepStrictEqual([first.lastSeq, first.advanced], [5, true])
      const [again, later] = yield* open(Effect.gen(function*() {
        const store = yield* Store.all
        const again = yield* ActiveContext.loadState("s")
        // The stored state is what later loads start from: mark it to tell it from a fold from the first turn.
        const marked = { ...again.state, firstRequest: { text: "from the store", turnId: "u1" } }
        yield* store.saveSessionState({ sessionId: "s", state: encode(marked), lastSeq: again.lastSeq })
        yield* store.appendTurns("s", sessionTurns.slice(6))
        return [again, yield* ActiveContext.loadState("s")] as const
      }))
      assert.deepStrictEqual([again.advanced, again.lastSeq], [false, 5])
      assert.deepStrictEqual(again.state, SessionState.fold(sessionTurns.slice(0, 6)))
      assert.deepStrictEqual([later.advanced, later.lastSeq], [true, sessionTurns.length - 1])
      assert.deepStrictEqual(later.state.firstRequest, { text: "from the store", turnId: "u1" })
      assert.deepStrictEqual(later.state.latestRequest, { text: "also support TSV", at: 18, turnId: "u2" })
      // A stored state that cannot be read is folded again from the first turn.
      const refolded = yield* open(Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.saveSessionState({ sessionId: "s", state: "{\"version\":99}", lastSeq: 100 })
        return yield* ActiveContext.loadState("s")
      }))
      assert.deepStrictEqual(refolded.state, SessionState.fold(sessionTurns))
      fs.rmSync(dir, { recursive: true, force: true })
    }))
})
