/**
 * The events and the view of the OpenHands SDK port (`openHands.ts`), written
 * here in TypeScript from the SDK's Python (OpenHands/software-agent-sdk,
 * `openhands/sdk/event/*` and `openhands/sdk/context/view/*`):
 *
 * - a session's turns become the SDK's events: a user or assistant message a
 *   `MessageEvent`, an assistant turn that calls tools one `ActionEvent` per
 *   call (one batch: the first carries the turn's text as its thought), a
 *   tool result an `ObservationEvent`;
 * - an event's `str()` is what the summarizer reads of it: a 500-character
 *   preview (`N_CHAR_PREVIEW`) under a line naming its class and source;
 * - the view is the events not forgotten, with the latest summary inserted at
 *   its offset, and without an action whose observation is not in it (nor an
 *   observation without its action: `ToolCallMatchingProperty.enforce`);
 * - its manipulation indices are where it may be cut: never inside a batch
 *   (`BatchAtomicityProperty`), between a call and its result
 *   (`ToolCallMatchingProperty`) or inside a run of actions and observations
 *   (`ToolLoopAtomicityProperty`).
 */
import { ConversationTurn, ToolUse } from "@precis/core"

/** The SDK's preview length of an event's text (`N_CHAR_PREVIEW`). */
export const previewChars = 500

/** One event of the SDK's kinds that the agent's model reads. */
export interface Event {
  readonly id: string
  readonly kind: "message" | "action" | "observation" | "summary"
  /** `user`, `agent` or `environment`. */
  readonly source: string
  /** The role of the message the agent's model reads. */
  readonly role: string
  /** The message's text: a message's content, an action's thought (`""` past the first of a batch), a tool's output. */
  readonly text: string
  /** The response an action came in: its batch. */
  readonly responseId?: string | undefined
  /** The call an action makes; the calls an observation answers. */
  readonly callIds?: ReadonlyArray<string> | undefined
  readonly toolName?: string | undefined
}

// The class name of an action of a tool, as the SDK's tools name them (`TerminalAction`, ...).
const actionClass = (tool: string): string =>
  `${tool.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")}Action`

/**
 * The events of turn `index` of a session (ids `e{index}` or `e{index}.{k}`).
 * A tool result without a call id answers the calls of the turn before it.
 * An assistant turn that calls tools while calls of an earlier one wait for
 * their results (one response's calls, as Claude Code writes them: one entry
 * per call, results interleaved) joins that batch, `response` (else its own).
 */
export const fromTurn = (
  turn: ConversationTurn.ConversationTurn,
  index: number,
  previous?: ConversationTurn.ConversationTurn,
  response?: string
): ReadonlyArray<Event> => {
  const id = `e${index}`
  if (ConversationTurn.isToolResult(turn)) {
    const answered = ToolUse.answeredIds(turn)
    const fallback = previous === undefined ? [] : ToolUse.calls(previous).map((c, k) => c.id ?? `e${index - 1}.${k}`)
    return [{
      id,
      kind: "observation",
      source: "environment",
      role: turn.role,
      text: turn.content,
      callIds: answered.length > 0 ? answered : fallback,
      toolName: ToolUse.result(turn)?.name
    }]
  }
  const calls = turn.role === "assistant" ? ToolUse.calls(turn) : []
  if (calls.length === 0) {
    return [{ id, kind: "message", source: ConversationTurn.isUserRole(turn.role) ? "user" : "agent", role: turn.role, text: turn.content }]
  }
  return calls.map((call, k) => ({
    id: `${id}.${k}`,
    kind: "action",
    source: "agent",
    role: turn.role,
    text: k === 0 ? turn.content : "",
    responseId: response ?? id,
    callIds: [call.id ?? `${id}.${k}`],
    toolName: call.name
  }))
}

const cut = (text: string, keep: number): string => text.length > previewChars ? `${text.slice(0, keep)}...` : text

/**
 * What the summarizer reads of an event: the SDK's `str(event)`, a line naming
 * its class and source, then its text cut to 500 characters (a message's and
 * a summary's to 497 and `...`, an action's thought and a tool's output to 500
 * and `...`; an action shows its class, not its arguments).
 */
export const preview = (event: Event): string => {
  switch (event.kind) {
    case "action":
      return `ActionEvent (agent)\n  Thought: ${cut(event.text, previewChars)}\n  Action: ${actionClass(event.toolName ?? "tool")}`
    case "observation":
      return `ObservationEvent (environment)\n  Tool: ${event.toolName ?? "tool"}\n  Result: ${cut(event.text, previewChars)}`
    case "summary":
      return `CondensationSummaryEvent (environment)\n  user: ${cut(event.text, previewChars - 3)}`
    case "message":
      return `MessageEvent (${event.source})\n  ${event.role === "assistant" ? "assistant" : "user"}: ${
        event.text.length === 0 ? "[no text content]" : cut(event.text, previewChars - 3)
      }`
  }
}

const isToolLoopEvent = (event: Event): boolean => event.kind === "action" || event.kind === "observation"

/**
 * The indices where `events` may be cut or a summary inserted (0 to
 * `events.length`): the intersection of the three properties' indices.
 */
export const manipulationIndices = (events: ReadonlyArray<Event>): ReadonlySet<number> => {
  const out = new Set<number>(Array.from({ length: events.length + 1 }, (_, i) => i))
  const pending = new Set<string>()
  let inLoop = false
  events.forEach((event, i) => {
    // Batch atomicity: no cut between two actions of one response.
    const before = events[i - 1]
    if (
      before !== undefined && before.kind === "action" && event.kind === "action" && before.responseId === event.responseId
    ) out.delete(i)
    // Tool call matching: no cut while a call waits for its result.
    if (event.kind === "action") for (const id of event.callIds ?? []) pending.add(id)
    if (event.kind === "observation") for (const id of event.callIds ?? []) pending.delete(id)
    if (pending.size > 0) out.delete(i + 1)
    // Tool loop atomicity: no cut inside a run of actions and observations.
    const loopEvent = isToolLoopEvent(event)
    if (inLoop && loopEvent) out.delete(i)
    inLoop = loopEvent
  })
  return out
}

/** The smallest of `indices` at or past `threshold` (`ManipulationIndices.find_next`). */
export const findNext = (indices: ReadonlySet<number>, threshold: number): number => {
  let best: number | undefined
  for (const i of indices) if (i >= threshold && (best === undefined || i < best)) best = i
  if (best === undefined) throw new Error(`no manipulation index at or past ${threshold}`)
  return best
}

/** The id of the summary event in a view. */
export const summaryId = "summary"

// The batches of `events`: each response's action ids.
const batches = (events: ReadonlyArray<Event>): Map<string, Set<string>> => {
  const out = new Map<string, Set<string>>()
  for (const e of events) {
    if (e.kind !== "action" || e.responseId === undefined) continue
    const batch = out.get(e.responseId) ?? new Set<string>()
    batch.add(e.id)
    out.set(e.responseId, batch)
  }
  return out
}

// The events of a view that break a property: a batch not whole, an action without its result, a result without its action.
const broken = (kept: ReadonlyArray<Event>, all: ReadonlyMap<string, ReadonlySet<string>>): Set<string> => {
  const out = new Set<string>()
  for (const [response, ids] of batches(kept)) if (ids.size !== all.get(response)?.size) for (const id of ids) out.add(id)
  const called = new Set(kept.flatMap((e) => e.kind === "action" ? e.callIds ?? [] : []))
  const answered = new Set(kept.flatMap((e) => e.kind === "observation" ? e.callIds ?? [] : []))
  for (const e of kept) {
    if (e.kind === "action" && !(e.callIds ?? []).every((id) => answered.has(id))) out.add(e.id)
    if (e.kind === "observation" && !(e.callIds ?? []).some((id) => called.has(id))) out.add(e.id)
  }
  return out
}

/**
 * The view of `events` (the whole history, in order): those not `forgotten`,
 * the latest `summary` inserted at its offset, then, until none is left, the
 * events of a batch not whole and the actions and observations without their
 * counterpart dropped (`View.enforce_properties`).
 */
export const view = (
  events: ReadonlyArray<Event>,
  forgotten: ReadonlySet<string>,
  summary: { readonly text: string; readonly offset: number } | undefined
): Array<Event> => {
  const kept = events.filter((e) => !forgotten.has(e.id))
  if (summary !== undefined) {
    kept.splice(summary.offset, 0, { id: summaryId, kind: "summary", source: "environment", role: "user", text: summary.text })
  }
  const all = batches(events)
  let out = kept
  for (let drop = broken(out, all); drop.size > 0; drop = broken(out, all)) out = out.filter((e) => !drop.has(e.id))
  return out
}
