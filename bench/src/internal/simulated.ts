/**
 * A simulated LLM for compaction benchmarks: a fixed latency (a real sleep),
 * a reply whose size is proportional to the requested target (capped under
 * the material so the normal tier keeps it), and counters of calls and of the
 * tokens sent.
 */
import { Prompt, Provider, SummaryTask, TokenEstimator } from "@precis/core"
import * as Effect from "effect/Effect"

/** Calls made and tokens sent (the estimate of every message of every request). */
export interface Counters {
  calls: number
  inputTokens: number
  leafCalls: number
  condenseCalls: number
}

/** The provider and its live counters. */
export interface Simulated {
  readonly service: Provider.Service
  readonly counters: Counters
}

/**
 * A provider that waits `latencyMs` (0: answers at once) and replies with
 * `replyRatio` (default 0.5) of the target; or, with `materialShare`, with the
 * first `materialShare` of its material whatever the target (a model that
 * keeps what it read first).
 */
export const make = (
  options: { readonly latencyMs: number; readonly replyRatio?: number; readonly materialShare?: number }
): Simulated => {
  const estimator = TokenEstimator.approximate
  const ratio = options.replyRatio ?? 0.5
  const counters: Counters = { calls: 0, inputTokens: 0, leafCalls: 0, condenseCalls: 0 }
  const service = Provider.Provider.of({
    name: "simulated",
    chat: (request) =>
      Effect.suspend(() => {
        counters.calls++
        // What is sent: the messages (a summary task's rendered as its prompt).
        for (const m of Prompt.messages(request)) counters.inputTokens += estimator.estimate(m.content)
        const task = request.task
        if (task?.kind === "condense") counters.condenseCalls++
        else counters.leafCalls++
        const material = task === undefined ? request.messages.at(-1)?.content ?? "" : SummaryTask.material(task)
        const materialTokens = estimator.estimate(material)
        const target = task?.targetTokens ?? 1200
        const tokens = options.materialShare === undefined
          ? Math.max(1, Math.min(Math.ceil(target * ratio), Math.floor(materialTokens / 2)))
          : Math.max(1, Math.floor(materialTokens * options.materialShare))
        const text = estimator.truncate(material, tokens).trim() || "summary"
        const reply = { text, usage: { inputTokens: materialTokens, outputTokens: estimator.estimate(text) } }
        return options.latencyMs > 0 ? Effect.as(Effect.sleep(options.latencyMs), reply) : Effect.succeed(reply)
      })
  })
  return { service, counters }
}
