/**
 * What user queries become: an FTS5 match expression (SQLite) or `tsquery`
 * terms (PostgreSQL), whatever the input holds. The searches themselves run in
 * the drivers' tests.
 */
import { assert, describe, it } from "@effect/vitest"
import { matchExpression, tsTerms } from "../src/internal/search.js"

describe("search queries", () => {
  it("quotes every term and doubles its quotes", () => {
    assert.strictEqual(matchExpression("say \"hi\" NEAR"), "\"say\" \"\"\"hi\"\"\" \"NEAR\"")
    assert.strictEqual(matchExpression("pre* * -"), "\"pre\"*")
    assert.isUndefined(matchExpression(" * \" "))
  })

  it("reads plain terms as phrases and a trailing * as a prefix of the term's letters and digits", () => {
    assert.deepStrictEqual(tsTerms("src/app.ts  fix-up* ?! *"), [
      { fn: "phraseto_tsquery", text: "src/app.ts" },
      { fn: "to_tsquery", text: "fixup:*" }
    ])
    assert.deepStrictEqual(tsTerms("  "), [])
  })
})
