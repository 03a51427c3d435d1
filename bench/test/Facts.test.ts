import { describe, expect, it } from "@effect/vitest"
import * as Facts from "../src/Facts.js"

const keys = (text: string) => Facts.extract(text).map(Facts.key)

describe("Facts.extract", () => {
  it("finds paths, commands, error names and codes, numbers, identifiers and URLs", () => {
    const found = keys(
      "Ran `npm test -- auth` and got TypeError (ENOENT) at src/auth/session.ts:42 in `createSession`; " +
        "see https://example.com/docs/errors. TS2345 again, 128 tests."
    )
    expect(found).toEqual(expect.arrayContaining([
      "command:npm test -- auth",
      "error:TypeError",
      "code:ENOENT",
      "code:TS2345",
      "path:src/auth/session.ts",
      "number:42",
      "number:128",
      "identifier:createSession",
      "url:https://example.com/docs/errors"
    ]))
  })

  it("does not take prose for facts", () => {
    expect(keys("Use this and/or that, then return 3 of them.")).toEqual([])
  })

  it("keeps each fact once, in order of first appearance", () => {
    expect(keys("file a.py then b.py then a.py")).toEqual(["path:a.py", "path:b.py"])
  })

  it("counts a command inside a code block or after a $ prompt, not a bare word in prose", () => {
    expect(keys("```\ngit status --short\n```")).toContain("command:git status --short")
    expect(keys("$ pnpm vitest run")).toContain("command:pnpm vitest run")
    expect(keys("find the bug first")).not.toContain("command:find the bug first")
  })

  it("ignores the rendering: turn prefixes and omission markers add no facts", () => {
    expect(keys("[2025-03-14T09:02:11] user: hello")).toEqual([])
    expect(keys("[… 233 lines omitted]")).toEqual([])
  })
})

describe("Facts.retention", () => {
  it("is the share of facts the text keeps, as whole tokens", () => {
    const facts = Facts.extract("TypeError in src/app.ts at line 42, took 1500 ms")
    expect(facts).toHaveLength(4)
    expect(Facts.retention(facts, "TypeError in src/app.ts")).toBe(0.5)
    // 42 inside 4242 is not the number 42.
    expect(Facts.retention(facts, "line 4242")).toBe(0)
    expect(Facts.retention(facts, "")).toBe(0)
    expect(Facts.retention([], "anything")).toBe(1)
  })

  it("credits a command kept outside its code block", () => {
    const facts = Facts.extract("```\npython -m pytest -x\n```")
    expect(Facts.retention(facts, "the agent ran python -m pytest -x")).toBe(1)
  })

  it("containsToken respects word boundaries only where the value has word characters", () => {
    expect(Facts.containsToken("at src/a.ts:3", "src/a.ts")).toBe(true)
    expect(Facts.containsToken("xsrc/a.ts", "src/a.ts")).toBe(false)
    expect(Facts.containsToken("v1.2.3", "1.2.3")).toBe(false)
    expect(Facts.containsToken("(../x)", "../x")).toBe(true)
  })
})
