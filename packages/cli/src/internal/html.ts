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

/** The home page: the sessions with their sizes. */
export const sessionsBody = (sessions: ReadonlyArray<TurnStore.SessionInfo>): string =>
  sessions.length === 0
    ? "<p>This store holds no session yet: import a file first (<code>precis import FILE</code>).</p>"
    : `<h1>Sessions</h1><ul class="sessions">${
      sessions.map((s) =>
        `<li><a href="${escape(sessionHref(s.id))}">${escape(s.id)}</a> ` +
        `<span class="meta">${s.turnCount} turns · ${s.summaryCount} summaries · since ${escape(s.createdAt)}</span></li>`
      ).join("")
    }</ul>`

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

/** A turn as an `<article>` anchored by its id. */
export const turnArticle = (t: TurnStore.StoredTurn): string =>
  `<article id="${escape(turnAnchor(t.id))}"><div class="meta">#${t.seq} · ${escape(Transcript.shortTimestamp(t.timestamp))} · ` +
  `<strong>${escape(t.role)}</strong> · ${escape(t.id)}</div><pre>${escape(t.content)}</pre></article>`

/** A session's page: its sizes, the tree, and the turns no leaf covers yet. */
export const sessionBody = (
  info: TurnStore.SessionInfo,
  summaries: ReadonlyArray<SummaryRecord.SummaryRecord>,
  uncovered: ReadonlyArray<TurnStore.StoredTurn>
): string =>
  `<h1>Session ${escape(info.id)}</h1>
<p class="meta">${info.turnCount} turns (${uncovered.length} not summarized) · ${summaries.length} summaries</p>` +
  (summaries.length === 0
    ? "<p>No summaries yet: run <code>precis compact</code>.</p>"
    : `<p class="tools"><button type="button" data-toggle="open">Expand all</button>` +
      `<button type="button" data-toggle="close">Collapse all</button></p><div class="tree">${dagTree(summaries)}</div>`) +
  (uncovered.length === 0
    ? ""
    : `<details class="uncovered"><summary>${uncovered.length} turns not summarized yet</summary>${
      uncovered.map(turnArticle).join("")
    }</details>`)

/** How many source turns a summary's page shows at most. */
export const MAX_TURNS = 500

/** A summary's page: where it sits, its text, its children and the turns below it. */
export const summaryBody = (
  s: SummaryRecord.SummaryRecord,
  children: ReadonlyArray<SummaryRecord.SummaryRecord>,
  turns: ReadonlyArray<TurnStore.StoredTurn>
): string => {
  const shown = turns.slice(0, MAX_TURNS)
  return `<p class="meta"><a href="${escape(sessionHref(s.sessionId ?? ""))}">session ${escape(s.sessionId ?? "?")}</a>` +
    (s.parentId === undefined ? "" : ` · parent <a href="${escape(summaryHref(s.parentId))}">${escape(s.parentId.slice(0, 8))}</a>`) +
    `</p><h1>Summary ${escape(s.id)}</h1><p class="meta">${nodeMeta(s)} · ${s.descendantCount ?? 0} summaries below</p>` +
    `<pre class="content">${escape(s.content)}</pre>` +
    (children.length === 0 ? "" : `<h2>Children</h2><ul class="children">${
      children.map((c) => `<li>${nodeLink(c)} <span class="meta">${nodeMeta(c)}</span> ${escape(preview(c.content))}</li>`).join("")
    }</ul>`) +
    `<details class="turns"${s.depth === 0 ? " open" : ""}><summary>Source turns (${turns.length})</summary>` +
    shown.map(turnArticle).join("") +
    (turns.length > shown.length ? `<p class="meta">… and ${turns.length - shown.length} more</p>` : "") +
    "</details>"
}

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
