/**
 * What a continuing agent does next, the one rule behind both the header's
 * `Next:` line (`stateHeader.ts`) and the hand-over's `next`
 * (`stateOutline.ts`):
 *
 * 1. the latest (else the first) user request, while no turn answers it, unless
 *    the agent has since written a plan with an item still open (the plan is
 *    then how it goes about the request);
 * 2. the first open item of the plan in force ({@link planInForce});
 * 3. the newest open error, to resolve: a failure nothing fixed since (no
 *    later pass, no redo), which a hand-over must not lose;
 * 4. the agent's last stated intent (`Now I'll …`), a sentence that an open
 *    failure may have overtaken.
 *
 * @internal
 */
import * as Plans from "./plans.js"
import type { State } from "./stateSchema.js"

/**
 * An open error as a line: a failing check, or a failed git or tracker event.
 *
 * @internal
 */
export interface ErrorLine {
  readonly text: string
  readonly turnId: string
}

/**
 * The errors still open, oldest first: failing checks, then failed git or tracker events.
 *
 * @internal
 */
export const openErrors = (state: State): ReadonlyArray<ErrorLine> => [
  ...state.openErrors.map((e) => ({ text: `${e.command}: ${e.detail ?? "failed"}`, turnId: e.turnId })),
  ...state.events.filter((e) => e.failed === true).map((e) => ({ text: `${e.text} failed: ${e.detail ?? "?"}`, turnId: e.turnId }))
]

/**
 * The plan a continuing agent works from: the todo list, else the prose plan, one with items
 * still open first; a plan whose items are all done gives way to a user request made after it.
 *
 * @internal
 */
export const planInForce = (state: State): State["plan"] => {
  const plans = [state.todos, state.plan].filter((p) => p !== undefined)
  const open = plans.find((p) => !Plans.allDone(p, state.issues))
  if (open !== undefined) return open
  const latest = plans[0]
  const asked = state.latestRequest?.at
  return latest === undefined || (asked !== undefined && asked > (latest.at ?? 0)) ? undefined : latest
}

/**
 * The next step, citing the turn it comes from.
 *
 * @internal
 */
export type Next =
  | { readonly _tag: "Request"; readonly which: "first" | "latest"; readonly text: string; readonly turnId: string }
  | { readonly _tag: "PlanItem"; readonly text: string; readonly turnId: string }
  | { readonly _tag: "OpenError"; readonly text: string; readonly turnId: string }
  | { readonly _tag: "Intent"; readonly text: string; readonly turnId: string }

/**
 * The next step of `state` (see the module's rule), if there is one.
 *
 * @internal
 */
export const nextStep = (state: State): Next | undefined => {
  const request = state.latestRequest ?? state.firstRequest
  const plan = planInForce(state)
  const item = plan?.items.find((i) => Plans.trackedStatus(i, state.issues) !== "completed")
  const plannedSince = plan !== undefined && item !== undefined && (plan.at ?? 0) > (request?.at ?? -1)
  if (request !== undefined && state.answered !== true && !plannedSince) {
    const which = state.latestRequest === undefined ? "first" : "latest"
    return { _tag: "Request", which, text: request.text, turnId: request.turnId }
  }
  if (plan !== undefined && item !== undefined) return { _tag: "PlanItem", text: item.text, turnId: plan.turnId }
  const error = openErrors(state).at(-1)
  if (error !== undefined) return { _tag: "OpenError", text: error.text, turnId: error.turnId }
  return state.intent === undefined ? undefined : { _tag: "Intent", text: state.intent.text, turnId: state.intent.turnId }
}
