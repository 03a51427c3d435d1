/**
 * Turns as the viewer shows them, read like a transcript: who spoke and
 * when, then what the turn says as the summaries' material renders it
 * (`Material.renderContents`, the one renderer of tool traffic): a tool call
 * as its action line (`$ npx vitest run`, `Read src/a.ts`, `Edit src/a.ts: 3 →
 * 5 lines`), never its JSON; a tool's output as its short form. The turn as
 * stored, when the material leaves some of it out, is one click away. Text
 * is cut at {@link MAX_TURN_CHARS}.
 *
 * @internal
 */
import { Material, ToolUse } from "@precis/core"
import type { TurnStore } from "@precis/store"
import * as Html from "./html.js"

/** The most characters of one turn a page shows: a turn can hold megabytes of tool output. */
export const MAX_TURN_CHARS = 20_000

// `text` as HTML, cut at MAX_TURN_CHARS with a note of what is left out.
const cut = (text: string, mark: Html.Marker): string =>
  text.length <= MAX_TURN_CHARS
    ? mark(text)
    : `${mark(text.slice(0, MAX_TURN_CHARS))}\n<span class="meta">… ${text.length - MAX_TURN_CHARS} more characters not shown</span>`

// What a turn says: its prose, then its tool calls' action lines (the last lines of what the
// material says, one per call: `Material.action`) set apart.
const saying = (said: string, calls: number, mark: Html.Marker): string => {
  if (said.trim().length === 0) return ""
  const lines = said.split("\n")
  const prose = calls === 0 ? said : lines.slice(0, -calls).join("\n")
  const actions = calls === 0 ? "" : lines.slice(-calls).join("\n")
  return (prose.trim().length === 0 ? "" : `<div class="said">${cut(prose, mark)}</div>`) +
    (actions.length === 0 ? "" : `<div class="said actions">${cut(actions, mark)}</div>`)
}

// One turn: its line (seq, time, role), what it says, and the stored text when the material
// left some of it out (a tool's output digested, reasoning cut to its decisions); that text open
// when nothing else is said, or when only it holds what a search matched.
const article = (turn: TurnStore.StoredTurn, said: string, mark: Html.Marker): string => {
  const tool = ToolUse.result(turn) !== undefined
  const saidHtml = saying(said, tool ? 0 : ToolUse.calls(turn).length, mark)
  const storedHtml = said.includes(turn.content) ? "" : `<pre>${cut(turn.content, mark)}</pre>`
  const open = saidHtml.length === 0 || (storedHtml.includes("<mark>") && !saidHtml.includes("<mark>"))
  return `<article class="turn${tool ? " tool" : ""}" id="${Html.escape(Html.turnAnchor(turn.id))}">` +
    `<div class="meta">#${turn.seq} · ${Html.when(turn.timestamp, turn.timestamp)} · <strong>${Html.escape(turn.role)}</strong></div>` +
    saidHtml +
    (storedHtml.length === 0
      ? ""
      : `<details class="raw"${open ? " open" : ""}><summary>as stored (${turn.content.length} characters)</summary>${storedHtml}</details>`) +
    "</article>"
}

/**
 * `turns` (consecutive, in order) as `<article>`s anchored by their ids,
 * each result paired with its call among the turns before it on the page;
 * `mark` highlights what a search matched.
 */
export const turnArticles = (turns: ReadonlyArray<TurnStore.StoredTurn>, mark: Html.Marker = Html.escape): string => {
  const said = Material.renderContents(turns)
  return turns.map((turn, i) => article(turn, said[i] ?? turn.content, mark)).join("")
}
