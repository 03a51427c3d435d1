/**
 * How a compaction pass cuts its work, pure: what it evicts (all but the fresh
 * tail), how it chunks turns into leaves and groups summaries to condense.
 * When to compact is `trigger.ts`'s.
 *
 * @internal
 */
import { ConversationTurn, ToolUse } from "@precis/core"
import { start as tailStart, type TokenBound, type TurnLike } from "../FreshTail.js"

/** The uncovered turns a leaf pass summarizes: all of them but the fresh tail (`FreshTail.start`). */
export const evictable = <A extends TurnLike>(
  turns: ReadonlyArray<A>,
  freshTailTurns: number,
  bound?: TokenBound<A>
): ReadonlyArray<A> => turns.slice(0, tailStart(turns, freshTailTurns, bound))

/**
 * The oldest at most `max` of `turns` (a bound on what one pass summarizes).
 * The cut never separates a tool result from its call: while the first turn
 * left out is a tool result, the cut moves earlier; when that leaves nothing
 * (the first call's results reach past `max`), it moves later past the
 * results instead, so a pass always makes progress.
 */
export const bounded = <A extends TurnLike>(turns: ReadonlyArray<A>, max: number | undefined): ReadonlyArray<A> => {
  if (max === undefined || turns.length <= max) return turns
  let end = max
  while (end > 0 && ConversationTurn.isToolResult(turns[end]!)) end--
  if (end === 0 && max > 0) {
    end = max
    while (end < turns.length && ConversationTurn.isToolResult(turns[end]!)) end++
  }
  return turns.slice(0, end)
}

/**
 * The least material (`Material` tokens: what a summarizer reads of the turns)
 * a chunk needs for a leaf of its own (see {@link chunk}): a summary of less
 * says a line or two (`assistant: No`), and pays a summary header for it. A 39 KB file read is 10,000 tokens of
 * turns but one line of material; an extractive leaf keeps 0.3 of its
 * material, so this gives leaves of about 100 tokens or more. Half a smaller
 * chunk limit.
 */
export const MIN_LEAF_MATERIAL = 400

/** {@link MIN_LEAF_MATERIAL}, or half a smaller chunk limit. */
export const minLeafMaterial = (limit: number): number => Math.min(MIN_LEAF_MATERIAL, Math.floor(limit / 2))

/** What {@link chunk} may also know of its items. */
export interface ChunkOptions<A> {
  /**
   * The ids of the calls an item makes and of those it answers: a result then
   * stays in the chunk of its call even when calls run in parallel (two calls,
   * then their two results), not only when it follows its call.
   */
  readonly pairs?: {
    readonly calls: (item: A) => ReadonlyArray<string>
    readonly answers: (item: A) => ReadonlyArray<string>
  } | undefined
  /** What decides that a chunk is too small to stand alone (default: its tokens), measured against `minTokens`. */
  readonly weight?: ((item: A) => number) | undefined
}

/**
 * Greedy chunks, in order: a chunk takes items while its total stays at most
 * `limit`; an item larger than `limit` is a chunk of its own. A `sticky` item
 * (a tool result) never starts a chunk after the first: when it does not fit,
 * the chunk is cut before the last non-sticky item (its call), which moves to
 * the next chunk with it; with `options.pairs`, the cut moves on before every
 * call whose result comes after it, in this chunk's next item or any later
 * (parallel calls and their results stay together, a call without a result
 * between them included); when there is no such item to cut before, the chunk
 * grows past `limit` rather than separate them. Then a chunk under `minTokens`
 * (by `options.weight`, else by its tokens) merges whole with its smaller
 * neighbour (the previous one on a tie), so it may pass `limit`; merging only
 * removes a cut, so a call and its result still stay together.
 */
export const chunk = <A>(
  items: ReadonlyArray<A>,
  tokens: (item: A) => number,
  limit: number,
  sticky: (item: A) => boolean = () => false,
  minTokens = 0,
  options: ChunkOptions<A> = {}
): Array<Array<A>> => {
  const chunks: Array<Array<A>> = []
  const answerAt = options.pairs === undefined ? undefined : answerIndex(items, options.pairs)
  let current: Array<A> = []
  let sizes: Array<number> = []
  let total = 0
  // The index among `items` of `current[0]`.
  let base = 0
  for (const item of items) {
    const size = tokens(item)
    if (current.length > 0 && total + size > limit) {
      let cut = current.length
      if (sticky(item)) {
        cut = current.length - 1
        while (cut > 0 && sticky(current[cut]!)) cut--
      }
      if (answerAt !== undefined) cut = pairedCut(base, cut, answerAt)
      if (cut > 0) {
        chunks.push(current.slice(0, cut))
        current = current.slice(cut)
        sizes = sizes.slice(cut)
        total = sizes.reduce((a, b) => a + b, 0)
        base += cut
      }
    }
    current.push(item)
    sizes.push(size)
    total += size
  }
  if (current.length > 0) chunks.push(current)
  if (minTokens <= 0) return chunks
  const weight = options.weight ?? tokens
  return mergeSmall(chunks, chunks.map((c) => c.reduce((n, item) => n + weight(item), 0)), minTokens)
}

// For each item, the index of the last result among `items` that answers one of its calls
// (`ToolUse.pairBy`: each result with the nearest call of its id still waiting), or -1.
const answerIndex = <A>(items: ReadonlyArray<A>, pairs: NonNullable<ChunkOptions<A>["pairs"]>): ReadonlyArray<number> => {
  const answerAt = new Array<number>(items.length).fill(-1)
  for (const { call, result } of ToolUse.pairBy(items, pairs.calls, pairs.answers).pairs) {
    answerAt[call] = Math.max(answerAt[call]!, result)
  }
  return answerAt
}

// The cut at or before `cut` (an index of the current chunk, which starts at `base` among the items)
// that leaves no call before it whose result comes after it, wherever that result is: each call
// left behind moves along with its result, until none is.
const pairedCut = (base: number, cut: number, answerAt: ReadonlyArray<number>): number => {
  let at = cut
  for (let moved = true; moved && at > 0;) {
    moved = false
    for (let i = 0; i < at; i++) {
      if (answerAt[base + i]! >= base + at) {
        at = i
        moved = true
        break
      }
    }
  }
  return at
}

/** Merges each chunk under `minTokens` into its smaller neighbour (the previous one on a tie). */
const mergeSmall = <A>(chunks: Array<Array<A>>, totals: ReadonlyArray<number>, minTokens: number): Array<Array<A>> => {
  const merged: Array<Array<A>> = []
  const mergedTotals: Array<number> = []
  let carry: Array<A> = []
  let carryTotal = 0
  for (let i = 0; i < chunks.length; i++) {
    const chunk = carry.length > 0 ? [...carry, ...chunks[i]!] : chunks[i]!
    const total = carryTotal + totals[i]!
    carry = []
    carryTotal = 0
    if (total < minTokens) {
      const last = merged.length - 1
      const hasNext = i + 1 < chunks.length
      if (last >= 0 && (!hasNext || mergedTotals[last]! <= totals[i + 1]!)) {
        merged[last]!.push(...chunk)
        mergedTotals[last]! += total
        continue
      }
      if (hasNext) {
        carry = chunk
        carryTotal = total
        continue
      }
    }
    merged.push(chunk)
    mergedTotals.push(total)
  }
  return merged
}

/**
 * Sizes of the groups condensing `count` siblings, in order, each between
 * `minFanIn` and `maxFanIn`: as many siblings as can be covered, in as few
 * groups as possible, the sizes as even as possible (so no trailing group is
 * smaller than `minFanIn`). The uncovered remainder (always `< minFanIn`, since
 * `maxFanIn >= minFanIn`) is left for a later run.
 */
export const groupSizes = (count: number, minFanIn: number, maxFanIn: number): Array<number> => {
  // k groups cover any total in [k * minFanIn, k * maxFanIn]: the most groups
  // that can be filled cover the most.
  const covered = Math.min(count, Math.floor(count / minFanIn) * maxFanIn)
  if (covered === 0) return []
  const groups = Math.ceil(covered / maxFanIn)
  const base = Math.floor(covered / groups)
  const larger = covered - base * groups
  return Array.from({ length: groups }, (_, i) => (i < larger ? base + 1 : base))
}

/** Splits `items` into consecutive slices of the given sizes. */
export const splitSizes = <A>(items: ReadonlyArray<A>, sizes: ReadonlyArray<number>): Array<Array<A>> => {
  const out: Array<Array<A>> = []
  let offset = 0
  for (const size of sizes) {
    out.push(items.slice(offset, offset + size))
    offset += size
  }
  return out
}

/**
 * The parentless summaries of the lowest depth holding at least `minFanIn` of
 * them (in the given order, which is conversation order), if any depth does.
 */
export const nextToCondense = <A extends { readonly depth: number }>(
  parentless: ReadonlyArray<A>,
  minFanIn: number
): { readonly depth: number; readonly siblings: ReadonlyArray<A> } | undefined => {
  const byDepth = new Map<number, Array<A>>()
  for (const s of parentless) {
    const siblings = byDepth.get(s.depth)
    if (siblings === undefined) byDepth.set(s.depth, [s])
    else siblings.push(s)
  }
  const depth = Array.from(byDepth.keys()).sort((a, b) => a - b).find((d) => byDepth.get(d)!.length >= minFanIn)
  return depth === undefined ? undefined : { depth, siblings: byDepth.get(depth)! }
}

/** The groups condensing `siblings`, in order (see {@link groupSizes}); the remainder is left out. */
export const condenseGroups = <A>(siblings: ReadonlyArray<A>, minFanIn: number, maxFanIn: number): Array<Array<A>> =>
  splitSizes(siblings, groupSizes(siblings.length, minFanIn, maxFanIn))
