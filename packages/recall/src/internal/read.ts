/**
 * The `read` tool's lookup: the turn a citation names (a whole id, or the
 * short id the session state cites, `SessionState.cites`, or the start of
 * one turn's id), with the turns
 * around it, one page within a token cap.
 *
 * @internal
 */
import { SessionState, TokenEstimator } from "@precis/core"
import { type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Items from "./items.js"
import { findSession } from "./lookup.js"
import { RecallError } from "./recallError.js"

/** What `read` is asked. */
export interface ReadRequest {
  readonly session: string
  readonly id: string
  readonly around?: number | undefined
  readonly maxTokens?: number | undefined
}

/** The turns `read` shows on each side of the one named without `around`. */
export const defaultAround = 2

/** The one turn of `session` that `cited` names, or a `RecallError` saying why none or which. */
const citedTurn = (store: TurnStore.Service, session: string, cited: string) =>
  Effect.flatMap(store.turnsWithIdPrefix(session, SessionState.citedPrefix(cited), 50), (candidates) => {
    const exact = candidates.filter((turn) => SessionState.cites(cited, turn.id))
    // No turn cited so: a prefix of one turn's id names it.
    const named = exact.length === 0 && candidates.length === 1 ? candidates : exact
    if (named.length === 1) return Effect.succeed(named[0]!)
    const some = (turns: ReadonlyArray<TurnStore.StoredTurn>) =>
      `${turns.slice(0, 3).map((turn) => turn.id).join(", ")}${turns.length > 3 ? ", ..." : ""}`
    const where = `session ${JSON.stringify(session)}`
    return Effect.fail(
      new RecallError({
        message: named.length > 1
          ? `${JSON.stringify(cited)} names ${named.length} turns of ${where}: pass a whole id (${some(named)})`
          : candidates.length > 0
          ? `no turn ${JSON.stringify(cited)} in ${where}; ids starting with it: ${some(candidates)}`
          : `no turn ${JSON.stringify(cited)} in ${where}`
      })
    )
  })

/**
 * The turn `request.id` names and `around` turns either side, in order, as
 * many as fit in `maxTokens` from the first (the named one is always shown:
 * the page starts at it when the turns before it would not leave it room).
 */
export const read = (request: ReadRequest, maxTokens: number) =>
  Effect.gen(function*() {
    const store = yield* TurnStore.TurnStore
    const estimator = yield* TokenEstimator.TokenEstimator
    yield* findSession(request.session)
    const turn = yield* citedTurn(store, request.session, request.id)
    const around = request.around ?? defaultAround
    const turns = yield* store.turns(request.session, { from: Math.max(0, turn.seq - around), to: turn.seq + around })
    const items = turns.map((t) => Items.turnItem(estimator, t))
    const at = turns.findIndex((t) => t.seq === turn.seq)
    // From the earliest start whose page still holds the named turn.
    let start = 0
    while (start < at && Items.page(estimator, items, start, maxTokens).items.length <= at - start) start++
    const page = Items.page(estimator, items, start, maxTokens, request.session)
    return { sessionId: request.session, turnId: turn.id, items: page.items, tokens: page.tokens }
  }).pipe(
    Effect.catchTag("StoreError", (error: StoreError.StoreError) => Effect.fail(new RecallError({ message: error.message })))
  )
