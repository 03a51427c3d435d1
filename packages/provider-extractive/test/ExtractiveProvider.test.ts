import { assert, describe, expect, it } from "@effect/vitest"
import {
  ConversationTurn,
  Material,
  OutputDigest,
  Provider,
  SessionState,
  Summarizer,
  SummaryRecord,
  SummaryTask,
  TokenEstimator,
  Transcript
} from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { Arbitraries, Fixtures } from "@precis/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"

const estimator = TokenEstimator.approximate
const ts = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString()

const filler = (i: number) =>
  `It is a pleasant afternoon and everybody seems to be in a rather good mood about things today, number ${"abcdefghij"[i % 10]}.`

/** A session with facts scattered between long filler turns. */
const session = (): ReadonlyArray<ConversationTurn.ConversationTurn> => {
  const turns: Array<ConversationTurn.ConversationTurn> = []
  let m = 0
  const add = (role: string, content: string) => turns.push(Fixtures.turn(role, content, { timestamp: ts(m++) }))
  add("user", "Please fix the crash when loading config and add a --verbose flag.")
  for (let i = 0; i < 6; i++) add("assistant", `${filler(i)} ${filler(i + 1)}`)
  add("assistant", "$ npm test -- src/config/loader.test.ts")
  for (let i = 0; i < 6; i++) add("assistant", `${filler(i + 2)} ${filler(i + 3)}`)
  add("tool", "TypeError: Cannot read properties of undefined (reading 'port') at loadConfig (src/config/loader.ts:42:17)")
  for (let i = 0; i < 6; i++) add("assistant", `${filler(i + 4)} ${filler(i + 5)}`)
  add("assistant", "Fixed: loader.ts now falls back to DEFAULT_PORT when `server` is missing; all tests pass.")
  for (let i = 0; i < 6; i++) add("assistant", `${filler(i + 6)} ${filler(i + 7)}`)
  return turns
}

const leafTask = (
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  targetTokens = 1200
): Provider.SummaryTask => ({ kind: "leaf", turns: turns, targetTokens })

describe("extract", () => {
  it("is deterministic for the same input", () => {
    const task = leafTask(session(), 200)
    const first = ExtractiveProvider.extract(task, estimator)
    assert.isAbove(first.length, 0)
    assert.strictEqual(ExtractiveProvider.extract({ ...task }, estimator), first)
  })

  it.prop("is deterministic and within budget for any turns", [
    Arbitraries.turns({ maxLength: 30 }).filter((turns) => turns.length > 0),
    FastCheck.constantFrom("leaf" as const, "condense" as const, "aggressive" as const),
    FastCheck.integer({ min: 2, max: 400 })
  ], ([turns, kind, targetTokens]) => {
    const task: Provider.SummaryTask = kind === "condense"
      ? { kind, summaries: [{ depth: 0, content: Transcript.formatTurns(turns) }], targetTokens }
      : { kind, turns, targetTokens }
    const material = SummaryTask.material(task)
    const out = ExtractiveProvider.extract(task, estimator)
    assert.strictEqual(ExtractiveProvider.extract(task, estimator), out)
    const input = estimator.estimate(material)
    if (out.length > 0) {
      assert.isAtMost(estimator.estimate(out), ExtractiveProvider.budget(task, input))
      if (kind === "aggressive") assert.isBelow(estimator.estimate(out), targetTokens)
      else if (input >= 2) assert.isBelow(estimator.estimate(out), input)
    }
  })

  it("cuts a condensation less than a leaf: its material is what the leaves already chose", () => {
    const turns = [{ role: "user", content: "x".repeat(4000) }]
    const summaries = [{ depth: 0, content: "x".repeat(4000) }]
    assert.strictEqual(ExtractiveProvider.budget({ kind: "leaf", turns, targetTokens: 2000 }, 1000), 300)
    assert.strictEqual(ExtractiveProvider.budget({ kind: "condense", summaries, targetTokens: 2000 }, 1000), 600)
    assert.strictEqual(ExtractiveProvider.budget({ kind: "condense", summaries, targetTokens: 500 }, 1000), 500)
    assert.strictEqual(ExtractiveProvider.budget({ kind: "condense", summaries, targetTokens: 2000 }, 1000, { condenseRatio: 0.3 }), 300)
  })

  it("keeps a normal reply well under its input and within targetTokens", () => {
    const task = leafTask(session(), 100_000)
    const input = estimator.estimate(SummaryTask.material(task))
    const out = ExtractiveProvider.extract(task, estimator)
    assert.isAtMost(estimator.estimate(out), Math.floor(input * 0.3))
    const small = ExtractiveProvider.extract({ ...task, targetTokens: 50 }, estimator)
    assert.isAtMost(estimator.estimate(small), 50)
  })

  it("keeps a condense reply shorter than its input", () => {
    const summaries = [0, 1, 2, 3].map((i) =>
      Fixtures.summary({
        id: `s${i}`,
        content: Transcript.formatTurns(session().slice(i * 5, i * 5 + 8)),
        timeRangeStart: ts(i * 5),
        timeRangeEnd: ts(i * 5 + 7)
      })
    )
    const material = Transcript.renderSummaries(summaries)
    const out = ExtractiveProvider.extract({ kind: "condense", summaries, targetTokens: 2000 }, estimator)
    assert.isAbove(out.length, 0)
    assert.isBelow(estimator.estimate(out), estimator.estimate(material) * 0.31)
    // Summary headers are structure, not content.
    assert.notInclude(out, "[Summary 1")
  })

  it("keeps an aggressive reply strictly under targetTokens", () => {
    const turns = session()
    for (const target of [2, 5, 17, 60, 300]) {
      const out = ExtractiveProvider.extract({ kind: "aggressive", turns, targetTokens: target }, estimator)
      assert.isAbove(out.trim().length, 0)
      assert.isBelow(estimator.estimate(out), target, `target ${target}`)
    }
  })

  it("prefers paths, commands, errors and the user's request over filler", () => {
    const turns = session()
    const out = ExtractiveProvider.extract(leafTask(turns, 160), estimator)
    expect(out).toContain("npm test -- src/config/loader.test.ts")
    expect(out).toContain("TypeError: Cannot read properties of undefined")
    expect(out).toContain("falls back to DEFAULT_PORT")
    expect(out).toContain("add a --verbose flag")
    expect(out).not.toContain("pleasant afternoon")
  })

  it("keeps chronological order and the turn prefixes", () => {
    const out = ExtractiveProvider.extract(leafTask(session(), 160), estimator)
    const positions = ["--verbose flag", "npm test --", "TypeError:", "DEFAULT_PORT"].map((s) => out.indexOf(s))
    assert.deepStrictEqual(positions.slice().sort((a, b) => a - b), positions)
    assert.isTrue(positions.every((p) => p >= 0))
    // The first prefix has the date; later ones of the same day only the time.
    expect(out).toContain("[2025-01-01T09:00] user: Please fix the crash")
    expect(out).toMatch(/^\[09:\d\d\] tool: TypeError/m)
    expect(out).not.toMatch(/\d\d:\d\d:\d\d\]/)
    // Turns left out get no line of their own.
    expect(out).not.toMatch(/^\[…\]$/m)
  })

  it("gives a chosen continuation line its turn's prefix", () => {
    const turns = [
      Fixtures.turn("assistant", `${filler(1)}\n${filler(2)}\nThe failing file is src/server/routes.ts`, { timestamp: ts(3) }),
      ...Array.from({ length: 10 }, (_, i) => Fixtures.turn("assistant", filler(i) + filler(i + 3), { timestamp: ts(4 + i) }))
    ]
    const out = ExtractiveProvider.extract(leafTask(turns, 30), estimator)
    expect(out).toContain("[2025-01-01T09:03] assistant: The failing file is src/server/routes.ts")
  })

  it("removes exact and near-duplicate lines", () => {
    const turns = [
      Fixtures.turn("user", "Run the tests in packages/api please.", { timestamp: ts(0) }),
      ...Array.from({ length: 8 }, (_, i) =>
        Fixtures.turn("tool", `WARN deprecated option --legacy-peer-deps used at 2025-01-01T09:0${i}:00 (pid ${1000 + i})`, {
          timestamp: ts(i + 1)
        })),
      ...Array.from({ length: 4 }, (_, i) =>
        Fixtures.turn("assistant", "Error: ENOENT: no such file or directory, open 'packages/api/.env'", { timestamp: ts(i + 10) }))
    ]
    const task: Provider.SummaryTask = { kind: "aggressive", turns: turns, targetTokens: 10_000 }
    const out = ExtractiveProvider.extract(task, estimator)
    assert.strictEqual(out.split("deprecated option --legacy-peer-deps").length - 1, 1)
    assert.strictEqual(out.split("ENOENT").length - 1, 1)
    expect(out).toContain("Run the tests in packages/api")
  })

  it("keeps only the errors and facts of a long tool output's middle, marking the cut", () => {
    // Distinct words per line, so that no line is a near-duplicate of another.
    const word = (i: number) => String.fromCharCode(97 + (i % 26)) + String.fromCharCode(97 + Math.floor(i / 26))
    const lines = Array.from({ length: 120 }, (_, i) => `  ✓ test case ${word(i)} passes`)
    lines[2] = "  ✓ test case loads fixtures/users.json"
    lines[60] = "  AssertionError: expected 3 to equal 4 at test/math.test.ts:61"
    lines[70] = "  ✓ test case reads fixtures/orders.json"
    const turns = [
      Fixtures.turn("user", "Run the math suite.", { timestamp: ts(0) }),
      Fixtures.turn("tool", lines.join("\n"), { timestamp: ts(1) }),
      Fixtures.turn("assistant", "One assertion fails in test/math.test.ts; fixing it.", { timestamp: ts(2) })
    ]
    // A budget larger than the whole material: only the cut can remove lines.
    const task: Provider.SummaryTask = { kind: "aggressive", turns: turns, targetTokens: 100_000 }
    const out = ExtractiveProvider.extract(task, estimator)
    expect(out).toContain("AssertionError: expected 3 to equal 4")
    expect(out).toContain("fixtures/users.json")
    expect(out).toContain("fixtures/orders.json")
    for (const i of [10, 30, 59, 61, 90, 110]) expect(out).not.toContain(`test case ${word(i)} passes`)
    expect(out).toMatch(/\n  … {3}AssertionError/)
    assert.isBelow(out.length, SummaryTask.material(task).length / 4)
  })

  it("does not let one long tool output crowd out the rest of the conversation", () => {
    const letter = (i: number) => String.fromCharCode(97 + (i % 26))
    const errors = Array.from(
      { length: 40 },
      (_, i) => `src/module${letter(i)}${i}/index.ts(${i + 3},5): error TS2${300 + i}: Type '${letter(i)}x' is not assignable`
    )
    const turns = [
      Fixtures.turn("user", "Make the build pass.", { timestamp: ts(0) }),
      Fixtures.turn("tool", errors.join("\n"), { timestamp: ts(1) }),
      Fixtures.turn("assistant", "Decided to pin typescript to 5.4.5 in package.json; the errors come from the 5.5 upgrade.", {
        timestamp: ts(2)
      }),
      Fixtures.turn("assistant", "Reverted src/types/legacy.d.ts to the version from main.", { timestamp: ts(3) })
    ]
    const task: Provider.SummaryTask = { kind: "aggressive", turns: turns, targetTokens: 150 }
    const out = ExtractiveProvider.extract(task, estimator)
    expect(out).toContain("user: Make the build pass.")
    expect(out).toContain("pin typescript to 5.4.5")
    expect(out).toContain("Reverted src/types/legacy.d.ts")
    expect(out).toContain("error TS2300")
  })

  it("counts a fact once: under a tight budget, new facts beat repeats of kept ones", () => {
    const turns = [
      Fixtures.turn("user", "Why does the export fail?", { timestamp: ts(0) }),
      Fixtures.turn("tool", "ZodError in src/routes/export.ts at line 41 (request 7731)", { timestamp: ts(1) }),
      Fixtures.turn("assistant", "So src/routes/export.ts fails with a ZodError at line 41, as request 7731 shows.", {
        timestamp: ts(2)
      }),
      Fixtures.turn("assistant", "Pinned zod to 3.23.8 in package.json; `pnpm test` passes.", { timestamp: ts(3) }),
      ...Array.from({ length: 8 }, (_, i) => Fixtures.turn("assistant", filler(i), { timestamp: ts(4 + i) }))
    ]
    const out = ExtractiveProvider.extract(leafTask(turns, 70), estimator)
    expect(out).toContain("ZodError in src/routes/export.ts at line 41")
    expect(out).toContain("zod to 3.23.8 in package.json")
    // The repeat adds no fact that is not kept already.
    expect(out).not.toContain("So src/routes/export.ts fails")
    expect(out).not.toContain("pleasant afternoon")
  })

  it("keeps rows that differ only in their numbers (they are not near-duplicates)", () => {
    const rows = ["| 2.5 | .766 | 4.9 | .528 |", "| 2.6 | .725 | 5.1 | .511 |", "| 2.8 | .693 | 5.3 | .497 |"]
    const turns = [
      Fixtures.turn("assistant", `Multipliers by cut-off:\n${rows.join("\n")}`, { timestamp: ts(0) }),
      ...Array.from({ length: 4 }, (_, i) =>
        Fixtures.turn("tool", `WARN deprecated option --legacy-peer-deps used (pid ${1000 + i})`, { timestamp: ts(1 + i) }))
    ]
    const task: Provider.SummaryTask = { kind: "aggressive", turns: turns, targetTokens: 10_000 }
    const out = ExtractiveProvider.extract(task, estimator)
    for (const row of rows) expect(out).toContain(row)
    // Lines with words besides their numbers still are near-duplicates.
    assert.strictEqual(out.split("--legacy-peer-deps").length - 1, 1)
  })

  it("marks a gap inside a turn with an ellipsis, and gives turns left out no line of their own", () => {
    const body = Array.from({ length: 12 }, (_, i) => `${filler(i)}`)
    body[1] = "The config lives in src/config/defaults.ts"
    body[9] = "Port 8080 is taken by the dev proxy"
    const turns = [
      Fixtures.turn("assistant", body.join("\n"), { timestamp: ts(0) }),
      ...Array.from({ length: 4 }, (_, i) => Fixtures.turn("assistant", filler(i + 3), { timestamp: ts(1 + i) })),
      Fixtures.turn("user", "Use port 8081 instead.", { timestamp: ts(6) })
    ]
    const out = ExtractiveProvider.extract(leafTask(turns, 60), estimator)
    expect(out).toContain("[2025-01-01T09:00] assistant: The config lives in src/config/defaults.ts\n  … Port 8080 is taken")
    expect(out).toMatch(/Port 8080 is taken by the dev proxy\n\[09:06\] user: Use port 8081 instead\./)
    for (const line of out.split("\n")) expect(OutputDigest.isOmission(line.replace(/^\[[^\]]+\] \w+: |^ {2}(?:… )?/, ""))).toBe(false)
  })

  it("cuts a line that cannot fit whole at a word or path boundary, never inside a token", () => {
    // The leaf of one large read is one line of material (a real session's shape).
    const turns = [{
      role: "tool",
      content: "read /home/USER/projects/spotter-worktrees/spotter-4te/mix.exs (120 lines)",
      timestamp: "2026-02-12T14:12:22"
    }]
    for (const targetTokens of [8, 12, 16, 20]) {
      const out = ExtractiveProvider.extract({ kind: "aggressive", turns, targetTokens }, estimator)
      assert.isBelow(estimator.estimate(out), targetTokens)
      if (out.endsWith("(120 lines)")) continue
      // Cut: an ellipsis right after a whole word or a path's directory of the line.
      expect(out.endsWith("…")).toBe(true)
      const kept = out.slice(out.indexOf(" tool:") + 1, -1)
      const line = `tool: ${turns[0]!.content}`
      expect(line.startsWith(kept)).toBe(true)
      expect(kept.endsWith("/") || line[kept.length] === " ").toBe(true)
    }
  })

  it("takes the material's own omission marks for structure: a summary never shows both […] and [… N lines]", () => {
    // Neighbours differ in more than a number, so the digest folds no run and marks what it leaves out.
    const ext = ["ex", "exs", "erl"]
    const output = Array.from({ length: 60 }, (_, i) => (i === 30 ? "Error: port 8080 in use" : `compiling module ${i} of 60 (.${ext[i % 3]})`))
    const args = JSON.stringify({ command: "mix compile" })
    const turns = [
      Fixtures.turn("user", "Build the project and tell me what fails.", { timestamp: ts(0) }),
      Fixtures.turn("assistant", `[tool_call Bash] ${args}`, {
        timestamp: ts(1),
        metadata: { toolCalls: [{ id: "c1", name: "Bash", arguments: args }] }
      }),
      Fixtures.turn("tool", output.join("\n"), { timestamp: ts(2), metadata: { toolCallId: "c1" } }),
      ...Array.from({ length: 6 }, (_, i) => Fixtures.turn("assistant", filler(i), { timestamp: ts(3 + i) }))
    ]
    const contents = Material.renderContents(turns)
    const items = turns.map((turn, i) => ({ ...turn, content: contents[i]! }))
    expect(contents.join("\n")).toMatch(/\[… \d+ lines\]/)
    for (const targetTokens of [40, 80, 400]) {
      const out = ExtractiveProvider.extract({ kind: "leaf", turns: items, targetTokens }, estimator)
      expect(out).toContain("Error: port 8080 in use")
      expect(out).not.toMatch(/\[… \d+ lines?\]/)
    }
  })

  it("keeps the opening of the first request even when short fact lines compete", () => {
    const request = "Please make the nightly export resumable: when the job dies halfway it should pick up " +
      "where it stopped instead of starting over, and tell me how you tested it."
    // Many short tool outputs, each line a fact or two for a few characters.
    const turns = [
      Fixtures.turn("user", request, { timestamp: ts(0) }),
      ...Array.from({ length: 20 }, (_, t) =>
        Fixtures.turn("tool", Array.from({ length: 10 }, (_, i) => `${1000 + t * 70 + i * 7}: v${t}_${i}`).join("\n"), {
          timestamp: ts(1 + t)
        }))
    ]
    const out = ExtractiveProvider.extract(leafTask(turns, 400), estimator)
    expect(out).toContain("make the nightly export resumable")
  })

  it("takes the first request as the header does: the user's words, not a harness's command echo before them", () => {
    const request = "Please make the nightly export resumable: when the job dies halfway it should pick up " +
      "where it stopped instead of starting over, and tell me how you tested it."
    const turns = [
      Fixtures.turn("user", "<command-name>/clear</command-name>", { timestamp: ts(0) }),
      Fixtures.turn("user", request, { timestamp: ts(1) }),
      ...Array.from({ length: 20 }, (_, t) =>
        Fixtures.turn("tool", Array.from({ length: 10 }, (_, i) => `${1000 + t * 70 + i * 7}: v${t}_${i}`).join("\n"), {
          timestamp: ts(2 + t)
        }))
    ]
    assert.strictEqual(SessionState.fold(turns).firstRequest?.text, request)
    const out = ExtractiveProvider.extract(leafTask(turns, 400), estimator)
    expect(out).toContain("make the nightly export resumable")
  })

  it("down-weights lines the prior summary already holds", () => {
    const fact = "Decided to keep the cache in src/cache/lru.ts and bump MAX_ENTRIES to 512."
    const other = "Decided to move the retry policy into src/http/retry.ts with a 250 ms backoff."
    const turns = [
      Fixtures.turn("assistant", fact, { timestamp: ts(0) }),
      Fixtures.turn("assistant", other, { timestamp: ts(1) }),
      ...Array.from({ length: 6 }, (_, i) => Fixtures.turn("assistant", filler(i), { timestamp: ts(2 + i) }))
    ]
    const base = leafTask(turns, 25)
    const withPrior = ExtractiveProvider.extract({ ...base, priorSummary: `[2025-01-01T08:00:00] assistant: ${fact}` }, estimator)
    expect(withPrior).toContain("src/http/retry.ts")
    expect(withPrior).not.toContain("src/cache/lru.ts")
  })

  it("splits very long lines into sentences", () => {
    const sentence = (i: number) => `Sentence ${i} talks about the weather and nothing else at all, really nothing.`
    const long = Array.from({ length: 20 }, (_, i) => (i === 13 ? "The bug is in lib/parse.py line 88." : sentence(i))).join(" ")
    const out = ExtractiveProvider.extract(leafTask([Fixtures.turn("assistant", long, { timestamp: ts(0) })], 60), estimator)
    expect(out).toContain("The bug is in lib/parse.py line 88.")
    expect(out).toContain("…")
  })

  it("reads a text task's text as it reads a child summary's: a rendered leaf gives the leaf's summary", () => {
    const turns = session()
    const text = Transcript.formatTurns(turns)
    for (const targetTokens of [60, 200]) {
      expect(ExtractiveProvider.extract({ kind: "leaf", text, targetTokens }, estimator))
        .toBe(ExtractiveProvider.extract({ kind: "leaf", turns, targetTokens }, estimator))
    }
  })

  it("returns an empty text for blank material", () => {
    assert.strictEqual(ExtractiveProvider.extract({ kind: "condense", summaries: [{ depth: 0, content: " \n\n " }], targetTokens: 10 }, estimator), "")
  })
})

describe("layer", () => {
  const run = <A, E>(effect: Effect.Effect<A, E, Provider.Provider>) =>
    Effect.provide(effect, ExtractiveProvider.layer())

  it.effect("answers from the task, with usage estimates, under the name \"extractive\"", () =>
    run(Effect.gen(function*() {
      const provider = yield* Provider.Provider
      assert.strictEqual(provider.name, "extractive")
      const task = leafTask(session(), 160)
      const response = yield* provider.chat({ messages: [{ role: "user", content: "ignored" }], temperature: 0.2, maxTokens: 10, task })
      assert.strictEqual(response.text, ExtractiveProvider.extract(task, estimator))
      assert.deepStrictEqual(response.usage, {
        inputTokens: estimator.estimate(SummaryTask.material(task)),
        outputTokens: estimator.estimate(response.text)
      })
    })))

  it.effect("fails with a BadRequestError when the request has no task", () =>
    run(Effect.gen(function*() {
      const provider = yield* Provider.Provider
      const error = yield* Effect.flip(
        provider.chat({ messages: [{ role: "user", content: "summarize this" }], temperature: 0.2, maxTokens: 10 })
      )
      assert.strictEqual(error._tag, "BadRequestError")
      expect(error.message).toContain("needs a structured `task`")
    })))

  it.effect("uses the TokenEstimator in context", () =>
    Effect.gen(function*() {
      // One token per word: a different budget than the default estimator's.
      const words: TokenEstimator.Service = {
        estimate: (text) => Math.max(1, text.split(/\s+/).filter((w) => w.length > 0).length),
        truncate: (text, max) => text.split(/(?<=\s)/).slice(0, Math.max(0, max)).join("")
      }
      const provider = yield* Effect.provide(
        ExtractiveProvider.make(),
        TokenEstimator.layer(words)
      )
      const task: Provider.SummaryTask = { kind: "aggressive", turns: session(), targetTokens: 40 }
      const response = yield* provider.chat({ messages: [], temperature: 0.1, maxTokens: 10, task })
      assert.isBelow(words.estimate(response.text), 40)
      assert.strictEqual(response.text, ExtractiveProvider.extract(task, words))
      assert.notStrictEqual(response.text, ExtractiveProvider.extract(task, estimator))
    }))
})

describe("with the Summarizer", () => {
  const SummarizerLive = Summarizer.layer().pipe(Layer.provide(ExtractiveProvider.layer()))

  it.effect("summarizes turns and summaries at tier \"normal\"", () =>
    Effect.gen(function*() {
      const summarizer = yield* Summarizer.Summarizer
      const turns = session()
      const leaf = yield* summarizer.summarizeTurns(turns, { targetTokens: 300 })
      assert.strictEqual(leaf.tier, "normal")
      assert.isBelow(leaf.outputTokens, leaf.inputTokens)
      expect(leaf.text).toContain("TypeError")
      const summaries = [leaf.text, leaf.text.replace(/TypeError/g, "RangeError")].map((content, i) =>
        SummaryRecord.make({ id: `s${i}`, depth: 0, content })
      )
      const condensed = yield* summarizer.summarizeSummaries(summaries)
      assert.strictEqual(condensed.tier, "normal")
      assert.deepStrictEqual(yield* summarizer.tierCounts, { normal: 2, aggressive: 0, fallback: 0 })
    }).pipe(Effect.provide(SummarizerLive)))

  it.effect("reaches tier \"normal\" on a generated conversation", () =>
    Effect.gen(function*() {
      const summarizer = yield* Summarizer.Summarizer
      const turns = Fixtures.conversation(200, {
        content: (i) => i % 9 === 0 ? `ran \`pytest tests/test_${i}.py\` -> FAILED test_${i}` : `message ${i} about the plan for step ${i}`
      })
      const summary = yield* summarizer.summarizeTurns(turns)
      assert.strictEqual(summary.tier, "normal")
      expect(summary.text).toContain("pytest tests/test_0.py")
    }).pipe(Effect.provide(SummarizerLive)))
})
