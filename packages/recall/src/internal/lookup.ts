/**
 * Looking up what a tool call names, failing with a `RecallError` the model reads.
 *
 * @internal
 */
import { SessionState } from "@precis/core"
import { type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import { RecallError } from "./recallError.js"

/** The session `id` of the store in context, or a `RecallError` naming it. */
export const findSession = (
  id: string
): Effect.Effect<TurnStore.SessionInfo, RecallError | StoreError.StoreError, TurnStore.TurnStore> =>
  Effect.flatMap(TurnStore.TurnStore, (store) =>
    Effect.flatMap(store.sessions, (sessions) => {
      const found = sessions.find((s) => s.id === id)
      return found === undefined
        ? Effect.fail(new RecallError({ message: `no session ${JSON.stringify(id)}` }))
        : Effect.succeed(found)
    }))

/** What {@link findCited} looks for, for its messages: `turn`, `turns`, and where (none: every session). */
export interface CitedKind {
  readonly one: string
  readonly many: string
  readonly where?: string | undefined
}

/**
 * The one record (a turn, a summary) that `cited` names: the whole id, or the
 * short id a marker or the session state cites it by (`SessionState.cites`);
 * failing those, a prefix of one record's id. `candidates` is the store's
 * lookup of the ids starting with a prefix; none or several named is a
 * `RecallError` saying which.
 */
export const findCited = <A extends { readonly id: string }, E>(
  cited: string,
  candidates: (prefix: string, limit: number) => Effect.Effect<ReadonlyArray<A>, E>,
  kind: CitedKind
): Effect.Effect<A, RecallError | E> =>
  Effect.flatMap(candidates(SessionState.citedPrefix(cited), 50), (found) => {
    const exact = found.filter((record) => SessionState.cites(cited, record.id))
    // None cited so: a prefix of one record's id names it.
    const named = exact.length === 0 && found.length === 1 ? found : exact
    if (named.length === 1) return Effect.succeed(named[0]!)
    const some = (records: ReadonlyArray<A>) =>
      `${records.slice(0, 3).map((record) => record.id).join(", ")}${records.length > 3 ? ", ..." : ""}`
    const quoted = JSON.stringify(cited)
    const where = (preposition: string) => kind.where === undefined ? "" : ` ${preposition} ${kind.where}`
    return Effect.fail(
      new RecallError({
        message: named.length > 1
          ? `${quoted} names ${named.length} ${kind.many}${where("of")}: pass a whole id (${some(named)})`
          : found.length > 0
          ? `no ${kind.one} ${quoted}${where("in")}; ids starting with it: ${some(found)}`
          : `no ${kind.one} ${quoted}${where("in")}`
      })
    )
  })
