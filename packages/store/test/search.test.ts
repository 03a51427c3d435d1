/**
 * What user queries become: their terms (`SearchIndex.queryTerms`, with the
 * bounds every search applies), an FTS5 match expression (SQLite) or
 * `tsquery` terms (PostgreSQL), whatever the input holds. The searches
 * themselves run in the drivers' tests and the store suite.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { SearchIndex } from "../src/index.js"
import { matchExpression, tsTerms } from "../src/internal/search.js"

const terms = (query: string) => Either.getOrThrow(SearchIndex.queryTerms(query))

describe("search queries", () => {
  it("quotes every term and doubles its quotes", () => {
    assert.strictEqual(matchExpression(terms("say \"hi\" NEAR")), "\"say\" \"\"\"hi\"\"\" \"NEAR\"")
    assert.strictEqual(matchExpression(terms("pre* * -")), "\"pre\"*")
    assert.deepStrictEqual(terms(" * \" "), [])
  })

  it("reads plain terms as phrases and a trailing * as a prefix of the term's letters and digits", () => {
    assert.deepStrictEqual(tsTerms(terms("src/app.ts  fix-up* ?! *")), [
      { fn: "phraseto_tsquery", text: "src/app.ts" },
      { fn: "to_tsquery", text: "fixup:*" }
    ])
    assert.deepStrictEqual(tsTerms(terms("  ")), [])
  })

  it("separates terms at control characters: a NUL, a DEL, an escape are never text", () => {
    for (const separator of ["\u0000", "\u007f", "\u001b", "\u0085", "\r\n", "\u0000\u0000"]) {
      assert.deepStrictEqual(terms(`pdf${separator}report`), [
        { text: "pdf", prefix: false },
        { text: "report", prefix: false }
      ], JSON.stringify(separator))
    }
    assert.deepStrictEqual(terms("\u0000"), [])
  })

  it("keeps one of repeated terms, in any case; a prefix and a word of the same letters are two terms", () => {
    assert.deepStrictEqual(terms(Array.from({ length: 200 }, () => "pdf").join(" ")), [{ text: "pdf", prefix: false }])
    assert.deepStrictEqual(terms("PDF pdf Pdf pdf* PDF*"), [{ text: "PDF", prefix: false }, { text: "pdf", prefix: true }])
  })

  it("refuses a query over the length or the number of different terms, saying which", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ")
    assert.strictEqual(terms(words(SearchIndex.maxQueryTerms)).length, SearchIndex.maxQueryTerms)
    assert.deepStrictEqual(
      SearchIndex.queryTerms(words(SearchIndex.maxQueryTerms + 1)),
      Either.left(`a search takes at most ${SearchIndex.maxQueryTerms} different words (got ${SearchIndex.maxQueryTerms + 1})`)
    )
    assert.deepStrictEqual(
      SearchIndex.queryTerms("x".repeat(SearchIndex.maxQueryLength + 1)),
      Either.left(`a search query is at most ${SearchIndex.maxQueryLength} characters (got ${SearchIndex.maxQueryLength + 1})`)
    )
    // 3,000 words (12 KB): refused by its length before any term is read.
    assert.isTrue(Either.isLeft(SearchIndex.queryTerms(Array.from({ length: 3000 }, () => "pdf").join("+"))))
    assert.strictEqual(terms("a".repeat(SearchIndex.maxQueryLength)).length, 1)
  })
})
