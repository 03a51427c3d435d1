/**
 * Looking up what a tool call names, failing with a `RecallError` the model reads.
 *
 * @internal
 */
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
