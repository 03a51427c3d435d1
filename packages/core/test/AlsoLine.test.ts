import { describe, expect, it } from "@effect/vitest"
import * as AlsoLine from "../src/AlsoLine.js"
import * as FactCheck from "../src/FactCheck.js"
import * as TokenEstimator from "../src/TokenEstimator.js"
import * as Transcript from "../src/Transcript.js"

// The text of the summary with its Also line.
const append = (...args: Parameters<typeof AlsoLine.append>): string => AlsoLine.append(...args).text

describe("AlsoLine.append", () => {
  const estimator = TokenEstimator.approximate
  const { dropped } = FactCheck.check(
    "[?] tool: $ pnpm test\n  3 failed: RangeError in src/money.ts and src/vat.ts",
    "Tests ran."
  )

  it("appends the most important dropped keys that belong there as one Also line (a count does not)", () => {
    expect(append("Tests ran.", dropped, estimator, { maxTokens: 100 })).toBe(
      "Tests ran.\nAlso: RangeError; pnpm test; src/money.ts; src/vat.ts"
    )
  })

  it("lists paths, identifiers, error names, issue ids and commands run; not results, commands only mentioned, nor links of a tool's help", () => {
    // Shapes of a real session's material: a command run with its comment, an npm hint, credo's help, an exit status.
    const material = [
      "[2026-02-11T21:32] assistant: $ mix credo --strict 2>&1  # Run credo strict",
      "[2026-02-11T21:32] tool: exit 2",
      "  Run `npm fund` for details; see https://github.com/rrrene/credo/issues",
      "  ** (KeyError) key :secret_key_base not found in lib/spotter_web/endpoint.ex",
      "[2026-02-11T21:33] assistant: Fixed spotter-4te.1 with `Phoenix.Ecto.SQL.Sandbox`; the regex [A-Z0-9-] is unrelated."
    ].join("\n")
    const { dropped: all } = FactCheck.check(material, "nothing")
    const line = append("nothing", all, estimator, { maxTokens: 500 })
    expect(line).toBe(
      "nothing\nAlso: KeyError; mix credo --strict; spotter-4te.1; lib/spotter_web/endpoint.ex; Phoenix.Ecto.SQL.Sandbox"
    )
    // They are still keys of the fact check.
    expect(all.map((f) => f.text)).toEqual(expect.arrayContaining(["exit 2", "npm fund", "https://github.com/rrrene/credo/issues"]))
    expect(all.map((f) => f.text)).not.toContain("Z0-9")
  })

  it("keeps one Also line: those the text holds (a condensation's children's) merge into it, their keys returned", () => {
    const text = "[Summary 1] did x\nAlso: lib/a.ex; mix test\nmore\nAlso: lib/b.ex"
    expect(AlsoLine.append(text, [], estimator, { maxTokens: 100 })).toEqual({
      text: "[Summary 1] did x\nmore\nAlso: lib/a.ex; mix test; lib/b.ex",
      keys: ["lib/a.ex", "mix test", "lib/b.ex"]
    })
    const facts: ReadonlyArray<FactCheck.Fact> = [
      { kind: "path", text: "lib/a.ex", importance: 3 },
      { kind: "path", text: "lib/c.ex", importance: 3 }
    ]
    expect(AlsoLine.append(text, facts, estimator, { maxTokens: 100 })).toEqual({
      text: "[Summary 1] did x\nmore\nAlso: lib/a.ex; mix test; lib/b.ex; lib/c.ex",
      keys: ["lib/a.ex", "mix test", "lib/b.ex", "lib/c.ex"]
    })
    expect(AlsoLine.append("x\nAlso: a.ex", [], estimator, { maxTokens: 100 })).toEqual({ text: "x\nAlso: a.ex", keys: ["a.ex"] })
  })

  it("drops a kept key the text itself holds (the fact check would not miss it), and the line with its last key", () => {
    const text = "[Summary 1] edited lib/a.ex, ran mix test\nAlso: lib/a.ex; lib/b.ex\nmore\nAlso: mix test"
    expect(AlsoLine.append(text, [], estimator, { maxTokens: 100 })).toEqual({
      text: "[Summary 1] edited lib/a.ex, ran mix test\nmore\nAlso: lib/b.ex",
      keys: ["lib/b.ex"]
    })
    expect(AlsoLine.append("ran mix test\nAlso: mix test", [], estimator, { maxTokens: 100 })).toEqual({ text: "ran mix test", keys: [] })
    expect(AlsoLine.append("ran mix test\nAlso: mix test; lib/c.ex", [], estimator, { maxTokens: 100 }))
      .toEqual({ text: "ran mix test\nAlso: lib/c.ex", keys: ["lib/c.ex"] })
  })

  it("never goes past maxTokens: it takes the keys that fit, and none when none does", () => {
    const text = "Tests ran."
    for (let maxTokens = 1; maxTokens <= 25; maxTokens++) {
      const out = append(text, dropped, estimator, { maxTokens })
      if (out !== text) expect(estimator.estimate(out)).toBeLessThanOrEqual(maxTokens)
    }
    expect(append(text, dropped, estimator, { maxTokens: 3 })).toBe(text)
    // 8 tokens hold `Also: RangeError` but not the longer keys after it.
    expect(append(text, dropped, estimator, { maxTokens: 8 })).toBe("Tests ran.\nAlso: RangeError")
  })

  it("skips a key that one already on the line contains, and stops at maxKeys", () => {
    const facts: ReadonlyArray<FactCheck.Fact> = [
      { kind: "path", text: "src/app.ts", importance: 3 },
      { kind: "path", text: "app.ts", importance: 3 },
      { kind: "path", text: "b.ts", importance: 3 },
      { kind: "path", text: "c.ts", importance: 3 }
    ]
    expect(append("x", facts, estimator, { maxTokens: 100, maxKeys: 2 })).toBe("x\nAlso: src/app.ts; b.ts")
  })

  it("never puts a plain word on the line, and at most two commands of one program and subcommand", () => {
    const facts: ReadonlyArray<FactCheck.Fact> = [
      { kind: "identifier", text: "done", importance: 3 },
      { kind: "command", text: "git add lib/a.ex", importance: 3, source: "run" },
      { kind: "command", text: "git add lib/b.ex", importance: 3, source: "run" },
      { kind: "command", text: "git add lib/c.ex", importance: 3, source: "run" },
      { kind: "command", text: "git commit -m wip", importance: 3, source: "run" },
      { kind: "identifier", text: "CURL_ARGS", importance: 3 }
    ]
    expect(append("x", facts, estimator, { maxTokens: 100 })).toBe(
      "x\nAlso: git add lib/a.ex; git add lib/b.ex; git commit -m wip; CURL_ARGS"
    )
  })

  it("leaves the text alone when nothing was dropped", () => {
    expect(append("Tests ran.", [], estimator, { maxTokens: 100 })).toBe("Tests ran.")
  })

  it("the Also line follows the summary's lines and opens no turn of its own", () => {
    const summary = "[2025-01-01T00:00:00] tool: ran the tests\n  3 failed"
    const withAlso = append(summary, dropped, estimator, { maxTokens: 100 })
    expect(withAlso.startsWith(`${summary}\n${AlsoLine.prefix}`)).toBe(true)
    expect(Transcript.turnHead(withAlso.split("\n").at(-1)!)).toBeUndefined()
  })
})

describe("AlsoLine.keysOf (a summary stored before its keys were data)", () => {
  it("reads the keys of the Also line at the end of a summary's text, once", () => {
    expect(AlsoLine.keysOf("Tests ran.\nAlso: pnpm test; src/app.ts")).toEqual(["pnpm test", "src/app.ts"])
    expect(AlsoLine.keysOf("Also: only")).toEqual(["only"])
    expect(AlsoLine.keysOf("Also: a; b\nthen more")).toEqual([])
    expect(AlsoLine.keysOf("no line")).toEqual([])
  })

  it("gives back the keys the line was written from", () => {
    const keys = ["KeyError", "mix credo --strict", "lib/spotter_web/endpoint.ex"]
    expect(AlsoLine.keysOf(`body\n${AlsoLine.line(keys)}`)).toEqual(keys)
  })
})
