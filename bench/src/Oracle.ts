/**
 * What a summary of a given size could keep at best and at worst, for fact
 * retention: an upper bound that picks whole lines by facts per token (a
 * greedy approximation of the best choice), and head truncation (the
 * Summarizer's fallback).
 *
 * @since 0.1.0
 */
import { TokenEstimator } from "@precis/core"
import * as Facts from "./Facts.js"

/**
 * The lines the greedy oracle chose, in their original order, and the facts they cover.
 *
 * @since 0.1.0
 */
export interface Choice {
  readonly text: string
  readonly lines: ReadonlyArray<number>
  readonly covered: number
  readonly total: number
}

// A max-heap of (gain per cost, line) entries whose gains may be stale (lazy greedy).
class Heap {
  private readonly items: Array<{ score: number; line: number }> = []
  get size(): number {
    return this.items.length
  }
  push(item: { score: number; line: number }): void {
    const a = this.items
    a.push(item)
    let i = a.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (a[p]!.score > a[i]!.score || (a[p]!.score === a[i]!.score && a[p]!.line < a[i]!.line)) break
      ;[a[p], a[i]] = [a[i]!, a[p]!]
      i = p
    }
  }
  pop(): { score: number; line: number } | undefined {
    const a = this.items
    const top = a[0]
    const last = a.pop()
    if (a.length > 0 && last !== undefined) {
      a[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        const better = (x: number, y: number) =>
          a[x]!.score > a[y]!.score || (a[x]!.score === a[y]!.score && a[x]!.line < a[y]!.line)
        if (l < a.length && better(l, m)) m = l
        if (r < a.length && better(r, m)) m = r
        if (m === i) break
        ;[a[m], a[i]] = [a[i]!, a[m]!]
        i = m
      }
    }
    return top
  }
}

/**
 * Whole lines of `material`, chosen greedily by new facts per token, whose
 * joined text fits in `budgetTokens` under the default estimator: the
 * fact-retention upper bound. Greedy, so an approximation of the best choice
 * (within 1 - 1/e of it for this coverage problem); ties go to earlier lines.
 *
 * @since 0.1.0
 */
export const greedy = (material: string, budgetTokens: number): Choice => {
  const lines = material.split("\n")
  const perLine = Facts.byLine(material).map((fs) => fs.map(Facts.key))
  const total = new Set(perLine.flat()).size
  // The estimator counts code points / 4; a chosen line costs its code points plus the newline.
  const budget = Math.max(0, Math.floor(budgetTokens)) * 4
  const cost = lines.map((l) => TokenEstimator.codePointLength(l) + 1)
  const covered = new Set<string>()
  const gain = (i: number) => {
    let g = 0
    for (const k of perLine[i]!) if (!covered.has(k)) g++
    return g
  }
  const heap = new Heap()
  perLine.forEach((fs, i) => {
    if (fs.length > 0) heap.push({ score: fs.length / cost[i]!, line: i })
  })
  const chosen: Array<number> = []
  // The joined text has one newline fewer than the chosen lines.
  let used = -1
  while (heap.size > 0) {
    const top = heap.pop()!
    const g = gain(top.line)
    if (g === 0) continue
    const score = g / cost[top.line]!
    if (score < top.score) {
      heap.push({ score, line: top.line })
      continue
    }
    if (used + cost[top.line]! > budget) continue
    used += cost[top.line]!
    chosen.push(top.line)
    for (const k of perLine[top.line]!) covered.add(k)
  }
  chosen.sort((a, b) => a - b)
  return { text: chosen.map((i) => lines[i]).join("\n"), lines: chosen, covered: covered.size, total }
}

/**
 * The first `budgetTokens` of `material` by the default estimator: what the
 * Summarizer's fallback keeps.
 *
 * @since 0.1.0
 */
export const head = (material: string, budgetTokens: number): string =>
  TokenEstimator.approximate.truncate(material, budgetTokens)
