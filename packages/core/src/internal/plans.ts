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
  /** Ticked by the agent in its todo list, and nothing since confirmed it. */
  readonly claimed?: boolean | undefined
  /** Ticked by the agent, then a step failed: what failed, and its turn. */
  readonly undone?: { readonly text: string; readonly turnId: string } | undefined
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

/** Whether a tracker's status says the issue is done. */
export const isDone = (status: string): boolean => ISSUE_DONE.test(status)

/** Whether a tracker's status says the issue is being worked on. */
export const isActive = (status: string): boolean => ISSUE_ACTIVE.test(status)

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Whether `text` names the issue `id`, not as part of a longer id (`x-1.2` does not name `x-1`). */
export const namesIssue = (text: string, id: string): boolean =>
  new RegExp(`(?<![\\w.-])${escapeRegExp(id)}(?![\\w-]|\\.\\w)`).test(text)

/**
 * The status a plan's item shows: its own unless pending, else the tracker's
 * status of the issue it names (the longest id it names, so `x-1.2` wins over
 * `x-1`).
 */
export const trackedStatus = (
  item: PlanItem,
  issues: ReadonlyArray<{ readonly id: string; readonly status: string }>
): string => {
  if (item.status !== "pending") return item.status
  let best: { readonly id: string; readonly status: string } | undefined
  for (const issue of issues) {
    if (best !== undefined && issue.id.length <= best.id.length) continue
    if (namesIssue(item.text, issue.id)) best = issue
  }
  if (best === undefined) return item.status
  return isDone(best.status) ? "completed" : isActive(best.status) ? "in_progress" : item.status
}

/** A plan as the session state keeps it: its items, and the issue it is the work of. */
export interface Plan {
  readonly items: ReadonlyArray<PlanItem>
  readonly issue?: string | undefined
}

// An item done by the tracker or a commit: no longer only the agent's claim.
const done = <I extends PlanItem>(item: I): I => {
  const { claimed: _, undone: __, ...rest } = item
  return { ...rest, status: "completed" } as I
}

/** The plan after its issue was closed: its items are done. */
export const afterClose = <P extends Plan>(plan: P, id: string): P =>
  plan.issue === id ? { ...plan, items: plan.items.map(done) } : plan

// `ReviewTokenStore` as a file name says it: `review_token_store`.
const snake = (name: string): string =>
  name.replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase()

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

// The files an item names in its head (before ` - ` or `: `): file names, and modules by their file's name.
const namedFiles = (text: string): ReadonlyArray<string> => {
  const head = text.split(/\s[-—–]\s|:\s/, 1)[0]!
  return (head.match(/[\w./-]+/g) ?? []).flatMap((token) => {
    if (/\.[A-Za-z]\w{0,5}$/.test(token) && !/^[A-Z]/.test(token)) return [baseName(token)]
    return /^[A-Z]\w*[a-z]/.test(token) ? [snake(token.split(".", 1)[0]!)] : []
  })
}

/**
 * The plan after a commit of `paths` with `message`: the commit of its issue
 * (the message names it) does every item; otherwise an item is done when the
 * message names an issue (of the known `issues`) the item names, or the commit
 * holds a file it names
 * (`hooks.json`, or `ReviewTokenStore` for `review_token_store.ex`).
 */
export const afterCommit = <P extends Plan>(
  plan: P,
  commit: { readonly message: string; readonly paths: ReadonlyArray<string>; readonly issues: ReadonlyArray<string> }
): P => {
  const { message, paths } = commit
  if (plan.issue !== undefined && namesIssue(message, plan.issue)) return { ...plan, items: plan.items.map(done) }
  const names = new Set(paths.flatMap((path) => {
    const base = baseName(path)
    return [base, base.replace(/\.\w+$/, "")]
  }))
  const ids = commit.issues.filter((id) => namesIssue(message, id))
  const committed = (item: PlanItem) =>
    ids.some((id) => namesIssue(item.text, id)) || namedFiles(item.text).some((name) => names.has(name))
  return { ...plan, items: plan.items.map((item) => (item.status !== "completed" || item.claimed === true) && committed(item) ? done(item) : item) }
}

/**
 * A todo list as the agent wrote it, against its previous list: an item it
 * ticks is its claim (`claimed`) unless it was ticked and confirmed before.
 */
export const ticked = <I extends PlanItem>(items: ReadonlyArray<I>, previous: ReadonlyArray<PlanItem>): ReadonlyArray<I> =>
  items.map((item) => {
    if (item.status !== "completed") return item
    const before = previous.find((p) => p.text === item.text)
    const confirmed = before !== undefined && before.status === "completed" && before.claimed !== true
    return confirmed ? item : { ...item, claimed: true }
  })

/** The plan after a check passed or a change went through: the items the agent ticked are confirmed. */
export const confirmed = <P extends Plan>(plan: P): P =>
  plan.items.some((item) => item.claimed === true) ? { ...plan, items: plan.items.map((item) => item.claimed === true ? done(item) : item) } : plan

/** The plan after a step failed (`text`, at `turnId`): the items the agent ticked are not done. */
export const failedAfter = <P extends Plan>(plan: P, text: string, turnId: string): P =>
  plan.items.some((item) => item.claimed === true)
    ? {
      ...plan,
      items: plan.items.map((item) => {
        if (item.claimed !== true) return item
        const { claimed: _, ...rest } = item
        return { ...rest, status: "pending", undone: { text, turnId } }
      })
    }
    : plan

/** Whether every item of a plan is done (by its own status or the tracker's). */
export const allDone = (
  plan: Plan,
  issues: ReadonlyArray<{ readonly id: string; readonly status: string }>
): boolean => plan.items.every((item) => trackedStatus(item, issues) === "completed")
