/**
 * The assistant's plan for the session state: a todo call's items, a numbered
 * list in its prose, and the tracker status that stands for a prose item's.
 *
 * @internal
 */
import * as ToolKind from "../ToolKind.js"
import * as ToolMetadata from "../ToolMetadata.js"
import { clip } from "./commands.js"

/** An item of a plan: its text and status (`pending`, `in_progress`, `completed`). */
export interface PlanItem {
  readonly text: string
  readonly status: string
}

const MAX_PLAN = 20
const MAX_ITEM = 160

/** The items of a todo call's input (`ToolKind.todoItems`), cut to the plan's bounds. */
export const todoPlan = (input: ToolKind.Call["input"]): ReadonlyArray<PlanItem> | undefined =>
  ToolKind.todoItems(input)?.slice(0, MAX_PLAN).map((item) => ({ text: clip(item.text, MAX_ITEM), status: item.status }))

const NUMBERED = /^\s*(\d{1,2})[.)]\s+(\S.*)$/

// A numbered line of prose as a plan item: done when it starts with a check mark.
const planItem = (line: string): PlanItem => {
  const text = line.replace(/\*\*/g, "")
  const done = /^(?:✅|✔️?|\[x\])\s*/i.exec(text)
  return {
    text: clip(done === null ? text : text.slice(done[0].length), MAX_ITEM),
    status: done === null ? "pending" : "completed"
  }
}

/** The last run of at least two consecutive numbered lines in an assistant's prose (its call lines and reasoning aside). */
export const prosePlan = (content: string): ReadonlyArray<PlanItem> | undefined => {
  const lines = content.split("\n").filter((l) => !ToolMetadata.isCallLine(l) && !l.startsWith("[thinking]"))
  let found: Array<PlanItem> | undefined
  let run: Array<PlanItem> = []
  let expected = 1
  for (const line of lines) {
    const m = NUMBERED.exec(line)
    if (m !== null && Number(m[1]) === expected) {
      run.push(planItem(m[2]!))
      expected++
      continue
    }
    if (m === null && line.trim().length > 0 && /^\s{2,}|^\s*[-*]/.test(line)) continue // a nested line keeps the run
    if (run.length >= 2) found = run
    run = m !== null && Number(m[1]) === 1 ? [planItem(m[2]!)] : []
    expected = run.length + 1
  }
  if (run.length >= 2) found = run
  return found?.slice(0, MAX_PLAN)
}

// A tracker's status as a plan item's: closed and done ones are completed, in-progress ones in progress.
const ISSUE_DONE = /^(?:closed|done|completed|resolved|merged)$/i
const ISSUE_ACTIVE = /^(?:in[_-]?progress|started|active)$/i

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The status a prose plan's item shows: its own unless pending, else the
 * tracker's status of the issue it names (the longest id it names, so `x-1.2`
 * wins over `x-1`).
 */
export const trackedStatus = (
  item: PlanItem,
  issues: ReadonlyArray<{ readonly id: string; readonly status: string }>
): string => {
  if (item.status !== "pending") return item.status
  let best: { readonly id: string; readonly status: string } | undefined
  for (const issue of issues) {
    if (best !== undefined && issue.id.length <= best.id.length) continue
    if (new RegExp(`(?<![\\w.-])${escapeRegExp(issue.id)}(?![\\w-]|\\.\\w)`).test(item.text)) best = issue
  }
  if (best === undefined) return item.status
  return ISSUE_DONE.test(best.status) ? "completed" : ISSUE_ACTIVE.test(best.status) ? "in_progress" : item.status
}
