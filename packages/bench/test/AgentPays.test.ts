import { TokenEstimator } from "@precis/core"
import { describe, expect, it } from "@effect/vitest"
import * as AgentPays from "../src/AgentPays.js"

describe("what an agent pays", () => {
  it("labelTokens: the tokens of each turn line's `[time] role: ` head, nothing of contents or other lines", () => {
    const text = "Summary of the earlier conversation:\n[2026-02-12T16:02:25] user: fix [it]\n  more: text\n[16:02:31] assistant: done"
    const estimate = TokenEstimator.approximate.estimate
    expect(AgentPays.labelTokens(text)).toBe(estimate("[2026-02-12T16:02:25] user: ") + estimate("[16:02:31] assistant: "))
    expect(AgentPays.labelTokens("user: no bracket, no label")).toBe(0)
  })
})
