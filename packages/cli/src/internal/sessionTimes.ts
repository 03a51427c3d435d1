/**
 * When a session happened: the timestamps of its first and last turns, as
 * `precis sessions` and the viewer show them (never the time it was
 * imported).
 *
 * @internal
 */
import { type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"

/** The timestamps of a session's first and last turns (either missing when that turn has none). */
export interface TimeRange {
  readonly start: string | undefined
  readonly end: string | undefined
}

/** The time range of `session`, read from two turns whatever its size. */
export const timeRange = (
  session: TurnStore.SessionInfo
): Effect.Effect<TimeRange, StoreError.StoreError, TurnStore.TurnStore> =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const last = Math.max(0, session.turnCount - 1)
    const [first, final] = yield* Effect.all([
      store.turns(session.id, { from: 0, to: 0 }),
      store.turns(session.id, { from: last, to: last })
    ])
    return { start: first[0]?.timestamp, end: final[0]?.timestamp }
  })
