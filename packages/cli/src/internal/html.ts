/**
 * The pages of `precis serve`, as pure functions from store data to HTML.
 * Everything that comes from the store (ids, text, roles, timestamps) goes
 * through {@link escape}: transcripts hold HTML and scripts. The one inline
 * script is ours and carries the response's CSP nonce.
 *
 * @internal
 */
import type { SummaryRecord } from "@precis/core"
import { Transcript } from "@precis/core"
import type { SearchIndex, TurnStore } from "@precis/store"
import { preview, timeRange } from "./render.js"

/** Text as HTML text or attribute value: `&`, `<`, `>`, `"` and `'` become entities. */
export const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The path of a session's page. */
export const sessionHref = (id: string): string => `/session/${encodeURIComponent(id)}`

/** The path of a summary's page. */
export const summaryHref = (id: string): string => `/summary/${encodeURIComponent(id)}`

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

/** The most characters of one turn a page shows: a turn can hold megabytes of tool output. */
export const MAX_TURN_CHARS = 20_000

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f7f9}
header{display:flex;gap:1em;align-items:center;padding:.6em 1.2em;background:#1d2330;color:#fff}
header a{color:#fff;font-weight:600;text-decoration:none}
header form{margin-left:auto;display:flex;gap:.4em}
main{padding:1em 1.6em;max-width:72em}
a{color:#2451b3}
details{margin:.2em 0 .2em 1.2em}
details>summary{cursor:pointer}
.node .meta,.meta{color:#5b6478;font-size:.9em}
.leaf{margin:.2em 0 .2em 2.3em}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #dde;padding:.6em;margin:.3em 0}
article{margin:.8em 0}
mark{background:#ffe58a}
ol.hits li{margin:.5em 0}
.tools button{margin-right:.4em}
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
<body><header><a href="/">precis</a><span>${escape(options.title)}</span>
<form action="/search" method="get" role="search">` +
  (options.session === undefined ? "" : `<input type="hidden" name="session" value="${escape(options.session)}">`) +
  `<input type="search" name="q" placeholder="search turns and summaries" value="${escape(options.query ?? "")}" aria-label="search">` +
  `<button type="submit">Search</button></form></header>
<main>${body}</main>
<script nonce="${escape(options.nonce)}">${SCRIPT}</script></body></html>`

/** The home page: the sessions with their sizes, a page of them. */
export const sessionsBody = (sessions: Page<TurnStore.SessionInfo>): string =>
  sessions.items.length === 0 && sessions.number === 1
    ? "<p>This store holds no session yet: import a file first (<code>precis import FILE</code>).</p>"
    : `<h1>Sessions</h1><ul class="sessions">${
      sessions.items.map((s) =>
        `<li><a href="${escape(sessionHref(s.id))}">${escape(s.id)}</a> ` +
        `<span class="meta">${s.turnCount} turns · ${s.summaryCount} summaries · since ${escape(s.createdAt)}</span></li>`
      ).join("")
    }</ul>${pager(sessions, (n) => `/?page=${n}`)}`

const nodeMeta = (s: SummaryRecord.SummaryRecord): string =>
  `depth ${s.depth} · ${escape(s.tier ?? "?")} · ${s.tokenEstimate ?? "?"} tokens · ${escape(timeRange(s))}`

const nodeLink = (s: SummaryRecord.SummaryRecord): string =>
  `<a href="${escape(summaryHref(s.id))}">${escape(s.id.slice(0, 8))}</a>`

/**
 * The DAG as a collapsible tree: each summary with children is a
 * `<details class="node">` (closed) holding them; a leaf is a line linking to
 * its page.
 */
export const dagTree = (summaries: ReadonlyArray<SummaryRecord.SummaryRecord>): string => {
  const byId = new Map(summaries.map((s) => [s.id, s]))
  const visit = (s: SummaryRecord.SummaryRecord): string => {
    const children = (s.sourceSummaryIds ?? []).flatMap((id) => {
      const child = byId.get(id)
      return child === undefined ? [] : [child]
    })
    const line = `<span class="meta">${nodeMeta(s)}</span> · ${nodeLink(s)} ${escape(preview(s.content))}`
    return children.length === 0
      ? `<div class="leaf" data-id="${escape(s.id)}">${line}</div>`
      : `<details class="node" data-id="${escape(s.id)}"><summary>${line}</summary>${children.map(visit).join("")}</details>`
  }
  return summaries.filter((s) => s.parentId === undefined || !byId.has(s.parentId)).map(visit).join("\n")
}

/** A turn as an `<article>` anchored by its id, its content cut at {@link MAX_TURN_CHARS}. */
export const turnArticle = (t: TurnStore.StoredTurn): string => {
  const cut = t.content.length > MAX_TURN_CHARS
  return `<article id="${escape(turnAnchor(t.id))}"><div class="meta">#${t.seq} · ${
    escape(Transcript.shortTimestamp(t.timestamp))
  } · <strong>${escape(t.role)}</strong> · ${escape(t.id)}</div><pre>${escape(cut ? t.content.slice(0, MAX_TURN_CHARS) : t.content)}</pre>` +
    (cut ? `<p class="meta">… ${t.content.length - MAX_TURN_CHARS} more characters not shown</p>` : "") +
    "</article>"
}

/** The summaries of a session's page: the whole tree, or (past a size) a page of its top summaries. */
export type Tree =
  | { readonly _tag: "Whole"; readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord> }
  | { readonly _tag: "Roots"; readonly roots: Page<SummaryRecord.SummaryRecord> }

const treeBody = (id: string, tree: Tree): string => {
  if (tree._tag === "Roots") {
    return `<p class="meta">Too many summaries for one tree: the top ones, each opening on its own page.</p>` +
      `<ul class="roots">${
        tree.roots.items.map((r) => `<li>${nodeLink(r)} <span class="meta">${nodeMeta(r)}</span> ${escape(preview(r.content))}</li>`)
          .join("")
      }</ul>${pager(tree.roots, (n) => `${sessionHref(id)}?roots=${n}`)}`
  }
  return `<p class="tools"><button type="button" data-toggle="open">Expand all</button>` +
    `<button type="button" data-toggle="close">Collapse all</button></p><div class="tree">${dagTree(tree.summaries)}</div>`
}

/** A session's page: its sizes, the tree, and a page of the turns no leaf covers yet (`uncovered` of them). */
export const sessionBody = (
  info: TurnStore.SessionInfo,
  tree: Tree,
  turns: Page<TurnStore.StoredTurn>,
  uncovered: number
): string =>
  `<h1>Session ${escape(info.id)}</h1>
<p class="meta">${info.turnCount} turns (${uncovered} not summarized) · ${info.summaryCount} summaries</p>` +
  (info.summaryCount === 0 ? "<p>No summaries yet: run <code>precis compact</code>.</p>" : treeBody(info.id, tree)) +
  (uncovered === 0
    ? ""
    : `<details class="uncovered"${turns.number > 1 ? " open" : ""}><summary>${uncovered} turns not summarized yet</summary>${
      turns.items.map(turnArticle).join("")
    }${pager(turns, (n) => `${sessionHref(info.id)}?turns=${n}`)}</details>`)

/** A summary's page: where it sits, its text, its children and a page of the turns below it (`total` when known). */
export const summaryBody = (
  s: SummaryRecord.SummaryRecord,
  children: ReadonlyArray<SummaryRecord.SummaryRecord>,
  turns: Page<TurnStore.StoredTurn>,
  total: number | undefined
): string =>
  `<p class="meta"><a href="${escape(sessionHref(s.sessionId ?? ""))}">session ${escape(s.sessionId ?? "?")}</a>` +
  (s.parentId === undefined ? "" : ` · parent <a href="${escape(summaryHref(s.parentId))}">${escape(s.parentId.slice(0, 8))}</a>`) +
  `</p><h1>Summary ${escape(s.id)}</h1><p class="meta">${nodeMeta(s)} · ${s.descendantCount ?? 0} summaries below</p>` +
  `<pre class="content">${escape(s.content)}</pre>` +
  (children.length === 0 ? "" : `<h2>Children</h2><ul class="children">${
    children.map((c) => `<li>${nodeLink(c)} <span class="meta">${nodeMeta(c)}</span> ${escape(preview(c.content))}</li>`).join("")
  }</ul>`) +
  `<details class="turns"${s.depth === 0 || turns.number > 1 ? " open" : ""}><summary>Source turns${
    total === undefined ? "" : ` (${total})`
  }</summary>` +
  turns.items.map(turnArticle).join("") + pager(turns, (n) => `${summaryHref(s.id)}?turns=${n}`) +
  "</details>"

/** A hit's snippet: escaped, its `«matches»` as `<mark>`. */
export const snippetHtml = (snippet: string): string =>
  escape(snippet).replaceAll("«", "<mark>").replaceAll("»", "</mark>")

/** Where a hit leads: a summary's page, a turn on its leaf's page (or its session's, while uncovered). */
export const hitHref = (hit: SearchIndex.SearchHit): string =>
  hit.kind === "summary"
    ? summaryHref(hit.id)
    : `${hit.leafId === undefined ? sessionHref(hit.sessionId) : summaryHref(hit.leafId)}#${turnAnchor(hit.id)}`

/** The search page: the hits, best first. */
export const searchBody = (query: string, hits: ReadonlyArray<SearchIndex.SearchHit>): string =>
  query.trim().length === 0
    ? "<p>Type words to find in the search box.</p>"
    : `<h1>Search: ${escape(query)}</h1>` + (hits.length === 0
      ? "<p class=\"none\">No match.</p>"
      : `<ol class="hits">${
        hits.map((h) =>
          `<li><a href="${escape(hitHref(h))}">${h.kind} ${escape(h.id.slice(0, 12))}</a> ` +
          `<span class="meta">${h.kind === "turn" ? `#${h.seq}` : `depth ${h.depth}`} · ${escape(h.sessionId)}</span>` +
          `<div class="snippet">${snippetHtml(h.snippet)}</div></li>`
        ).join("")
      }</ol>`)

/** The page of a missing session, summary or route. */
export const notFoundBody = (what: string): string => `<h1>Not found</h1><p>${escape(what)}</p>`
