/**
 * User queries as FTS5 match expressions. Whatever a person (or a model) types,
 * the expression is valid FTS5: every term is quoted (its `"` doubled), so
 * operators (`AND`, `OR`, `NOT`, `NEAR`), column filters, `-`, `^`, brackets
 * and quotes are plain text; a term ending in `*` is a prefix query.
 *
 * @internal
 */

/**
 * The FTS5 expression matching every term of `query` (terms are separated by
 * whitespace; all must match), or `undefined` when it has no term at all.
 *
 * @internal
 */
export const matchExpression = (query: string): string | undefined => {
  const terms = query.split(/\s+/u).flatMap((raw) => {
    const prefix = raw.length > 1 && raw.endsWith("*")
    const word = (prefix ? raw.replace(/\*+$/u, "") : raw)
    // A term without a letter or digit (`*`, `-`, `"`) holds no token: FTS5 would match nothing.
    if (!/[\p{L}\p{N}]/u.test(word)) return []
    return [`"${word.replaceAll("\"", "\"\"")}"${prefix ? "*" : ""}`]
  })
  return terms.length === 0 ? undefined : terms.join(" ")
}

/** Marks around the matched words of a hit's snippet. */
export const highlight = { open: "«", close: "»", ellipsis: "…" } as const
