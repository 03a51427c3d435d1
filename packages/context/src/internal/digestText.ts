/**
 * The text of a project's start-of-session digest (see `ProjectDigest`):
 * entries by section, each with the order in which it may be dropped, kept
 * as far as the token and character caps allow.
 *
 * @internal
 */
import { Escape, SessionState, type TokenEstimator } from "@precis/core"
import type { TurnStore } from "@precis/store"

/** An earlier session with its hand-over (`outline`) or, for the index, its first request. */
export interface Earlier {
  readonly info: TurnStore.SessionInfo
  readonly outline?: SessionState.Outline | undefined
  readonly request?: string | undefined
}

/** What the digest is made of: the project's folder, its sessions newest first. */
export interface Parts {
  readonly directory: string
  readonly last: Earlier
  readonly before: ReadonlyArray<Earlier>
  readonly older: ReadonlyArray<Earlier>
}

type Section = "last" | "done" | "left" | "files" | "before" | "older" | "end"

const TITLES: { readonly [S in Section]: string | undefined } = {
  last: undefined,
  done: "Done:",
  left: "Left:",
  files: "Files changed:",
  before: "Before it:",
  older: "Older sessions:",
  end: undefined
}
const ORDER: ReadonlyArray<Section> = ["last", "done", "left", "files", "before", "older", "end"]

/** One line: its section, its text, when it may be dropped (lower first; `Infinity`: never). */
interface Entry {
  readonly section: Section
  readonly text: string
  readonly drop: number
}

const KEEP = Number.POSITIVE_INFINITY

/** `text` on one line, whitespace runs as one space, cut to `max` characters with `…`. */
const brief = (text: string, max: number): string => {
  const flat = Escape.line(text.replace(/\s+/g, " ").trim())
  const chars = [...flat]
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join("")}…`
}

const cite = (line: SessionState.OutlineLine) => `[${SessionState.shortId(line.turnId)}]`

/** `2026-02-11 20:36` of an ISO timestamp; `?` when there is none. */
const when = (at: string | undefined): string => at === undefined || at.length < 16 ? (at ?? "?") : at.slice(0, 16).replace("T", " ")

const day = (info: TurnStore.SessionInfo): string => (info.startedAt ?? info.createdAt).slice(0, 10)

/** A path written relative to the project's folder when it is inside it. */
const relative = (directory: string, path: string): string =>
  path.startsWith(`${directory}/`) ? path.slice(directory.length + 1) : path

/** A session's outcome in a few words: its last commit, else its next step, else what it left, else its files, else its size. */
export const outcome = (earlier: Earlier): string => {
  const o = earlier.outline
  if (o?.lastCommit !== undefined) return brief(o.lastCommit.text, 100)
  if (o?.next !== undefined) return `next: ${brief(o.next.text, 90)}`
  if (o !== undefined && o.left.length > 0) return `left: ${brief(o.left[0]!.text, 90)}`
  if (o !== undefined && o.files.length > 0) return `${o.files.length} files changed`
  return `${earlier.info.turnCount} turns`
}

// Drop bands (lower goes first): older index entries, files, the before-lines, done lines, left lines.
const band = (rank: number, i: number, n: number) => rank * 1000 + i / Math.max(1, n)

const lastEntries = ({ directory, last }: Parts): Array<Entry> => {
  const o = last.outline
  const info = last.info
  const agent = info.project?.agent === undefined ? "" : ` · ${info.project.agent}`
  const out: Array<Entry> = [{
    section: "last",
    text: `Last session ${info.id} · ${when(info.startedAt)} → ${when(info.endedAt)} · ${info.turnCount} turns${agent}:`,
    drop: KEEP
  }]
  if (o === undefined) return out
  if (o.asked !== undefined) out.push({ section: "last", text: `Asked: ${brief(o.asked.text, 300)} ${cite(o.asked)}`, drop: KEEP })
  if (o.latest !== undefined) {
    out.push({ section: "last", text: `Latest request: ${brief(o.latest.text, 300)} ${cite(o.latest)}`, drop: band(7, 0, 1) })
  }
  // The newest done first to stay; the last commit stays longest.
  o.done.forEach((line, i) =>
    out.push({
      section: "done",
      text: `- ${brief(line.text, 200)} ${cite(line)}`,
      drop: line.turnId === o.lastCommit?.turnId && line.text === o.lastCommit.text ? band(8, 0, 1) : band(4, i, o.done.length)
    })
  )
  if (o.next !== undefined) out.push({ section: "left", text: `- Next: ${brief(o.next.text, 300)} ${cite(o.next)}`, drop: KEEP })
  if (o.next === undefined && o.left.length === 0) {
    out.push({ section: "left", text: "- nothing open: no open error, issue or plan item, no unanswered request", drop: KEEP })
  }
  // The user's standing word, the newest kept longest.
  o.said.forEach((line, i) =>
    out.push({ section: "left", text: `- User said: ${brief(line.text, 200)} ${cite(line)}`, drop: band(5, i, o.said.length) })
  )
  o.left.forEach((line, i) =>
    out.push({ section: "left", text: `- ${brief(line.text, 200)} ${cite(line)}`, drop: band(6, o.left.length - i, o.left.length) })
  )
  o.files.forEach((file, i) =>
    out.push({ section: "files", text: `- ${brief(relative(directory, file.path), 160)} (${file.action})`, drop: band(2, i, o.files.length) })
  )
  return out
}

const lookup = (parts: Parts): string => {
  const cited = parts.last.outline?.next ?? parts.last.outline?.asked
  const read = cited === undefined
    ? ""
    : `, mcp__precis__read {"session": ${JSON.stringify(parts.last.info.id)}, "id": ${JSON.stringify(SessionState.shortId(cited.turnId))}} for a turn cited in brackets`
  return `Look any of it up with precis's tools: mcp__precis__describe {"session": ${JSON.stringify(parts.last.info.id)}}` +
    `${read}, mcp__precis__search {"query": "...", "session": ID}, mcp__precis__recent for the project's sessions.`
}

const entries = (parts: Parts): Array<Entry> => {
  const out: Array<Entry> = [{
    section: "last",
    text: `Earlier sessions in this project (${Escape.line(parts.directory)}), kept word for word by precis:`,
    drop: KEEP
  }, ...lastEntries(parts)]
  parts.before.forEach((e, i) =>
    out.push({
      section: "before",
      text: `- ${day(e.info)} · ${e.info.id} · asked: ${brief(e.outline?.asked?.text ?? "?", 120)} → ${outcome(e)}`,
      drop: band(3, parts.before.length - i, parts.before.length)
    })
  )
  parts.older.forEach((e, i) =>
    out.push({
      section: "older",
      text: `- ${day(e.info)} · ${e.info.id} · ${brief(e.request ?? "?", 60)}`,
      drop: band(1, parts.older.length - i, parts.older.length)
    })
  )
  out.push({ section: "end", text: lookup(parts), drop: KEEP })
  return out
}

const assemble = (all: ReadonlyArray<Entry>, gone: ReadonlySet<number>, olderDropped: number): string => {
  const lines: Array<string> = []
  for (const section of ORDER) {
    const kept = all.filter((e, i) => e.section === section && !gone.has(i))
    if (section === "end" && olderDropped > 0) {
      lines.push(`(${olderDropped} older sessions left out: mcp__precis__recent lists them)`)
    }
    if (kept.length === 0) continue
    const title = TITLES[section]
    if (title !== undefined) lines.push(title)
    for (const e of kept) lines.push(e.text)
  }
  return lines.join("\n")
}

/**
 * The digest of `parts` within `maxTokens` (as `estimator` counts) and
 * `maxChars`: the fewest entries dropped, in their drop order; only what is
 * never dropped when nothing else fits, `""` when not even that does.
 */
export const render = (
  parts: Parts,
  maxTokens: number,
  maxChars: number,
  estimator: TokenEstimator.Service
): string => {
  const all = entries(parts)
  const droppable = all.map((entry, i) => ({ entry, i })).filter((o) => o.entry.drop !== KEEP)
    .sort((a, b) => a.entry.drop - b.entry.drop || a.i - b.i)
  const build = (count: number) => {
    const gone = new Set(droppable.slice(0, count).map((o) => o.i))
    const olderDropped = droppable.slice(0, count).filter((o) => o.entry.section === "older").length
    return assemble(all, gone, olderDropped)
  }
  const fits = (text: string) => text.length <= maxChars && estimator.estimate(text) <= maxTokens
  if (fits(build(0))) return build(0)
  if (!fits(build(droppable.length))) return ""
  let lo = 1
  let hi = droppable.length
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2)
    if (fits(build(mid))) hi = mid
    else lo = mid + 1
  }
  return build(lo)
}
