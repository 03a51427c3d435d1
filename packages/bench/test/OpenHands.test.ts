import { ConversationTurn, Provider } from "@precis/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as OpenHands from "../src/internal/openHands.js"
import * as View from "../src/internal/openHandsView.js"

// The port's decisions on cases of the SDK's own unit tests (OpenHands/software-agent-sdk,
// tests/sdk/context/condenser/test_llm_summarizing_condenser.py and
// tests/sdk/context/view/test_view_manipulation_indices.py; each test names the one it ports).

const message = (text: string, i: number): View.Event => ({ id: `m${i}`, kind: "message", source: "user", role: "user", text })
const messages = (n: number, text: (i: number) => string = (i) => `Event ${i}`): Array<View.Event> =>
  Array.from({ length: n }, (_, i) => message(text(i), i))
const action = (response: string, call: string): View.Event => ({
  id: `a-${call}`,
  kind: "action",
  source: "agent",
  role: "assistant",
  text: `calling ${call}`,
  responseId: response,
  callIds: [call],
  toolName: "terminal"
})
const observation = (call: string): View.Event => ({
  id: `o-${call}`,
  kind: "observation",
  source: "environment",
  role: "tool",
  text: `result of ${call}`,
  callIds: [call],
  toolName: "terminal"
})

const settings = (maxSize: number, keepFirst: number, maxTokens?: number) => ({
  maxSize,
  keepFirst,
  maxTokens,
  maxEventChars: OpenHands.defaults.maxEventChars
})

// A summarizer that answers `replies` in turn and keeps the prompts it was sent.
const scripted = (replies: ReadonlyArray<string>) => {
  const prompts: Array<string> = []
  const service = Provider.Provider.of({
    name: "scripted",
    chat: (request) =>
      Effect.sync(() => {
        prompts.push(request.messages[0]!.content)
        return { text: replies[prompts.length - 1] ?? "summary" }
      })
  })
  return { service, prompts }
}

const user = (content: string) => ConversationTurn.make({ role: "user", content })

describe("the OpenHands port: when it condenses (test_llm_summarizing_condenser.py)", () => {
  it("test_should_condense: past max_size events, not at it", () => {
    expect(OpenHands.reasons(messages(100), settings(100, 4), false)).toEqual(new Set())
    expect(OpenHands.reasons(messages(101), settings(100, 4), false)).toEqual(new Set(["events"]))
  })

  it.effect("test_condense_returns_view_when_no_condensation_needed: no call at max_size events", () =>
    Effect.gen(function*() {
      const llm = scripted([])
      const condenser = OpenHands.make(llm.service, { ...settings(100, 4), contextWindow: 1_000_000 })
      for (let i = 0; i < 100; i++) yield* condenser.push(user(`Event ${i}`))
      expect(llm.prompts).toEqual([])
      expect(condenser.events()).toHaveLength(100)
    }))

  it.effect("test_condense_returns_condensation_when_needed: one call, the summary at keep_first", () =>
    Effect.gen(function*() {
      const llm = scripted(["Summary of forgotten events"])
      const condenser = OpenHands.make(llm.service, { ...settings(10, 3), contextWindow: 1_000_000 })
      for (let i = 0; i < 11; i++) yield* condenser.push(user(`Event ${i}`))
      expect(llm.prompts).toHaveLength(1)
      const view = condenser.events()
      // Kept: the first 3, the summary, then max_size // 2 - keep_first - 1 = 1 event from the tail.
      expect(view.map((e) => e.text)).toEqual(["Event 0", "Event 1", "Event 2", "Summary of forgotten events", "Event 10"])
      expect(view[3]!.kind).toBe("summary")
      // What it forgot is what its summarizer read: events 3 to 9, each as its preview.
      for (let i = 3; i < 10; i++) expect(llm.prompts[0]).toContain(`<EVENT>\nMessageEvent (user)\n  user: Event ${i}\n</EVENT>`)
      expect(llm.prompts[0]).not.toContain("Event 10")
      expect(llm.prompts[0]).not.toContain("Event 2\n")
    }))

  it.effect("test_get_condensation_with_previous_summary: the previous summary reaches the summarizer", () =>
    Effect.gen(function*() {
      const llm = scripted(["Previous summary content", "Updated summary"])
      const condenser = OpenHands.make(llm.service, { ...settings(10, 3), contextWindow: 1_000_000 })
      for (let i = 0; i < 17; i++) yield* condenser.push(user(`Event ${i}`))
      expect(llm.prompts).toHaveLength(2)
      expect(llm.prompts[1]).toContain("CondensationSummaryEvent (environment)\n  user: Previous summary content")
      expect(condenser.events().map((e) => e.text)).toContain("Updated summary")
    }))

  it("test_invalid_config: max_size positive, keep_first under max_size // 2", () => {
    expect(OpenHands.problem({ maxSize: 0, keepFirst: 4 })).toContain("max_size must be positive")
    expect(OpenHands.problem({ maxSize: 80, keepFirst: -1 })).toContain("keep_first must not be negative")
    expect(OpenHands.problem({ maxSize: 10, keepFirst: 8 })).toContain("leave room for condensation")
    expect(OpenHands.problem({ maxSize: 80, keepFirst: 4 })).toBeUndefined()
    expect(() => OpenHands.make(scripted([]).service, { ...settings(10, 8), contextWindow: 100 })).toThrow(/keep_first/)
  })

  it("test_condense_with_token_limit_exceeded: the tokens reason alone, forgetting down to half of max_tokens", () => {
    const events = messages(15, () => "A".repeat(40))
    const options = settings(1000, 2, 100)
    expect(OpenHands.reasons(events, options, false)).toEqual(new Set(["tokens"]))
    const range = OpenHands.forgetting(events, new Set(["tokens"]), options)!
    expect(range.start).toBe(2)
    const kept = [...events.slice(0, range.start), ...events.slice(range.end)]
    expect(OpenHands.tokens(kept)).toBeLessThanOrEqual(50)
    // The fewest forgotten: one event fewer would leave more than half of max_tokens.
    expect(OpenHands.tokens([...events.slice(0, 2), ...events.slice(range.end - 1)])).toBeGreaterThan(50)
  })

  it("test_condense_with_request_and_events_reasons: the strictest tail, 25 - 2 - 7 = 16 forgotten", () => {
    const range = OpenHands.forgetting(messages(25), new Set(["request", "events"]), settings(20, 2))!
    expect(range).toEqual({ start: 2, end: 18 })
  })

  it("test_most_aggressive_condensation_chosen: 40 - 2 - 12 = 26 forgotten", () => {
    const range = OpenHands.forgetting(messages(40), new Set(["request", "events"]), settings(30, 2))!
    expect(range.end - range.start).toBe(26)
  })

  it.effect("a request past the context window asks for a condensation of half the view, and nothing is sent past it", () =>
    Effect.gen(function*() {
      const llm = scripted(["s"])
      const condenser = OpenHands.make(llm.service, { ...settings(80, 4), contextWindow: 300 })
      for (let i = 0; i < 30; i++) {
        yield* condenser.push(user(`Event ${i} ${"word ".repeat(20)}`))
        expect(OpenHands.tokens(condenser.events())).toBeLessThanOrEqual(300)
      }
      expect(llm.prompts.length).toBeGreaterThan(0)
      expect(condenser.events()[4]!.kind).toBe("summary")
    }))

  it.effect("no range to forget with a request pending: the whole view is summarized (hard_context_reset)", () =>
    Effect.gen(function*() {
      const llm = scripted(["reset"])
      const condenser = OpenHands.make(llm.service, { ...settings(80, 4), contextWindow: 300 })
      // Each turn ~100 tokens: the first over the window is the third or the fourth, all within keep_first.
      let pushed = 0
      while (llm.prompts.length === 0) yield* condenser.push(user(`Event ${pushed++} ${"word ".repeat(80)}`))
      expect(pushed).toBeLessThanOrEqual(4)
      expect(condenser.events().map((e) => [e.kind, e.text])).toEqual([["summary", "reset"]])
      for (let i = 0; i < pushed; i++) expect(llm.prompts[0]).toContain(`user: Event ${i} word`)
    }))
})

describe("the OpenHands port: where it may cut (test_view_manipulation_indices.py)", () => {
  const indices = (events: ReadonlyArray<View.Event>) => View.manipulationIndices(events)
  it("test_empty_list, test_multiple_message_events", () => {
    expect(indices([])).toEqual(new Set([0]))
    expect(indices(messages(3))).toEqual(new Set([0, 1, 2, 3]))
  })
  it("test_action_observation_with_message_events", () => {
    expect(indices([message("Before", 0), action("r1", "c1"), observation("c1"), message("After", 1)])).toEqual(new Set([0, 1, 3, 4]))
  })
  it("test_batch_of_actions_simple", () => {
    const events = [action("r1", "c1"), action("r1", "c2"), action("r1", "c3"), observation("c1"), observation("c2"), observation("c3")]
    expect(indices(events)).toEqual(new Set([0, 6]))
  })
  it("test_multiple_separate_batches: a run of actions and observations is one unit", () => {
    const events = [
      action("r1", "c1"), action("r1", "c2"), observation("c1"), observation("c2"),
      action("r2", "c3"), action("r2", "c4"), observation("c3"), observation("c4")
    ]
    // The stored version of the SDK test expects {0, 4, 8} (batches alone); with ToolLoopAtomicityProperty, in
    // ALL_PROPERTIES, the two batches are one run of actions and observations: {0, 8}.
    expect(indices(events)).toEqual(new Set([0, 8]))
  })
  it("test_complex_interleaved_scenario", () => {
    const events = [
      message("Message 1", 1), action("r1", "call_1"), action("r1", "call_2"), observation("call_1"),
      message("Message 2", 2), observation("call_2"), message("Message 3", 3), action("r2", "call_3"), observation("call_3")
    ]
    expect(indices(events)).toEqual(new Set([0, 1, 6, 7, 9]))
  })
  it("test_enforce_properties_invalidates_cached_indices: an action without its result is not in the view", () => {
    const all = [message("Message 1", 1), message("Message 2", 2), action("r1", "tool_call_1")]
    expect(View.view(all, new Set(), undefined).map((e) => e.id)).toEqual(["m1", "m2"])
  })
  it("a batch is in the view whole or not at all (BatchAtomicityProperty.enforce)", () => {
    const all = [action("r1", "c1"), action("r1", "c2"), observation("c1")]
    expect(View.view(all, new Set(), undefined)).toEqual([])
    expect(View.view([...all, observation("c2")], new Set(), undefined)).toHaveLength(4)
  })
})

describe("the OpenHands port: what its summarizer reads (event previews)", () => {
  it("a message's preview is cut to 497 characters and '...', a tool output's to 500 and '...'", () => {
    expect(View.preview(message("x".repeat(600), 0))).toBe(`MessageEvent (user)\n  user: ${"x".repeat(497)}...`)
    expect(View.preview({ ...observation("c1"), text: "y".repeat(501) })).toBe(
      `ObservationEvent (environment)\n  Tool: terminal\n  Result: ${"y".repeat(500)}...`
    )
    expect(View.preview(action("r1", "c1"))).toBe("ActionEvent (agent)\n  Thought: calling c1\n  Action: TerminalAction")
  })
  it("a Claude Code session's turns: parallel calls written one per entry are one batch", () => {
    const call = (id: string) =>
      ConversationTurn.make({ role: "assistant", content: `[tool_call Bash] ${id}`, metadata: { toolCalls: [{ id, name: "Bash", arguments: "{}" }] } })
    const result = (id: string) => ConversationTurn.make({ role: "tool", content: `out ${id}`, metadata: { toolCallId: id } })
    const a = View.fromTurn(call("A"), 0)
    const b = View.fromTurn(call("B"), 1, call("A"), a[0]!.responseId)
    expect(b[0]!.responseId).toBe(a[0]!.responseId)
    expect(View.fromTurn(result("A"), 2, call("B"))[0]!.callIds).toEqual(["A"])
  })
})
