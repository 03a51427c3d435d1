/**
 * The frame of the pages of `precis serve` and the pieces they share, as
 * pure functions: the page with its header and style, links, pagers, dates
 * and highlighted text. Everything that comes from the store (ids, text,
 * roles, timestamps) goes through {@link escape} (or {@link highlight}, which
 * escapes it too): transcripts hold HTML and scripts. The one inline script
 * is ours and carries the response's CSP nonce. The pages themselves are in
 * `htmlTree.ts`, `htmlTurns.ts`, `htmlSearch.ts` and `htmlContext.ts`.
 *
 * The layout fits a phone (390 px) as well as a desktop: the header wraps,
 * the search box shrinks, and long ids and lines break instead of widening
 * the page (the browser test checks every page at both widths).
 *
 * @internal
 */
import { Transcript } from "@precis/core"
import type { SearchIndex } from "@precis/store"

/** Text as HTML text or attribute value: `&`, `<`, `>`, `"` and `'` become entities. */
export const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * `path` with the `params` that have a value and an `anchor`:
 * `link("/summary/a", { q: "pdf", turns: 2 }, "turn-7")` is `/summary/a?q=pdf&turns=2#turn-7`.
 */
export const link = (
  path: string,
  params: { readonly [name: string]: string | number | undefined } = {},
  anchor?: string
): string => {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") query.set(name, String(value))
  }
  const search = query.toString()
  return `${path}${search.length === 0 ? "" : `?${search}`}${anchor === undefined ? "" : `#${anchor}`}`
}

/** The path of a session's page. */
export const sessionHref = (id: string): string => `/session/${encodeURIComponent(id)}`

/** The path of a summary's page. */
export const summaryHref = (id: string): string => `/summary/${encodeURIComponent(id)}`

/** The path of a session's assembled context (`precis context --budget N`). */
export const contextHref = (id: string): string => `${sessionHref(id)}/context`

/** The anchor of a turn on a page. */
export const turnAnchor = (id: string): string => `turn-${encodeURIComponent(id)}`

/**
 * One page of a longer list: its items, its number (from 1), how many pages
 * there are when that is known, and whether another follows.
 */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly number: number
  readonly pages?: number | undefined
  readonly more: boolean
}

/** Links to the pages before and after `page` (`href(n)` is page n's address); nothing for a single page. */
export const pager = (page: Page<unknown>, href: (n: number) => string): string =>
  page.number <= 1 && !page.more ? "" : `<nav class="pages">` +
    (page.number > 1 ? `<a href="${escape(href(page.number - 1))}" rel="prev">‹ previous</a> · ` : "") +
    `page ${page.number}${page.pages === undefined ? "" : ` of ${page.pages}`}` +
    (page.more ? ` · <a href="${escape(href(page.number + 1))}" rel="next">next ›</a>` : "") +
    "</nav>"

/** Text as HTML, escaped, with what a search matched wrapped in `<mark>` (or none: {@link escape}). */
export type Marker = (text: string) => string

const LETTER = "[\\p{L}\\p{N}]"

// A search term as the store's index reads it (unicode61: words of letters and digits, any case):
// its words in a row (`a.b` is the phrase `a b`), the last one a word's start when the term is a
// prefix (`pdf*`).
const termPattern = (term: SearchIndex.QueryTerm): Array<string> => {
  const words = term.text.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0)
  if (words.length === 0) return []
  const body = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^\\p{L}\\p{N}]+")
  return [`(?<!${LETTER})${body}${term.prefix ? `${LETTER}*` : `(?!${LETTER})`}`]
}

/**
 * The {@link Marker} of a search's `terms` (`SearchIndex.queryTerms`): every
 * text escaped, each word a term matches marked; {@link escape} without terms.
 *
 * @example
 * marker([{ text: "pdf", prefix: false }])("<b>PDF</b> pdfs") // "&#60;b&#62;<mark>PDF</mark>&#60;/b&#62; pdfs"
 */
export const marker = (terms: ReadonlyArray<SearchIndex.QueryTerm>): Marker => {
  const patterns = terms.flatMap(termPattern).sort((a, b) => b.length - a.length)
  if (patterns.length === 0) return escape
  const pattern = new RegExp(patterns.join("|"), "giu")
  return (text) => {
    let html = ""
    let last = 0
    for (const match of text.matchAll(pattern)) {
      html += `${escape(text.slice(last, match.index))}<mark>${escape(match[0])}</mark>`
      last = match.index + match[0].length
    }
    return html + escape(text.slice(last))
  }
}

// `2025-03-14 09:02` of a timestamp (`?` without one).
const minute = (timestamp: string | undefined): string => Transcript.shortTimestamp(timestamp).replace("T", " ").slice(0, 16)

/**
 * When something happened, from its first to its last timestamp, escaped:
 * `2025-03-14 09:02 → 11:33` (the date once when both share it), or `no date`.
 */
export const when = (start: string | undefined, end: string | undefined): string => {
  if (start === undefined && end === undefined) return "no date"
  const [from, to] = [minute(start), minute(end)]
  const sameDay = from.length === 16 && to.length === 16 && from.slice(0, 10) === to.slice(0, 10)
  return escape(from === to ? from : `${from} → ${sameDay ? to.slice(11) : to}`)
}

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f7f9;overflow-wrap:anywhere}
header{display:flex;flex-wrap:wrap;gap:.4em 1em;align-items:center;padding:.6em 1em;background:#1d2330;color:#fff}
header a{color:#fff;font-weight:600;text-decoration:none}
header .title{flex:1 1 12em;min-width:0;color:#cfd5e3}
header form{display:flex;gap:.4em;flex:1 1 16em;max-width:30em;min-width:0}
header input{flex:1 1 auto;min-width:0;font:inherit;padding:.2em .4em}
header button,main button{font:inherit}
main{padding:1em;max-width:64em}
h1{font-size:1.4em;margin:.3em 0}
h2{font-size:1.15em}
a{color:#2451b3}
.meta{color:#5b6478;font-size:.88em}
details.node{margin:.3em 0;padding-left:.9em;border-left:2px solid #d6dae6}
details.node>summary{cursor:pointer;padding:.15em 0}
details.node>summary .head{font-weight:600}
.text,.said{white-space:pre-wrap;margin:.3em 0}
.text{background:#fff;border:1px solid #e1e4ee;border-radius:4px;padding:.5em .7em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #dde;padding:.6em;margin:.3em 0;font-size:.9em}
article.turn{margin:.6em 0;padding:.4em .7em;background:#fff;border:1px solid #e1e4ee;border-radius:4px}
article.turn.tool{background:#f2f4f8}
article.turn.tool .said,.said.actions{font-family:ui-monospace,monospace;font-size:.88em}
details.raw>summary{cursor:pointer;color:#5b6478;font-size:.85em}
mark{background:#ffe58a}
ol.hits{padding-left:1.4em}
ol.hits li{margin:.7em 0}
.snippet{color:#3a4254;white-space:pre-wrap}
ul.sessions{padding-left:1.2em}
ul.sessions li{margin:.4em 0}
.tools{display:flex;flex-wrap:wrap;gap:.4em .6em;align-items:center;margin:.4em 0}
.tools form{display:flex;gap:.4em;align-items:center;margin-right:auto}
.tools input{width:6em;font:inherit}
`

// Expand or collapse every node of a session's tree.
const SCRIPT = `
for (const button of document.querySelectorAll("[data-toggle]")) {
  button.addEventListener("click", () => {
    const open = button.dataset.toggle === "open"
    for (const node of document.querySelectorAll("details.node")) node.open = open
  })
}
`

/** A whole page: the header with the search box, then `body`. */
export const page = (
  options: { readonly title: string; readonly nonce: string; readonly query?: string; readonly session?: string },
  body: string
): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(options.title)} · precis</title><style>${STYLE}</style></head>
<body><header><a href="/">precis</a><span class="title">${escape(options.title)}</span>
<form action="/search" method="get" role="search">` +
  (options.session === undefined ? "" : `<input type="hidden" name="session" value="${escape(options.session)}">`) +
  `<input type="search" name="q" placeholder="search turns and summaries" value="${escape(options.query ?? "")}" aria-label="search">` +
  `<button type="submit">Search</button></form></header>
<main>${body}</main>
<script nonce="${escape(options.nonce)}">${SCRIPT}</script></body></html>`

/** The body of a page that says why there is nothing else: its title as a heading, then `what`. */
export const problemBody = (title: string, what: string): string => `<h1>${escape(title)}</h1><p>${escape(what)}</p>`

/** The page of a missing session, summary or route. */
export const notFoundBody = (what: string): string => problemBody("Not found", what)
