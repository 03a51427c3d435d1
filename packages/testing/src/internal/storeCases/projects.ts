/**
 * The store suite's cases of projects: each session's working directory, git
 * root and agent, and its time span, read from its turns' metadata and kept on
 * its row; the sessions of a project, the most recent first; the opening
 * turns of many sessions in one read.
 *
 * @internal
 */
import { expect } from "@effect/vitest"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Fixtures from "../../Fixtures.js"
import type { Case } from "./case.js"

// `count` turns of a session held in `cwd` from `start`, its agent `agent`.
const held = (cwd: string | undefined, start: string, count: number, extra: Record<string, unknown> = {}) =>
  Fixtures.conversation(count, { start }).map((turn, i) =>
    Fixtures.turn(turn.role, turn.content, {
      ...(turn.id === undefined ? {} : { id: turn.id }),
      ...(turn.timestamp === undefined ? {} : { timestamp: turn.timestamp }),
      // The first turn names no directory (a harness line): the project comes from the first that does.
      metadata: i === 0 || cwd === undefined ? { sourceFormat: "claude-code" } : { cwd, sourceFormat: "claude-code", ...extra }
    })
  )

/** @internal */
export const cases: ReadonlyArray<Case> = [
  {
    name: "keeps each session's project and time span, and lists a project's sessions newest first",
    fresh: true,
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("p-old", held("/work/app", "2025-01-01T00:00:00Z", 3))
        yield* store.appendTurns("p-new", held("/work/app", "2025-03-01T00:00:00Z", 2))
        yield* store.appendTurns("p-sub", held("/work/app/sub", "2025-02-01T00:00:00Z", 2, { gitRoot: "/work/app" }))
        yield* store.appendTurns("other", held("/elsewhere", "2025-04-01T00:00:00Z", 2))
        yield* store.appendTurns("nowhere", held(undefined, "2025-05-01T00:00:00Z", 2))
        // A later append in another directory (a `cd`) does not move the session; its time span grows.
        yield* store.appendTurns("p-old", held("/tmp", "2025-01-01T00:00:00Z", 5).slice(3))
        const all = yield* store.sessions
        const old = all.find((s) => s.id === "p-old")!
        expect(old.project).toEqual({ directory: "/work/app", agent: "claude-code" })
        expect([old.startedAt, old.endedAt]).toEqual(["2025-01-01T00:00:00.000Z", "2025-01-01T00:04:00.000Z"])
        expect(all.find((s) => s.id === "p-sub")!.project).toEqual({
          directory: "/work/app/sub",
          gitRoot: "/work/app",
          agent: "claude-code"
        })
        expect(all.find((s) => s.id === "nowhere")!.project).toBeUndefined()
        expect((yield* store.projectSessions("/work/app")).map((s) => s.id)).toEqual(["p-new", "p-sub", "p-old"])
        expect((yield* store.projectSessions("/elsewhere")).map((s) => s.id)).toEqual(["other"])
        expect(yield* store.projectSessions("/work")).toEqual([])
      })
  },
  {
    name: "reads the opening turns of many sessions at once, in the order asked",
    run: () =>
      Effect.gen(function*() {
        const store = yield* Store.all
        yield* store.appendTurns("open-a", Fixtures.conversation(5))
        yield* store.appendTurns("open-b", Fixtures.conversation(2))
        const opening = yield* store.openingTurns(["open-b", "missing", "open-a"], 3)
        expect(opening.map((t) => [t.sessionId, t.id, t.seq])).toEqual([
          ["open-b", "t0", 0],
          ["open-b", "t1", 1],
          ["open-a", "t0", 0],
          ["open-a", "t1", 1],
          ["open-a", "t2", 2]
        ])
        expect(yield* store.openingTurns([], 3)).toEqual([])
        expect(yield* store.openingTurns(["open-a"], 0)).toEqual([])
      })
  }
]
