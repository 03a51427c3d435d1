import { describe, expect, it } from "@effect/vitest"
import * as AlsoLine from "../src/AlsoLine.js"
import * as FactCheck from "../src/FactCheck.js"
import * as Transcript from "../src/Transcript.js"

const texts = (facts: ReadonlyArray<FactCheck.Fact>) => facts.map((f) => f.text)
const kinds = (facts: ReadonlyArray<FactCheck.Fact>) => Object.fromEntries(facts.map((f) => [f.text, f.kind]))

describe("FactCheck.keys", () => {
  it("finds each kind of key, with its kind", () => {
    const material = [
      "[2025-01-01T10:00:00] user: Close spotter-4te, then #123 and PROJ-12.",
      "[2025-01-01T10:01:00] tool: $ mix test test/app_test.exs",
      "  12 tests, 0 failures",
      "[2025-01-01T10:02:00] tool: TypeError: x is undefined in src/app.ts (ENOENT, ERR_MODULE_NOT_FOUND, TS2304)",
      "  exit code 1",
      "[2025-01-01T10:03:00] assistant: Renamed `parseLine()` in package.json; see https://example.com/docs/a."
    ].join("\n")
    expect(kinds(FactCheck.keys(material))).toEqual({
      "spotter-4te": "issue",
      "#123": "issue",
      "PROJ-12": "issue",
      "mix test test/app_test.exs": "command",
      // the path inside a command is a key of its own too
      "test/app_test.exs": "path",
      "12 tests": "result",
      "0 failures": "result",
      TypeError: "error",
      "src/app.ts": "path",
      ENOENT: "error",
      ERR_MODULE_NOT_FOUND: "error",
      TS2304: "error",
      "exit code 1": "result",
      "parseLine()": "identifier",
      "package.json": "path",
      "https://example.com/docs/a": "path"
    })
  })

  it("never lists line numbers, lone numbers, timestamps or prose words", () => {
    const material = [
      "[2025-03-14T09:03:32] tool:    264→  end",
      "       11\t  }",
      "  42:  const x = 1",
      "  The total was 1,234.57 on line 42 after 3 retries; and/or UTF-8, sha-256.",
      "[Summary 1, depth 0, 2025-03-14T09:00:00 to 2025-03-14T10:00:00]",
      "Nothing else here."
    ].join("\n")
    expect(FactCheck.keys(material)).toEqual([])
  })

  it("takes a test run's totals as results, not the count of each file that passed", () => {
    const texts = FactCheck.keys(
      "[?] tool: ✓ test/services/vat.test.ts (21 tests) 73ms\n  ❯ test/pdf.test.ts (4 tests | 1 failed)\n  Tests  1 failed | 129 passed (130)"
    ).filter((k) => k.kind === "result").map((k) => k.text)
    expect([...texts].sort()).toEqual(["1 failed", "129 passed", "4 tests"])
  })

  it("keeps line-number prefixes out of the keys of a listing line", () => {
    expect(texts(FactCheck.keys("[?] tool:   7→import { a } from \"./lib/util.ts\""))).toEqual(["./lib/util.ts"])
  })

  it("reads a command from tool-call JSON whole, and from a code span", () => {
    const facts = FactCheck.keys(
      "[?] assistant: {\"command\": \"git commit -m \\\"fix: totals\\\"\"} then `pnpm exec tsc -b`"
    )
    expect(kinds(facts)).toEqual({ "git commit -m \"fix: totals\"": "command", "pnpm exec tsc -b": "command" })
  })

  it("reads a command line run as its simple commands: no pipe into a filter, no redirection, nothing that says nothing", () => {
    const material = [
      "[?] assistant: $ mix test --seed 0 2>&1 | tail -30  # Run the tests",
      "[?] assistant: $ bash -n hooks/a.sh && echo \"ok\"; git status",
      "[?] assistant: $ source lib/trace.sh; \\ ↵ spotter_rand_hex 16",
      "[?] assistant: {\"command\": \"cd /repo && pnpm build 2>/dev/null\\nnpm test\"}"
    ].join("\n")
    const commands = FactCheck.keys(material).filter((f) => f.kind === "command").map((f) => f.text)
    expect([...commands].sort()).toEqual(
      ["bash -n hooks/a.sh", "git status", "mix test --seed 0", "npm test", "pnpm build", "source lib/trace.sh", "spotter_rand_hex 16"]
    )
  })

  it("weighs a command that only looks around (ls, grep, cat, git status, curl) below an identifier", () => {
    const facts = FactCheck.keys("[?] assistant: $ grep -r setup deps/\n[?] assistant: $ mix compile\n[?] assistant: Use `Otel.setup`.")
    expect(facts.map((f) => [f.text, f.importance])).toEqual([
      ["mix compile", 4],
      ["Otel.setup", 2],
      ["grep -r setup deps/", 1.5]
    ])
  })

  it("takes an environment variable's name where one is set or read, never its value", () => {
    const facts = FactCheck.keys(
      "[?] tool: If `SPOTTER_OTEL_ENABLED=false`, skip setup.\n  url = System.get_env(\"DATABASE_URL\") or ${API_TOKEN}; MAX_SIZE is a constant"
    )
    expect(kinds(facts)).toEqual({ SPOTTER_OTEL_ENABLED: "identifier", DATABASE_URL: "identifier", API_TOKEN: "identifier" })
  })

  it("orders by kind weight, then mentions, then first appearance; dedupes case-insensitively", () => {
    const facts = FactCheck.keys("src/a.ts and src/b.ts, `helper`\nSRC/B.TS again\nthen RangeError\nsrc/b.ts")
    expect(facts.map((f) => [f.text, f.importance])).toEqual([
      ["RangeError", 5],
      ["src/b.ts", 3.4],
      ["src/a.ts", 3],
      ["helper", 2]
    ])
  })

  it("reads an Also line of a summary as content: its keys count in condensation", () => {
    const rendered = Transcript.renderSummaries([
      { depth: 0, content: `Fixed the totals.\n${AlsoLine.line(["src/totals.ts", "3 failed"])}` }
    ])
    expect(texts(FactCheck.keys(rendered))).toEqual(["3 failed", "src/totals.ts"])
  })
})

describe("FactCheck.check", () => {
  const material = "[?] tool: $ pnpm test\n  3 failed, 9 passed: AssertionError in test/money.test.ts"

  it("splits the keys into kept and dropped, case-insensitively, most important first", () => {
    const result = FactCheck.check(material, "Ran PNPM TEST: 3 failed (assertionerror).")
    expect(texts(result.kept)).toEqual(["3 failed", "AssertionError", "pnpm test"])
    expect(texts(result.dropped)).toEqual(["9 passed", "test/money.test.ts"])
  })

  it("a summary that keeps everything drops nothing; an empty material has no keys", () => {
    expect(FactCheck.check(material, material).dropped).toEqual([])
    expect(FactCheck.check("", "anything")).toEqual({ kept: [], dropped: [] })
  })
})
