/**
 * The `read` tool's lookup: the turn a citation names (a whole id, or the
 * short id the session state cites, `SessionState.cites`, or the start of
 * one turn's id), with the turns
 * around it, one page within a token cap.
 *
 * @internal
 */
import { TokenEstimator } from "@precis/core"
import { type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Items from "./items.js"
import { findCited, findSession } from "./lookup.js"
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
  findCited(cited, (prefix, limit) => store.turnsWithIdPrefix(session, prefix, limit), {
    one: "turn",
    many: "turns",
    where: `session ${JSON.stringify(session)}`
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
