import { describe, expect, it } from "@effect/vitest"
import { keysOf } from "../src/internal/keys.js"

describe("keysOf", () => {
  it("finds paths, file names, code spans, URLs, error names, codes, identifiers and numbers, once each", () => {
    const { keys, weights } = keysOf(
      "TypeError at src/app.ts:42 — run `pnpm test` (see https://example.com/x.) ERR_HTTP_500 TS2304 " +
        "in loader.py; parseConfig and MAX_PORT at 3.23.8, 7 times, src/app.ts again"
    )
    expect(keys).toEqual([
      "TypeError",
      "src/app.ts",
      "42",
      "pnpm test",
      "https://example.com/x",
      "ERR_HTTP_500",
      "TS2304",
      "loader.py",
      "parseConfig",
      "MAX_PORT",
      "3.23.8"
    ])
    // Identifiers weigh less than named facts; numbers as much.
    expect(weights[keys.indexOf("parseConfig")]).toBeLessThan(weights[keys.indexOf("src/app.ts")]!)
    expect(weights[keys.indexOf("42")]).toBe(1)
  })

  it("never keys a number alone on its line (a listing's line number)", () => {
    expect(keysOf("  1504:").keys).toEqual([])
    expect(keysOf("    16  })").keys).toEqual([])
    expect(keysOf("77").keys).toEqual([])
    expect(keysOf("| 2.5 | 766 | 4.9 |").weights).toEqual([1, 1, 1])
  })

  it("keys a command line by the command", () => {
    expect(keysOf("$ npm run build -- --watch").keys[0]).toBe("npm run build -- --watch")
    expect(keysOf("find_file \"fields.py\" src").keys[0]).toBe("find_file \"fields.py\" src")
    expect(keysOf("nothing to see here").keys).toEqual([])
  })
})
