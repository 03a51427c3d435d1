import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as CompactionOptions from "../src/CompactionOptions.js"
import * as FreshTail from "../src/FreshTail.js"
import * as Chunking from "../src/internal/chunking.js"
import * as Trigger from "../src/internal/trigger.js"

const turn = (role: string, metadata?: Record<string, unknown>) => (metadata === undefined ? { role } : { role, metadata })

describe("chunk", () => {
  const size = (n: number) => n

  it("fills a chunk up to exactly the limit, then starts the next", () => {
    expect(Chunking.chunk([4, 6, 5, 5], size, 10)).toEqual([[4, 6], [5, 5]])
    expect(Chunking.chunk([4, 6, 1], size, 10)).toEqual([[4, 6], [1]])
  })

  it("puts an oversized item in a chunk of its own", () => {
    expect(Chunking.chunk([3, 25, 2], size, 10)).toEqual([[3], [25], [2]])
    expect(Chunking.chunk([25], size, 10)).toEqual([[25]])
  })

  it("never starts a chunk with a sticky item (a tool result): its call moves along", () => {
    type Item = readonly [size: number, sticky: boolean]
    const chunks = (items: ReadonlyArray<Item>, limit: number) =>
      Chunking.chunk(items, ([n]) => n, limit, ([, s]) => s).map((c) => c.map(([n, s]) => (s ? `r${n}` : `${n}`)))
    expect(chunks([[4, false], [3, false], [4, true]], 10)).toEqual([["4"], ["3", "r4"]])
    expect(chunks([[4, false], [3, false], [2, true], [4, true]], 10)).toEqual([["4"], ["3", "r2", "r4"]])
    // Only the call and its results: the chunk grows past the limit.
    expect(chunks([[6, false], [3, true], [4, true], [1, false]], 10)).toEqual([["6", "r3", "r4"], ["1"]])
    // A sticky item first in the pass has no call to keep.
    expect(chunks([[8, true], [4, true]], 10)).toEqual([["r8", "r4"]])
    expect(chunks([[4, false], [4, false], [4, false]], 10)).toEqual([["4", "4"], ["4"]])
  })

  it("merges a chunk under minTokens whole into its smaller neighbour", () => {
    // The trailing [1] merges back; a small first chunk merges forward.
    expect(Chunking.chunk([4, 6, 1], size, 10, undefined, 3)).toEqual([[4, 6, 1]])
    expect(Chunking.chunk([2, 9, 9], size, 10, undefined, 3)).toEqual([[2, 9], [9]])
    // In the middle, the smaller neighbour takes it (the previous one on a tie).
    expect(Chunking.chunk([9, 2, 8], size, 10, undefined, 3)).toEqual([[9], [2, 8]])
    expect(Chunking.chunk([8, 2, 9], size, 10, undefined, 3)).toEqual([[8, 2], [9]])
    expect(Chunking.chunk([8, 2, 8], size, 10, undefined, 3)).toEqual([[8, 2], [8]])
    // A lone small chunk stays; chunks at minTokens or over stay apart.
    expect(Chunking.chunk([1], size, 10, undefined, 3)).toEqual([[1]])
    expect(Chunking.chunk([7, 3, 7], size, 10, undefined, 3)).toEqual([[7, 3], [7]])
    expect(Chunking.chunk([7, 4, 7], size, 10, undefined, 3)).toEqual([[7], [4], [7]])
  })

  it("never separates a call from its result when merging small chunks", () => {
    type Item = readonly [number, boolean]
    const chunks = (items: ReadonlyArray<Item>) =>
      Chunking.chunk(items, ([n]) => n, 10, ([, s]) => s, 4).map((c) => c.map(([n, s]) => (s ? `r${n}` : `${n}`)))
    expect(chunks([[9, false], [1, false], [1, true], [9, false]])).toEqual([["9", "1", "r1"], ["9"]])
    expect(chunks([[1, false], [1, true], [9, false], [9, false]])).toEqual([["1", "r1", "9"], ["9"]])
  })

  it("minLeafMaterial is 400, or half a smaller limit", () => {
    expect(Chunking.minLeafMaterial(20_000)).toBe(400)
    expect(Chunking.minLeafMaterial(1000)).toBe(400)
    expect(Chunking.minLeafMaterial(500)).toBe(250)
    expect(Chunking.minLeafMaterial(30)).toBe(15)
  })

  it("keeps parallel calls and their results in one chunk, pairing by call id", () => {
    // Claude Code writes each parallel call as a turn of its own, then the results: c1 c2 r1 r2.
    type Item = { readonly name: string; readonly tokens: number; readonly call?: string; readonly answers?: string }
    const items: ReadonlyArray<Item> = [
      { name: "say", tokens: 5 },
      { name: "c1", tokens: 2, call: "t1" },
      { name: "c2", tokens: 2, call: "t2" },
      { name: "r1", tokens: 2, answers: "t1" },
      { name: "r2", tokens: 4, answers: "t2" }
    ]
    const chunks = (pairs: boolean) =>
      Chunking.chunk(items, (i) => i.tokens, 12, (i) => i.answers !== undefined, 0, {
        pairs: pairs
          ? { calls: (i) => i.call === undefined ? [] : [i.call], answers: (i) => i.answers === undefined ? [] : [i.answers] }
          : undefined
      }).map((c) => c.map((i) => i.name))
    // By position only, r1 leaves its call behind (the material then reads `read ? (24 lines)`).
    expect(chunks(false)).toEqual([["say", "c1"], ["c2", "r1", "r2"]])
    expect(chunks(true)).toEqual([["say"], ["c1", "c2", "r1", "r2"]])
  })

  it("measures a chunk too small to stand alone by its weight when one is given", () => {
    // Two turns of 10 tokens each whose material is one line: by tokens they stand alone, by weight they merge.
    const items = [{ tokens: 10, weight: 1 }, { tokens: 10, weight: 1 }, { tokens: 10, weight: 9 }, { tokens: 10, weight: 9 }]
    expect(Chunking.chunk(items, (i) => i.tokens, 10, undefined, 4).length).toBe(4)
    expect(Chunking.chunk(items, (i) => i.tokens, 10, undefined, 4, { weight: (i) => i.weight }).map((c) => c.length)).toEqual([3, 1])
  })

  it("yields no chunk for no items and keeps order", () => {
    expect(Chunking.chunk([], size, 10)).toEqual([])
    expect(Chunking.chunk([1, 2, 3, 4], size, 3).flat()).toEqual([1, 2, 3, 4])
  })
})

describe("groupSizes", () => {
  it("covers everything in as few, even groups as the bounds allow", () => {
    expect(Chunking.groupSizes(4, 4, 8)).toEqual([4])
    expect(Chunking.groupSizes(8, 4, 8)).toEqual([8])
    expect(Chunking.groupSizes(9, 4, 8)).toEqual([5, 4])
    expect(Chunking.groupSizes(17, 4, 8)).toEqual([6, 6, 5])
    expect(Chunking.groupSizes(11, 2, 2)).toEqual([2, 2, 2, 2, 2])
  })

  it("leaves fewer than minFanIn when it cannot cover everything", () => {
    expect(Chunking.groupSizes(3, 4, 8)).toEqual([])
    expect(Chunking.groupSizes(7, 4, 5)).toEqual([5])
    expect(Chunking.groupSizes(11, 4, 5)).toEqual([5, 5])
    expect(Chunking.groupSizes(14, 4, 5)).toEqual([5, 5, 4])
  })

  it("respects the bounds for every count", () => {
    for (let min = 2; min <= 6; min++) {
      for (let max = min; max <= 12; max++) {
        for (let n = 0; n <= 80; n++) {
          const sizes = Chunking.groupSizes(n, min, max)
          const covered = sizes.reduce((a, b) => a + b, 0)
          expect(sizes.every((s) => s >= min && s <= max)).toBe(true)
          expect(n - covered).toBeGreaterThanOrEqual(0)
          expect(n - covered).toBeLessThan(min)
          if (max >= 2 * min - 1 && n >= min) expect(covered).toBe(n)
        }
      }
    }
  })
})

describe("tailStart", () => {
  const plain = Array.from({ length: 5 }, (_, i) => turn(i % 2 === 0 ? "user" : "assistant"))

  it("keeps the newest freshTailTurns turns", () => {
    expect(FreshTail.start(plain, 0)).toBe(5)
    expect(FreshTail.start(plain, 1)).toBe(4)
    expect(FreshTail.start(plain, 5)).toBe(0)
    expect(FreshTail.start(plain, 6)).toBe(0)
  })

  it("moves the boundary before the call when the tail would start with its result", () => {
    const turns = [turn("user"), turn("assistant"), turn("tool"), turn("tool"), turn("assistant")]
    expect(FreshTail.start(turns, 1)).toBe(4)
    expect(FreshTail.start(turns, 2)).toBe(1)
    expect(FreshTail.start(turns, 3)).toBe(1)
    expect(FreshTail.start([turn("tool"), turn("tool")], 1)).toBe(0)
  })

  it("an empty tail has no boundary to protect", () => {
    expect(FreshTail.start([turn("assistant"), turn("tool")], 0)).toBe(2)
  })

  describe("calls in flight", () => {
    const call = (...ids: Array<string>) => ({
      role: "assistant",
      metadata: { toolCalls: ids.map((id) => ({ id, name: "Read", arguments: "{}" })) }
    })
    const answer = (id: string) => ({ role: "tool", metadata: { toolCallId: id } })
    const user = { role: "user" }

    it("a call whose result has not arrived is not summarized without it, however small the tail", () => {
      expect(FreshTail.inFlight([user, call("c0")])).toBe(1)
      expect(FreshTail.start([user, call("c0")], 0)).toBe(1)
      // Parallel calls in one turn, or a turn each, one answered: the whole group waits.
      expect(FreshTail.start([user, call("c0", "c1"), answer("c0")], 0)).toBe(1)
      expect(FreshTail.start([user, call("c0"), call("c1"), answer("c1")], 0)).toBe(1)
      // With a token bound too: the tail never starts past the calls in flight.
      expect(FreshTail.start([user, call("c0"), call("c1")], 0, { max: 0, tokens: () => 1 })).toBe(1)
    })

    it("answered calls, and calls whose result never came before the conversation went on, wait for nothing", () => {
      expect(FreshTail.inFlight([user, call("c0"), answer("c0")])).toBe(3)
      expect(FreshTail.start([user, call("c0", "c1"), answer("c1"), answer("c0")], 0)).toBe(4)
      expect(FreshTail.start([call("c0"), user, call("c1"), answer("c1")], 0)).toBe(4)
      expect(FreshTail.inFlight([call("c0"), user])).toBe(2)
    })
  })
})

describe("nextToCondense", () => {
  it("picks the lowest depth with at least minFanIn siblings, keeping their order", () => {
    const nodes = [{ depth: 1, id: "a" }, { depth: 0, id: "b" }, { depth: 1, id: "c" }, { depth: 0, id: "d" }, {
      depth: 1,
      id: "e"
    }]
    expect(Chunking.nextToCondense(nodes, 3)).toEqual({ depth: 1, siblings: [nodes[0], nodes[2], nodes[4]] })
    expect(Chunking.nextToCondense(nodes, 2)?.siblings.map((n) => n.id)).toEqual(["b", "d"])
    expect(Chunking.nextToCondense(nodes, 4)).toBeUndefined()
  })

  it("condenseGroups leaves the remainder out", () => {
    expect(Chunking.condenseGroups([1, 2, 3, 4, 5, 6, 7], 2, 3)).toEqual([[1, 2, 3], [4, 5], [6, 7]])
    expect(Chunking.condenseGroups([1, 2, 3], 4, 8)).toEqual([])
  })
})

describe("status", () => {
  const turns = [{ role: "user" }, { role: "assistant" }, { role: "tool" }, { role: "user" }]
  const opts = { threshold: 0.5, freshTailTurns: 2, minFanIn: 2 }

  it("fires strictly above threshold * budget, only with something to compact", () => {
    // The tail boundary moves before the tool result: one evictable turn.
    expect(Trigger.status({ tokens: 51, turns, summaries: [] }, 100, opts)).toEqual({
      activeTokens: 51,
      limit: 50,
      evictableTurns: 1,
      condensable: false,
      shouldCompact: true
    })
    expect(Trigger.status({ tokens: 50, turns, summaries: [] }, 100, opts).shouldCompact).toBe(false)
    expect(Trigger.status({ tokens: 99, turns: turns.slice(2), summaries: [] }, 100, opts).shouldCompact).toBe(false)
    const condensable = Trigger.status({ tokens: 99, turns: [], summaries: [{ depth: 0 }, { depth: 0 }] }, 100, opts)
    expect([condensable.condensable, condensable.shouldCompact]).toEqual([true, true])
  })

  it("evictable is everything before the tail", () => {
    expect(Chunking.evictable(turns, 2)).toEqual([turns[0]])
    expect(Chunking.evictable(turns, 0)).toEqual(turns)
  })
})

describe("tailStart with a token bound", () => {
  const t = (role: string) => ({ role })
  const tokens = (turn: { readonly role: string }) => (turn.role === "tool" ? 100 : 10)
  it("keeps the newest turns that fit, never starting on a tool result", () => {
    const turns = [t("user"), t("assistant"), t("tool"), t("assistant"), t("tool"), t("assistant")]
    // By turns alone the tail is everything; 115 tokens hold the last two turns, moved later past no result.
    expect(FreshTail.start(turns, 16)).toBe(0)
    expect(FreshTail.start(turns, 16, { max: 115, tokens })).toBe(4 + 1)
    expect(FreshTail.start(turns, 16, { max: 120, tokens })).toBe(3)
    expect(FreshTail.start(turns, 16, { max: 0, tokens })).toBe(6)
    // The turn count still bounds it when it is the smaller tail.
    expect(FreshTail.start(turns, 1, { max: 1000, tokens })).toBe(5)
  })
})

describe("FreshTail.tokensFor", () => {
  it("is a quarter of the budget clamped to 1,000..32,000, never over the budget", () => {
    expect(FreshTail.tokensFor(32_000)).toBe(8_000)
    expect(FreshTail.tokensFor(2_000)).toBe(1_000)
    expect(FreshTail.tokensFor(500)).toBe(500)
    expect(FreshTail.tokensFor(1_000_000)).toBe(32_000)
    const resolved = CompactionOptions.resolveOptions({ budget: 32_000 })
    expect(Either.getOrThrow(resolved).freshTailTokens).toBe(8_000)
    expect(Either.getOrThrow(CompactionOptions.resolveOptions({})).freshTailTokens).toBeUndefined()
    expect(Either.isLeft(CompactionOptions.resolveOptions({ lowWater: 0 }))).toBe(true)
  })
})

describe("bounded", () => {
  const t = (role: string) => ({ role })
  const items = [t("user"), t("assistant"), t("tool"), t("tool"), t("user"), t("assistant")]
  it("keeps the oldest max turns, all of them without a bound", () => {
    expect(Chunking.bounded(items, undefined)).toEqual(items)
    expect(Chunking.bounded(items, 10)).toEqual(items)
    expect(Chunking.bounded(items, 5)).toEqual(items.slice(0, 5))
  })
  it("never separates tool results from their call", () => {
    // Cutting after 3 would leave the second result out: the cut moves before the call.
    expect(Chunking.bounded(items, 3)).toEqual(items.slice(0, 1))
    expect(Chunking.bounded(items, 4)).toEqual(items.slice(0, 4))
  })
  it("moves past the results when cutting before the call would leave nothing", () => {
    const leading = [t("assistant"), t("tool"), t("tool"), t("user")]
    expect(Chunking.bounded(leading, 1)).toEqual(leading.slice(0, 3))
  })
})
