/**
 * The README and the docs quote real runs: `pnpm demo`'s output (README.md)
 * and the Condenser's figures on the example session (docs/context.md) are what the shipped bin prints now, but
 * for the ids (random UUIDs, shortened in the README). `pnpm readme`
 * rewrites them (`scripts/readme.mjs`, which renders them here too).
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Readme from "../scripts/readme.mjs"
import { repoRoot } from "./utils/run.js"

const TIMEOUT = 120_000

describe("the quoted output of the README and the docs", () => {
  for (const [name, render] of Object.entries(Readme.quotes)) {
    const file = Readme.files[name as keyof typeof Readme.files]
    it(`${name} (${file}): what a real run prints (if not, run pnpm readme)`, () => {
      const quote = Readme.quoted(fs.readFileSync(path.join(repoRoot, file), "utf8"), name)
      assert.isDefined(quote, `${file} has no <!-- generated: ${name} --> quote`)
      expect(Readme.maskIds(quote!)).toBe(Readme.maskIds(render()))
    }, TIMEOUT)
  }

  it("ids are shortened to their first 8 characters; nothing else is touched", () => {
    expect(Readme.shortenIds("· fbeabbae-0f34-444d-af15-6aac244f1c9c  \"user: 2025-03-14T09:02:11\""))
      .toBe("· fbeabbae…  \"user: 2025-03-14T09:02:11\"")
    expect(Readme.shortenIds("12345678-1234 deadbeef")).toBe("12345678-1234 deadbeef")
    expect(Readme.maskIds("· fbeabbae…  \"tool: read src/a.ts\" 1349 tokens")).toBe("· <id>…  \"tool: read src/a.ts\" 1349 tokens")
  })
})
