/**
 * The viewer's search page: each hit labelled by what a reader knows it by
 * (a turn by its role and time, a summary by its time range; then its
 * session and place) with its snippet, and linked to the page that holds it
 * with the query carried (`?q=`), so that page marks the matches too.
 *
 * @internal
 */
import type { SummaryRecord } from "@precis/core"
import type { SearchIndex } from "@precis/store"
import * as Html from "./html.js"

/**
 * A hit with what labels it and where it is: a turn's role and timestamp, a
 * summary's record, and the page of its leaf's (or its session's) turns
 * that holds a turn.
 */
export interface LabelledHit {
  readonly hit: SearchIndex.SearchHit
  readonly role?: string | undefined
  readonly timestamp?: string | undefined
  readonly summary?: SummaryRecord.SummaryRecord | undefined
  readonly turnsPage?: number | undefined
}

/**
 * A snippet's text as a reader reads it: the escapes of JSON text (a tool
 * call's arguments, stored as JSON) shown as what they stand for, `\n` a line
 * break, `\"` a quote, `\t` a tab, `\\` a backslash.
 */
export const unescapeJson = (snippet: string): string =>
  snippet.replace(/\\(["\\/nrt])/g, (_, c: string) => (c === "n" ? "\n" : c === "r" ? "" : c === "t" ? "\t" : c))

/** A hit's snippet: its JSON escapes read as text, escaped, its `«matches»` as `<mark>`. */
export const snippetHtml = (snippet: string): string =>
  Html.escape(unescapeJson(snippet)).replaceAll("«", "<mark>").replaceAll("»", "</mark>")

/**
 * Where a hit leads, with `query` carried: a summary's page, or a turn on its
 * leaf's page (its session's, while uncovered), on the page of turns that
 * holds it.
 */
export const hitHref = ({ hit, turnsPage }: LabelledHit, query: string): string =>
  hit.kind === "summary"
    ? Html.link(Html.summaryHref(hit.id), { q: query })
    : Html.link(
      hit.leafId === undefined ? Html.sessionHref(hit.sessionId) : Html.summaryHref(hit.leafId),
      { q: query, turns: turnsPage === undefined || turnsPage <= 1 ? undefined : turnsPage },
      Html.turnAnchor(hit.id)
    )

// `assistant · 2025-03-14 09:03` or `summary · 2025-03-14 09:02 → 10:10`.
const label = ({ hit, role, summary, timestamp }: LabelledHit): string =>
  hit.kind === "turn"
    ? `${Html.escape(role ?? "turn")} · ${Html.when(timestamp, timestamp)}`
    : `summary · ${Html.when(summary?.timeRangeStart, summary?.timeRangeEnd)}`

const place = ({ hit }: LabelledHit): string =>
  `${Html.escape(hit.sessionId)} · ${hit.kind === "turn" ? `turn #${hit.seq ?? "?"}` : `depth ${hit.depth ?? "?"}`}`

/** The search page: the hits, best first. */
export const searchBody = (query: string, hits: ReadonlyArray<LabelledHit>): string =>
  query.trim().length === 0
    ? "<p>Type words to find in the search box.</p>"
    : `<h1>Search: ${Html.escape(query)}</h1>` + (hits.length === 0
      ? "<p class=\"none\">No match.</p>"
      : `<ol class="hits">${
        hits.map((h) =>
          `<li><a href="${Html.escape(hitHref(h, query))}">${label(h)}</a> <span class="meta">${place(h)}</span>` +
          `<div class="snippet">${snippetHtml(h.hit.snippet)}</div></li>`
        ).join("")
      }</ol>`)
