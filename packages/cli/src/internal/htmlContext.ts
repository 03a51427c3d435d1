/**
 * The viewer's page of a session's assembled context: what `precis context
 * --budget N` prints (the text an agent would send, and the report of each
 * stage), with a form to ask for another budget.
 *
 * @internal
 */
import type { Printed } from "./viewerQueries.js"
import * as Html from "./html.js"

/** The budget form of a session's context page, holding `budget` as typed. */
export const budgetForm = (sessionId: string, budget: string): string =>
  `<form class="context" action="${Html.escape(Html.contextHref(sessionId))}" method="get">` +
  `<label>Context in <input type="number" name="budget" min="1" value="${Html.escape(budget)}" aria-label="budget"> tokens</label> ` +
  `<button type="submit">Assemble</button></form>`

const back = (sessionId: string): string =>
  `<p class="meta"><a href="${Html.escape(Html.sessionHref(sessionId))}">session ${Html.escape(sessionId)}</a></p>`

/** A session's context in `budget` tokens, as `precis context` prints it. */
export const contextBody = (sessionId: string, budget: number, printed: Printed): string =>
  back(sessionId) + `<h1>Context in ${budget} tokens</h1>` +
  `<div class="tools">${budgetForm(sessionId, String(budget))}</div>` +
  `<p class="meta">What an agent would send for this session (<code>precis context --budget ${budget}</code>): ` +
  `the first request, the top summaries, the session-state header, then the turns not summarized yet, fitted to ` +
  `the budget. Nothing is written.</p>` +
  (printed.report.length === 0 ? "" : `<ul class="report meta">${printed.report.map((l) => `<li>${Html.escape(l)}</li>`).join("")}</ul>`) +
  `<pre class="context">${Html.escape(printed.text)}</pre>`

/** The page of a budget the viewer refuses, with `reason` and the form to try again. */
export const badBudgetBody = (sessionId: string, budget: string, reason: string): string =>
  back(sessionId) + `<h1>Bad budget</h1><p>${Html.escape(reason)}</p><div class="tools">${budgetForm(sessionId, budget)}</div>`
