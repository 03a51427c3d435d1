import { assert, describe, expect, it } from "@effect/vitest"
import { greedy, initial } from "../src/internal/select.js"
import { ConversationTurn, type Provider, SummaryTask, TokenEstimator } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { Fixtures } from "@precis/testing"
import { isState, isSyntax } from "../src/internal/score.js"

const estimator = TokenEstimator.approximate
const ts = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString()

/** A 200-line Elixir module as Claude Code's Read tool shows it: `   N→code`. */
const numberedRead = (lines = 200): string =>
  Array.from({ length: lines }, (_, i) => {
    const code = i % 5 === 0
      ? `  def handle_${i}(state), do: Spotter.Worker.call_${i}(state)`
      : i % 5 === 1
      ? "  end"
      : i % 5 === 2
      ? "    }"
      : i % 5 === 3
      ? ""
      : `    value_${i} = compute(${i})`
    return `${String(i + 1).padStart(6)}→${code}`
  }).join("\n")

const leaf = (turns: ReadonlyArray<ConversationTurn.ConversationTurn>, targetTokens: number): Provider.SummaryTask => ({
  kind: "leaf",
  turns: turns,
  targetTokens
})

/** A line of the output without its turn prefix or leading ellipsis. */
const body = (line: string): string => line.replace(/^\[[^\]]+\] [^:]+: /, "").replace(/^\s*(?:… )?/, "")

describe("line numbers", () => {
  it("keeps a status update and no numbered line out of a 200-line numbered file read", () => {
    const turns = [
      Fixtures.turn("user", "Implement spotter-x", { timestamp: ts(0) }),
      Fixtures.turn("assistant", "[tool_call Read] {\"file_path\":\"lib/spotter/worker.ex\"}", { timestamp: ts(1) }),
      Fixtures.turn("tool", numberedRead(), { timestamp: ts(2) }),
      Fixtures.turn("assistant", "$ bd update spotter-x --status in_progress", { timestamp: ts(3) }),
      Fixtures.turn("tool", "✓ Updated issue: spotter-x", { timestamp: ts(4) })
    ]
    const out = ExtractiveProvider.extract(leaf(turns, 300), estimator)
    expect(out).toContain("bd update spotter-x --status in_progress")
    expect(out).not.toMatch(/\d→/)
    expect(out).not.toMatch(/^\s*(?:… )?\d+\s*$/m)
  })
})

describe("syntax-only lines", () => {
  it("recognizes brackets, end, else and closing tags, and nothing with a word of content", () => {
    for (const line of ["  end", "    }", "});", "  } else {", "</div>", "do", "", "   ", "]", "end)"]) {
      assert.isTrue(isSyntax(line), line)
    }
    for (const line of ["  :ok", "No", "end of file reached", "return x", "}) // fixed"]) {
      assert.isFalse(isSyntax(line), line)
    }
  })

  it("never chooses a syntax-only line, however cheap", () => {
    const turns = [
      Fixtures.turn("user", "Add the worker", { timestamp: ts(0) }),
      Fixtures.turn("tool", numberedRead(60), { timestamp: ts(1) })
    ]
    for (const target of [40, 120, 400]) {
      const out = ExtractiveProvider.extract(leaf(turns, target), estimator)
      for (const line of out.split("\n")) assert.isFalse(isSyntax(body(line)) && line !== "[…]", `${target}: ${line}`)
    }
  })
})

describe("state changes", () => {
  it("recognizes status updates, test results, commits and pushes", () => {
    for (
      const line of [
        "bd update spotter-gqc --status in_progress",
        "✓ Closed spotter-gqc.1: Closed",
        "14 doctests, 65 tests, 0 failures",
        "Tests: 3 passed, 1 failed",
        "      Tests  130 passed (130)",
        " ✓ test/a.test.ts (4 tests | 1 failed) 187ms",
        "[main 1a2b3c4] fix the loader",
        "git push origin spotter-gqc",
        "PR merged"
      ]
    ) assert.isTrue(isState(line), line)
    for (
      const line of [
        "def handle(state), do: state",
        "Let me read the file",
        "value_12 = compute(12)",
        "test \"excludes closed annotations\" do",
        // One file of a run that passed: its count is part of the totals.
        " ✓ test/services/vat.test.ts (21 tests) 73ms"
      ]
    ) {
      assert.isFalse(isState(line), line)
    }
  })

  it("keeps a test result from the middle of a long output over its code lines", () => {
    const output = [
      ...Array.from({ length: 40 }, (_, i) => `compiling lib/spotter/module_${i}.ex with Spotter.Module${i}.init/1`),
      "Finished in 0.4 seconds",
      "14 doctests, 65 tests, 0 failures",
      ...Array.from({ length: 40 }, (_, i) => `  Spotter.Helper${i}.call/2 at lib/spotter/helper_${i}.ex`)
    ].join("\n")
    const turns = [
      Fixtures.turn("user", "Run the tests", { timestamp: ts(0) }),
      Fixtures.turn("assistant", "$ mix test", { timestamp: ts(1) }),
      Fixtures.turn("tool", output, { timestamp: ts(2) })
    ]
    const out = ExtractiveProvider.extract(leaf(turns, 120), estimator)
    expect(out).toContain("14 doctests, 65 tests, 0 failures")
  })
})

/** A tool turn at a short time (`09:10`), as a leaf's item. */
const tool = (timestamp: string, content: string): SummaryTask.Turn => ({ role: "tool", content, timestamp })

const WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa " +
  "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basil cedar dune").split(" ")

describe("prose share", () => {
  // Fact-dense tool output around a little prose: without a share for it, the
  // paths and identifiers win on facts per character.
  const turns = [
    Fixtures.turn("user", "Make the review page list open annotations per project", { timestamp: ts(0) }),
    ...Array.from({ length: 6 }, (_, k) =>
      Fixtures.turn(
        "tool",
        Array.from({ length: 30 }, (_, i) => `lib/${WORDS[k]}/${WORDS[i]}.ex: ${WORDS[k]}.${WORDS[(i + k) % 30]}Worker.run/2`)
          .join("\n"),
        { timestamp: ts(1 + 2 * k) }
      )),
    Fixtures.turn("assistant", "The review page should group annotations by project, so I will add a query for that.", {
      timestamp: ts(20)
    }),
    Fixtures.turn("user", "Also show how many of them are still open in the header please", { timestamp: ts(21) }),
    Fixtures.turn("assistant", "I will count the open ones in the same query and show the total in the header.", {
      timestamp: ts(22)
    })
  ]

  it("gives the user's requests and the assistant's prose a share of the budget", () => {
    const out = ExtractiveProvider.extract(leaf(turns, 200), estimator)
    expect(out).toContain("list open annotations per project")
    expect(out).toContain("still open in the header")
    expect(out).toMatch(/group annotations by project|count the open ones in the same query/)
  })

  it("is an option: with no share, the same budget goes to the facts of the tool output", () => {
    const out = ExtractiveProvider.extract(leaf(turns, 200), estimator, { proseShare: 0 })
    expect(out).not.toMatch(/group annotations by project|count the open ones in the same query/)
    assert.strictEqual(ExtractiveProvider.defaults.proseShare, 0.3)
  })

  it("prefers the assistant's recent prose to older prose of the same worth", () => {
    const said = (what: string) => `The ${what} comes next: it decides what the session view shows to the reviewer.`
    const recency = [
      Fixtures.turn("user", "Review the spotter modules", { timestamp: ts(0) }),
      Fixtures.turn("assistant", said("annotation renderer"), { timestamp: ts(1) }),
      ...turns.slice(1, 7),
      Fixtures.turn("assistant", said("transcript watcher"), { timestamp: ts(40) })
    ]
    const out = ExtractiveProvider.extract(leaf(recency, 120), estimator)
    expect(out).toContain("transcript watcher")
    expect(out).not.toContain("annotation renderer")
  })

  it("gives no prose share to what the harness wrote into a user turn", () => {
    const injected = [
      ...turns,
      Fixtures.turn("user", "<task-notification>\n<task-id>b0be39e</task-id> <status>completed</status> background command finished", {
        timestamp: ts(31)
      }),
      Fixtures.turn("user", "[Request interrupted by user for tool use] while the background command was still running", {
        timestamp: ts(32)
      })
    ]
    const out = ExtractiveProvider.extract(leaf(injected, 200), estimator)
    expect(out).not.toContain("task-notification")
    expect(out).not.toContain("Request interrupted")
    expect(out).toContain("still open in the header")
  })

  it("leaves out a meaningless short reply", () => {
    const withNo = [...turns, Fixtures.turn("assistant", "No", { timestamp: ts(30) })]
    const out = ExtractiveProvider.extract(leaf(withNo, 200), estimator)
    expect(out).not.toMatch(/assistant: No$/m)
  })
})

describe("condensation", () => {
  const leafSummary = (minute: number, id: string, code: string) =>
    [
      `[09:${minute}] user: Work on ${id}`,
      `[09:${minute + 1}] tool: ✓ Updated issue: ${id} (status in_progress)`,
      ...Array.from({ length: 12 }, (_, i) => `  …   Spotter.${code}${i}.handle_event(socket, params_${i}) in lib/${code}_${i}.ex`),
      `[09:${minute + 5}] tool: ${minute + 10} tests, 0 failures`,
      `[09:${minute + 6}] tool: ✓ Closed ${id}: Closed`
    ].join("\n")
  const summaries = [
    { depth: 0, content: leafSummary(10, "spotter-a1", "Alpha") },
    { depth: 0, content: leafSummary(30, "spotter-b2", "Beta") }
  ]
  const condense = (targetTokens: number): Provider.SummaryTask => ({ kind: "condense", summaries, targetTokens })

  it("keeps the leaves' state lines before their code lines", () => {
    const out = ExtractiveProvider.extract(condense(200), estimator)
    for (const line of ["Updated issue: spotter-a1", "Closed spotter-a1", "20 tests, 0 failures", "Updated issue: spotter-b2", "Closed spotter-b2", "40 tests, 0 failures"]) {
      expect(out).toContain(line)
    }
  })

  it("keeps the newest leaf's state first when there is room for little", () => {
    const out = ExtractiveProvider.extract(condense(40), estimator)
    expect(out).toContain("Closed spotter-b2")
    expect(out).not.toContain("Closed spotter-a1")
  })
})

describe("state recency and condensation share", () => {
  const stateLines = (n: number, more = "") =>
    Array.from({ length: n }, (_, i) => tool(`09:${10 + i}`, `✓ Closed spotter-${WORDS[i]}: Closed${more}`))
  const codeLines = Array.from({ length: 30 }, (_, i) =>
    tool(`10:${10 + i}`, `lib/${WORDS[i]}/${WORDS[(i + 7) % 30]}.ex: ${WORDS[i]}.${WORDS[(i + 3) % 30]}Worker.run/2`))

  it("scores the newer of two changes of state higher, without any share", () => {
    const turns = [stateLines(2)[0]!, ...codeLines.slice(0, 10), stateLines(2)[1]!]
    const out = ExtractiveProvider.extract({ kind: "leaf", turns, targetTokens: 18 }, estimator, {
      stateShare: 0,
      proseShare: 0
    })
    expect(out).toContain("Closed spotter-bravo")
    expect(out).not.toContain("Closed spotter-alpha")
  })

  it("gives changes of state a larger share in a condensation than in a leaf", () => {
    const turns = [...codeLines, ...stateLines(12, ", the reviewed annotation work on this part is now complete")]
    // The same lines as a leaf's turns and as a child summary's text.
    const text = SummaryTask.material({ kind: "leaf", turns, targetTokens: 150 })
    const count = (task: Provider.SummaryTask) =>
      ExtractiveProvider.extract(task, estimator).split("Closed spotter-").length - 1
    assert.isAbove(
      count({ kind: "condense", summaries: [{ depth: 0, content: text }], targetTokens: 150 }),
      count({ kind: "leaf", turns, targetTokens: 150 })
    )
  })
})

describe("determinism", () => {
  it("gives the same text for the same material and options, across budgets", () => {
    const turns = [
      Fixtures.turn("user", "Implement spotter-x", { timestamp: ts(0) }),
      Fixtures.turn("tool", numberedRead(), { timestamp: ts(1) }),
      Fixtures.turn("assistant", "Now the status: bd update spotter-x --status in_progress", { timestamp: ts(2) }),
      Fixtures.turn("tool", "3 tests, 0 failures", { timestamp: ts(3) })
    ]
    for (const target of [20, 100, 400]) {
      const task = leaf(turns, target)
      const first = ExtractiveProvider.extract(task, estimator)
      assert.isAbove(first.length, 0)
      assert.strictEqual(ExtractiveProvider.extract({ ...task, turns: [...turns] }, estimator), first)
    }
  })
})

describe("greedy", () => {
  // Ten candidates: candidate i holds fact i % 4, costs 10 + i, and gains 1 for a fact not yet covered.
  const scoring = (floor: (s: number) => number = (s) => 10 + s) => {
    const covered = new Set<number>()
    const looked: Array<number> = []
    return {
      gain: (s: number) => {
        looked.push(s)
        return covered.has(s % 4) ? 0 : 1
      },
      cost: (s: number) => 10 + s,
      choose: (s: number) => {
        covered.add(s % 4)
        return []
      },
      floor,
      looked
    }
  }
  const candidates = [9, 3, 7, 1, 5, 0, 8, 2, 6, 4]

  it("takes the best gain per cost that fits, from a start shared by runs under other budgets", () => {
    const start = initial(candidates, scoring())
    // A heap: the best first (the cheapest of equal gains, ties to the earlier segment).
    expect(start.item[0]).toBe(0)
    const choose = (budget: number) => {
      const run = greedy(10, start, scoring())
      run.fill(budget)
      return Array.from(run.chosen.keys()).filter((s) => run.chosen[s] === 1)
    }
    expect(choose(46)).toEqual([0, 1, 2, 3])
    expect(choose(35)).toEqual([0, 1, 2])
    // The runs did not consume the start.
    expect(choose(46)).toEqual([0, 1, 2, 3])
    expect(start.size).toBe(10)
  })
  it("looks at no candidate that cannot fit, and chooses as if it did", () => {
    const start = initial(candidates, scoring())
    const bounded = scoring()
    const run = greedy(10, start, bounded)
    // Less budget than any cost: nothing is scored, everything waits.
    bounded.looked.length = 0
    expect(run.fill(9)).toBe(0)
    expect(bounded.looked).toEqual([])
    // With room for candidate 0 and no other, only what could fit is scored.
    expect(run.fill(12)).toBe(10)
    expect([...new Set(bounded.looked)].sort()).toEqual([0, 1, 2])
    // The same choices as with a floor that bounds nothing.
    const loose = greedy(10, start, scoring(() => 1))
    loose.fill(9)
    loose.fill(12)
    expect(Array.from(loose.chosen)).toEqual(Array.from(run.chosen))
  })
})
