/**
 * Where a Schema decodes what a user gives (a hook's stdin, a flag's value, a
 * variable), a bad value fails in one sentence naming the field, what it must
 * be and what it got: never the Schema's type printed as a tree.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { assertOneLineFailure, repoRoot, runCli, tempDir } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const env = { HOME: dir, PRECIS_CLAUDE_CODE_DB: path.join(dir, "store.db") }
const NO_DUMP = /readonly|└─|, actual |Encoded side|parseJson/

describe("bad input decoded by a Schema: one sentence", () => {
  it.live("a hook's stdin names the field, the bound and the value", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["{\"hook_event_name\":3,\"session_id\":\"s\"}", "\"hook_event_name\" must be a string (got 3)"],
        ["{\"hook_event_name\":\"Stop\"}", "\"session_id\" is missing"],
        ["{\"hook_event_name\":\"Stop\",\"session_id\":\"\"}", "\"session_id\" must be a non-blank string without control characters (no line break, no escape sequence) or lone surrogates (got \"\")"],
        ["{\"hook_event_name\":\"Stop\",\"session_id\":\"s\",\"cwd\":[1]}", "\"cwd\" must be a string (got [1])"],
        ["[]", "the input must be an object (got [])"],
        ["{", "the input could not be read: "]
      ]
      for (const [stdin, said] of cases) {
        const result = yield* runCli(["hook", "claude-code"], { stdin, env })
        assertOneLineFailure(result, /^precis: the hook input on stdin is not a Claude Code hook event: /)
        expect(result.stderr).toContain(said)
        expect(result.stderr).not.toMatch(NO_DUMP)
      }
    }))

  it.live("a flag's value and a variable's value say what they must be", () =>
    Effect.gen(function*() {
      const example = path.join(repoRoot, "examples", "coding-session.jsonl")
      for (
        const [args, variables, said] of [
          [["search", "x", "--limit", "0"], {}, "--limit must be an integer >= 1 (got 0)"],
          [["serve", "--port", "99999"], {}, "--port must be an integer in [0, 65535] (got 99999)"],
          [["summarize", example], { PRECIS_SUMMARIZER_TIMEOUT: "soon" }, "PRECIS_SUMMARIZER_TIMEOUT: must be"],
          [["compact", example, "--db", path.join(dir, "c.db")], { PRECIS_COMPACTION_THRESHOLD: "5" }, "(got 5)"]
        ] as const
      ) {
        const result = yield* runCli(args, { env: { ...env, ...variables } })
        assertOneLineFailure(result, said)
        expect(result.stderr).not.toMatch(NO_DUMP)
      }
    }))
})
