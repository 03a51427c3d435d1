/**
 * The viewer's pages of sessions and summaries, as pure functions from store
 * data to HTML: the sessions with their real dates (their first and last
 * turns', never the import's), a session's DAG as a tree whose summaries read
 * in place (each node's text under its headline, the top ones open), and a
 * summary's page. Every text is escaped, and marked where a search matched
 * (`Html.marker`).
 *
 * @internal
 */
import type { SummaryRecord } from "@precis/core"
import type { TurnStore } from "@precis/store"
import { DEFAULT_BUDGET } from "./viewerQueries.js"
import * as Html from "./html.js"
import { budgetForm } from "./htmlContext.js"
import { turnArticles } from "./htmlTurns.js"
import { preview } from "./render.js"
import type { TimeRange } from "./sessionTimes.js"

/**
 * The most characters of summary text a session's page shows in its tree:
 * past them, a node shows its headline and a link to its page (a tree can
 * hold thousands of summaries).
 */
export const TREE_TEXT_CHARS = 300_000

/** A session of the home page: its sizes, the times of its first and last turns, its first request. */
export interface SessionRow {
  readonly info: TurnStore.SessionInfo
  readonly range: TimeRange
  readonly request?: string | undefined
}

/** The characters of a first request a session's link shows. */
const REQUEST_CHARS = 140

/** A first request on one line, cut to {@link REQUEST_CHARS}. */
const requestLine = (request: string): string => {
  const flat = request.replace(/\s+/g, " ").trim()
  return flat.length > REQUEST_CHARS ? `${flat.slice(0, REQUEST_CHARS - 1)}…` : flat
}

/**
 * The home page: the sessions, each named by its first request (its id when
 * it has none) with the folder it was held in, its dates, sizes and id, a
 * page of them.
 */
export const sessionsBody = (sessions: Html.Page<SessionRow>): string =>
  sessions.items.length === 0 && sessions.number === 1
    ? "<p>This store holds no session yet: import a file first (<code>precis import FILE</code>).</p>"
    : `<h1>Sessions</h1><ul class="sessions">${
      sessions.items.map(({ info, range, request }) =>
        `<li><a href="${Html.escape(Html.sessionHref(info.id))}">${Html.escape(request === undefined ? info.id : requestLine(request))}</a> ` +
        `<span class="meta">${info.project === undefined ? "" : `${Html.escape(info.project.directory)} · `}` +
        `${Html.when(range.start, range.end)} · ${info.turnCount} turns · ${info.summaryCount} summaries` +
        `${request === undefined ? "" : ` · ${Html.escape(info.id)}`}</span></li>`
      ).join("")
    }</ul>${Html.pager(sessions, (n) => `/?page=${n}`)}`

/** A summary's line of facts: when, depth, tier and size. */
const nodeMeta = (s: SummaryRecord.SummaryRecord): string =>
  `${Html.when(s.timeRangeStart, s.timeRangeEnd)} · depth ${s.depth} · ${Html.escape(s.tier ?? "?")} · ${s.tokenEstimate ?? "?"} tokens`

const headline = (s: SummaryRecord.SummaryRecord, mark: Html.Marker): string =>
  `<span class="head">${mark(preview(s.content)) || "(empty)"}</span> <span class="meta">${nodeMeta(s)}</span>`

// The link under a node's text: a leaf's turns, or a condensed summary's page.
const openLink = (s: SummaryRecord.SummaryRecord, query: string | undefined): string =>
  `<a href="${Html.escape(Html.link(Html.summaryHref(s.id), { q: query }))}">${
    s.depth === 0 ? `its ${s.sourceTurnIds?.length ?? ""} turns` : "its page"
  } ›</a>`

/** How a tree or a list of summaries is drawn: the search to mark, and how much text is left to show. */
interface Drawing {
  readonly mark: Html.Marker
  readonly query: string | undefined
  textLeft: number
}

// One summary as a `<details class="node">`: its headline, its text (while the page's budget
// lasts), a link to its page, then `inner` (its children).
const node = (s: SummaryRecord.SummaryRecord, drawing: Drawing, open: boolean, inner: string): string => {
  const shown = s.content.length <= drawing.textLeft
  if (shown) drawing.textLeft -= s.content.length
  return `<details class="node" data-id="${Html.escape(s.id)}"${open ? " open" : ""}><summary>${headline(s, drawing.mark)}</summary>` +
    (shown ? `<div class="text">${drawing.mark(s.content)}</div>` : "") +
    `<p class="meta">${openLink(s, drawing.query)}</p>${inner}</details>`
}

/**
 * The DAG as a tree: each summary a `<details class="node">` with its text
 * and its children, the parentless ones open; `mark` highlights a search's
 * matches, `query` is carried in the links.
 */
const dagTree = (
  summaries: ReadonlyArray<SummaryRecord.SummaryRecord>,
  mark: Html.Marker = Html.escape,
  query?: string
): string => {
  const byId = new Map(summaries.map((s) => [s.id, s]))
  const drawing: Drawing = { mark, query, textLeft: TREE_TEXT_CHARS }
  const visit = (s: SummaryRecord.SummaryRecord, top: boolean): string => {
    const children = (s.sourceSummaryIds ?? []).flatMap((id) => {
      const child = byId.get(id)
      return child === undefined ? [] : [child]
    })
    return node(s, drawing, top, children.map((c) => visit(c, false)).join(""))
  }
  return summaries.filter((s) => s.parentId === undefined || !byId.has(s.parentId)).map((s) => visit(s, true)).join("\n")
}

/** The summaries of a session's page: the whole tree, or (past a size) a page of its top summaries. */
export type Tree =
  | { readonly _tag: "Whole"; readonly summaries: ReadonlyArray<SummaryRecord.SummaryRecord> }
  | { readonly _tag: "Roots"; readonly roots: Html.Page<SummaryRecord.SummaryRecord> }

const treeBody = (id: string, tree: Tree, mark: Html.Marker, query: string | undefined): string => {
  if (tree._tag === "Roots") {
    const drawing: Drawing = { mark, query, textLeft: TREE_TEXT_CHARS }
    return `<p class="meta">Too many summaries for one tree: the top ones, each opening on its own page.</p>` +
      `<div class="roots">${tree.roots.items.map((r) => node(r, drawing, false, "")).join("")}</div>` +
      Html.pager(tree.roots, (n) => Html.link(Html.sessionHref(id), { q: query, roots: n }))
  }
  return `<div class="tree">${dagTree(tree.summaries, mark, query)}</div>`
}

/** What a session's page shows: its sizes and dates, the tree, and a page of the turns no leaf covers yet. */
export interface SessionView {
  readonly row: SessionRow
  readonly tree: Tree
  readonly turns: Html.Page<TurnStore.StoredTurn>
  readonly uncovered: number
  readonly query?: string | undefined
  readonly mark?: Html.Marker | undefined
  /** The session-state header (`SessionState.render`), shown open; `""` for none. */
  readonly header?: string | undefined
}

/**
 * A session's page: its folder, sizes and dates, its session-state header
 * (open), the tree, then the turns not summarized yet (open when paged or searched).
 */
export const sessionBody = (
  { header = "", mark = Html.escape, query, row: { info, range }, tree, turns, uncovered }: SessionView
): string =>
  `<h1>Session ${Html.escape(info.id)}</h1>
<p class="meta">${info.project === undefined ? "" : `${Html.escape(info.project.directory)} · `}${
    Html.when(range.start, range.end)
  } · ${info.turnCount} turns (${uncovered} not summarized) · ${info.summaryCount} summaries</p>` +
  (header.length === 0 ? "" : `<details class="state" open><summary>Session state</summary><pre>${mark(header)}</pre></details>`) +
  `<div class="tools">${budgetForm(info.id, String(DEFAULT_BUDGET))}` +
  (tree._tag === "Whole" && info.summaryCount > 0
    ? `<button type="button" data-toggle="open">Expand all</button><button type="button" data-toggle="close">Collapse all</button>`
    : "") +
  "</div>" +
  (info.summaryCount === 0 ? "<p>No summaries yet: run <code>precis compact</code>.</p>" : treeBody(info.id, tree, mark, query)) +
  (uncovered === 0
    ? ""
    : `<details class="uncovered"${turns.number > 1 || query !== undefined ? " open" : ""}><summary>${uncovered} turns not summarized yet</summary>${
      turnArticles(turns.items, mark)
    }${Html.pager(turns, (n) => Html.link(Html.sessionHref(info.id), { q: query, turns: n }))}</details>`)

const summaryItem = (s: SummaryRecord.SummaryRecord, query: string | undefined): string =>
  `<li><a href="${Html.escape(Html.link(Html.summaryHref(s.id), { q: query }))}">${Html.escape(preview(s.content)) || "(empty)"}</a> ` +
  `<span class="meta">${nodeMeta(s)}</span></li>`

/** What a summary's page shows: the summary, its children, and a page of its turns (`total` when known). */
export interface SummaryView {
  readonly summary: SummaryRecord.SummaryRecord
  readonly children: ReadonlyArray<SummaryRecord.SummaryRecord>
  readonly turns: Html.Page<TurnStore.StoredTurn>
  readonly total: number | undefined
  readonly query?: string | undefined
  readonly mark?: Html.Marker | undefined
}

/** A summary's page: where it sits, its text, its children and a page of the turns below it. */
export const summaryBody = ({ children, mark = Html.escape, query, summary: s, total, turns }: SummaryView): string =>
  `<p class="meta"><a href="${Html.escape(Html.sessionHref(s.sessionId ?? ""))}">session ${Html.escape(s.sessionId ?? "?")}</a>` +
  (s.parentId === undefined
    ? ""
    : ` · <a href="${Html.escape(Html.link(Html.summaryHref(s.parentId), { q: query }))}">the summary above it</a>`) +
  `</p><h1>Summary ${Html.escape(s.id)}</h1><p class="meta">${nodeMeta(s)} · ${s.descendantCount ?? 0} summaries below</p>` +
  `<div class="text content">${mark(s.content)}</div>` +
  (children.length === 0 ? "" : `<h2>Children</h2><ul class="children">${children.map((c) => summaryItem(c, query)).join("")}</ul>`) +
  `<details class="turns"${s.depth === 0 || turns.number > 1 ? " open" : ""}><summary>Source turns${
    total === undefined ? "" : ` (${total})`
  }</summary>` +
  turnArticles(turns.items, mark) + Html.pager(turns, (n) => Html.link(Html.summaryHref(s.id), { q: query, turns: n })) +
  "</details>"
