/**
 * The session state at the compact boundary of the two Claude Code fixtures
 * (each auto-compacted once by Claude Code), against marks read there by hand:
 * what a continuing agent is told is stale, done, next. Skipped when the
 * fixtures are missing.
 */
import { describe, expect, it } from "@effect/vitest"
import { SessionState } from "@precis/core"
import * as Either from "effect/Either"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Importer from "../src/Importer.js"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const fixtures = path.resolve(repoRoot, "..", "shared", "fixtures", "transcripts")

/** The header a continuing agent gets at the fixture's compact boundary (the turns before it folded). */
const headerAt = (name: string): string => {
  const file = path.join(fixtures, `${name}.jsonl`)
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0)
  const boundary = lines.findIndex((line) => (JSON.parse(line) as { subtype?: string }).subtype === "compact_boundary")
  expect(boundary).toBeGreaterThan(0)
  const parsed = Importer.parse(lines.slice(0, boundary).join("\n") + "\n", "claude-code", file)
  if (Either.isLeft(parsed)) return expect.fail(parsed.left.message)
  return SessionState.render(SessionState.fold(Importer.allTurns(parsed.right)))
}

describe.skipIf(!existsSync(fixtures))("the session state at the Claude Code fixtures' compact boundary", () => {
  it("spotter-258c7280: every check ran before the last edits (gqc.6's three edits after the suite)", () => {
    const header = headerAt("claude-code-spotter-258c7280")
    // mix compile ran before the LiveView test's edits, config/test.exs, mix.exs and gqc.6's work: 8 edits.
    expect(header).toContain("- mix compile --warnings-as-errors: passed before 8 edits [cae257d5]")
    // The suite and credo ran after gqc.5, before gqc.6's three edits of project_review_live.ex.
    expect(header).toContain("- mix test: passed before 3 edits, 14 doctests, 73 tests, 0 failures [69a7432e]")
    expect(header).toContain("- mix credo --strict: passed before 3 edits, 337 mods/funs, found no issues. [c938f161]")
    // The plan of gqc.1-3 (turn 14), all closed, gives way to the request made after it: the new beads.
    expect(header).not.toContain("Plan (")
    expect(header).toContain("- latest request: new beads for the epic were added. tackle them [claude-code:161]")
    expect(header).toContain("- spotter-gqc.6: in_progress [a2c44fcc]")
    // The agent was mid-edit (its last turn a call) on the request for the new beads.
    expect(header).toContain("Next:\n- the latest request, not yet answered [claude-code:161]\n")
    // The user's words (the task, "check again", the new beads) hold no constraint or decision.
    expect(header).not.toContain("User said:")
    // The push had no upstream: fixed by setting it. The LiveView test needed lazy_html: fetched, then green.
    expect(header).toContain("- git push: Exit code 128 [65c9c7e3] → fixed by git push --set-upstream origin spotter-gqc [502069f9]")
    expect(header).toContain("4 failures [74f2f247] → fixed, running mix deps.get, editing mix.exs, ")
  })

  it("spotter-ae4a77f8: the checks ran before the edits made for the refused commits", () => {
    const header = headerAt("claude-code-spotter-ae4a77f8")
    // Seven edits after mix compile, one of them refused (string not found): six writes.
    expect(header).toContain("- mix compile: passed before 6 edits [a1af5b06]")
    // The suite passed, then four edits of otel_trace_helpers.ex and .dialyzerignore.
    expect(header).toContain("- mix test --seed 0: passed before 5 edits, 14 doctests, 297 tests, 0 failures [c4ab22ab]")
    // The agent ended with its summary, its plan all done, a commit still refused by the hook: resolving
    // it comes before its last stated intent (closing the task), as in the project's digest.
    expect(header).toContain(
      "Next:\n- resolve git commit \"feat: instrument hook controllers with trace correlation and error spans\" failed: " +
        "Pre-commit validation failed: [DIALYZER] [632cf677]\n"
    )
    expect(header).not.toContain("User said:")
    // The hook refused the unformatted commit: mix format, then the same commit went through.
    expect(header).toContain("Code is not formatted. [4786f4f4] → fixed, running mix format [8a13fafc]")
    // The agent's closing plan: its three beads closed by the tracker (no request came after it) ...
    expect(header).toContain("- [x] Instrumented hook controllers with trace correlation (spotter-4te.3)")
    // ... while the commit of the third is still refused by the hook, whose report is the checks' latest
    // result: credo passed in its last run (it names dialyzer only), dialyzer failed.
    expect(header).toContain("- mix credo (hook): passed before 1 edit [8899c63a]")
    expect(header).toContain(
      "- mix dialyzer (hook): FAILED, lib/spotter_web/controllers/otel_trace_helpers.ex:58:13:pattern_match The pattern can never match the type. [29bbf082]"
    )
    expect(header).toMatch(/Open errors:\n- mix dialyzer \(hook\): [^\n]*\[29bbf082\]\n/)
    expect(header).toMatch(/\n- git commit "feat: instrument hook controllers [^\n]*failed: Pre-commit validation failed: \[DIALYZER\] \[632cf677\]\nErrors fixed:/)
  })
})
