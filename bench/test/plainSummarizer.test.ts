import { Provider, Summarizer } from "@precis/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as plain from "../src/internal/plainSummarizer.js"
import * as Synthetic from "../src/Synthetic.js"

// The overhead baseline must do the same work as the Summarizer: same tiers,
// same texts, same requests.
describe("the plain async/await baseline", () => {
  const turns = Synthetic.session(300, { seed: 1 })
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["short reply: normal", ["  Fixed it.  "]],
    ["too long, then short: aggressive", ["x".repeat(5000), "Short."]],
    ["blank twice: fallback", ["  ", "\n"]]
  ]
  for (const [name, replies] of cases) {
    it.effect(`matches the Summarizer on ${name}`, () =>
      Effect.gen(function*() {
        const effectRequests: Array<Provider.ChatRequest> = []
        const plainRequests: Array<Provider.ChatRequest> = []
        let i = 0
        let j = 0
        const summarizer = yield* Summarizer.make().pipe(
          Effect.provideService(Provider.Provider, {
            name: "scripted",
            chat: (request) => Effect.sync(() => (effectRequests.push(request), { text: replies[i++] ?? "" }))
          })
        )
        const expected = yield* summarizer.summarizeTurns(turns, { targetTokens: 50 })
        const baseline = plain.make({
          chat: (request) => (plainRequests.push(request), Promise.resolve({ text: replies[j++] ?? "" }))
        })
        const actual = yield* Effect.promise(() => baseline.summarizeTurns(turns, { targetTokens: 50 }))
        expect(actual).toEqual(expected)
        expect(plainRequests).toEqual(effectRequests)
        expect(baseline.tierCounts()).toEqual(yield* summarizer.tierCounts)
      }))
  }
})
