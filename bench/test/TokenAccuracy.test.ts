import { describe, expect, it } from "@effect/vitest"
import * as TokenAccuracy from "../src/TokenAccuracy.js"

describe("TokenAccuracy", () => {
  it("classifies the dominant script", () => {
    expect(TokenAccuracy.script("Hello, world")).toBe("latin")
    expect(TokenAccuracy.script("你好，世界。今日は")).toBe("cjk")
    expect(TokenAccuracy.script("Привет, мир! ok")).toBe("cyrillic")
    expect(TokenAccuracy.script("مرحبا بالعالم")).toBe("other")
    expect(TokenAccuracy.script("12345 !!!")).toBe("latin")
  })

  it("tells code and tool output from prose", () => {
    expect(TokenAccuracy.isCode("```ts\nconst x = 1\n```")).toBe(true)
    expect(TokenAccuracy.isCode("function f() {\n  return 1;\n}")).toBe(true)
    expect(TokenAccuracy.isCode("I think we should fix the login bug first. Then the docs.")).toBe(false)
  })

  it("compares the default estimate with the o200k count", () => {
    const s = TokenAccuracy.sample("hello world, this is a test")
    expect(s.estimate).toBe(6)
    expect(s.actual).toBeGreaterThan(3)
    expect(s.error).toBeCloseTo((s.estimate - s.actual) / s.actual)
  })
})
