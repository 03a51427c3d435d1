/**
 * Choice under a budget by marginal gain per cost: a lazy greedy. Gains only
 * fall as choices are made (what a segment adds is already covered), so a
 * stale heap entry is an upper bound and is re-scored when it reaches the
 * top; costs that fall (a turn's prefix already paid) are pushed again by the
 * caller. Near O(n log n).
 *
 * @internal
 */

/** Below this gain a candidate is not worth its place (a bare central line, filler). */
const MIN_GAIN = 0.3

/** Floors are counted up to this (a larger floor counts as this one). */
const FLOORS = 1024

/** What the greedy needs to know about the candidates, as they stand now. */
export interface Scoring {
  /** What choosing `s` would add now (0 or less: never chosen). */
  readonly gain: (s: number) => number
  /** What choosing `s` would cost now (positive). */
  readonly cost: (s: number) => number
  /** Records `s` as chosen; returns the candidates whose cost fell because of it. */
  readonly choose: (s: number) => ReadonlyArray<number>
  /** A lower bound of `cost(s)` whatever is chosen (positive): what cannot fit is not looked at. */
  readonly floor: (s: number) => number
}

/**
 * A max-heap of (ratio, segment); ties go to the earlier segment. The order of
 * its pops depends only on the entries it holds (the order is total), not on
 * how they were arranged: it may start from any valid arrangement, such as
 * entries sorted best first.
 */
class Heap {
  private ratio: Float64Array
  private item: Int32Array
  size: number
  constructor(start: Start, capacity = start.size * 2) {
    capacity = Math.max(16, capacity)
    this.ratio = new Float64Array(capacity)
    this.item = new Int32Array(capacity)
    this.ratio.set(start.ratio.subarray(0, start.size))
    this.item.set(start.item.subarray(0, start.size))
    this.size = start.size
  }
  private above(i: number, j: number): boolean {
    const a = this.ratio[i]!
    const b = this.ratio[j]!
    return a > b || (a === b && this.item[i]! < this.item[j]!)
  }
  private swap(i: number, j: number): void {
    const r = this.ratio[i]!
    this.ratio[i] = this.ratio[j]!
    this.ratio[j] = r
    const s = this.item[i]!
    this.item[i] = this.item[j]!
    this.item[j] = s
  }
  push(ratio: number, item: number): void {
    if (this.size === this.item.length) {
      const ratios = new Float64Array(this.size * 2)
      ratios.set(this.ratio)
      this.ratio = ratios
      const items = new Int32Array(this.size * 2)
      items.set(this.item)
      this.item = items
    }
    this.ratio[this.size] = ratio
    this.item[this.size] = item
    for (let i = this.size++; i > 0;) {
      const parent = (i - 1) >> 1
      if (!this.above(i, parent)) break
      this.swap(i, parent)
      i = parent
    }
  }
  /** Moves the items of all entries to `into`, emptying the heap. */
  drainTo(into: Array<number>): void {
    for (let i = 0; i < this.size; i++) into.push(this.item[i]!)
    this.size = 0
  }
  /** The item of entry `i` (in no particular order). */
  itemAt(i: number): number {
    return this.item[i]!
  }
  /** The entries as they are arranged now (a valid start for another heap). */
  snapshot(): Start {
    return { ratio: this.ratio.slice(0, this.size), item: this.item.slice(0, this.size), size: this.size }
  }
  topRatio(): number {
    return this.ratio[0]!
  }
  pop(): number {
    const top = this.item[0]!
    const n = --this.size
    if (n > 0) {
      this.ratio[0] = this.ratio[n]!
      this.item[0] = this.item[n]!
      for (let i = 0;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < n && this.above(l, m)) m = l
        if (r < n && this.above(r, m)) m = r
        if (m === i) break
        this.swap(i, m)
        i = m
      }
    }
    return top
  }
}

/**
 * The candidates worth choosing with their gain per cost before any choice,
 * arranged as a heap: what every {@link greedy} over the same scoring starts
 * from, so that a caller choosing again (under another budget) scores them once.
 */
export interface Start {
  readonly ratio: Float64Array
  readonly item: Int32Array
  readonly size: number
}

/** The {@link Start} of `candidates` under `scoring` (nothing chosen yet). */
export const initial = (candidates: ReadonlyArray<number>, scoring: Scoring): Start => {
  const heap = new Heap({ ratio: new Float64Array(0), item: new Int32Array(0), size: 0 }, candidates.length)
  for (const s of candidates) {
    const gain = scoring.gain(s)
    if (gain >= MIN_GAIN) heap.push(gain / scoring.cost(s), s)
  }
  return heap.snapshot()
}

/** A greedy run that can be continued with more budget. */
export interface Greedy {
  /** Chooses while something fits in `budget` more; returns the budget used. */
  readonly fill: (budget: number) => number
  /** Chooses `s` whatever its ratio; returns its cost. */
  readonly take: (s: number) => number
  /** What choosing `s` would cost now. */
  readonly cost: (s: number) => number
  /** Whether `s` is worth choosing now (its gain reaches the minimum). */
  readonly worth: (s: number) => boolean
  /** 1 for each chosen candidate. */
  readonly chosen: Uint8Array
}

/**
 * A lazy greedy from `from` (the {@link initial} start of the candidates, segment
 * indices below `size`, under the same `scoring`): repeatedly the best gain
 * per cost that still fits. Deterministic.
 */
export const greedy = (size: number, from: Start, scoring: Scoring): Greedy => {
  const heap = new Heap(from)
  const chosen = new Uint8Array(size)
  let deferred: Array<number> = []
  // How many entries of the heap have each floor (FLOORS: that or more), and
  // the least floor with entries: when less budget is left than that, no
  // entry can fit, and the rest of the heap is deferred without popping it
  // (none of it could be chosen, and what was chosen does not change).
  const floors = new Int32Array(FLOORS + 1)
  let least = FLOORS
  const floorOf = (s: number) => Math.min(FLOORS, Math.max(1, Math.floor(scoring.floor(s))))
  const entered = (s: number) => {
    const f = floorOf(s)
    floors[f]!++
    if (f < least) least = f
  }
  for (let i = 0; i < heap.size; i++) entered(heap.itemAt(i))
  const push = (s: number) => {
    const gain = scoring.gain(s)
    if (gain >= MIN_GAIN) {
      heap.push(gain / scoring.cost(s), s)
      entered(s)
    }
  }
  const fill = (budget: number): number => {
    const waiting = deferred
    deferred = []
    // What cannot fit in the whole budget waits for the next fill.
    for (const s of waiting) if (chosen[s] === 0) floorOf(s) > budget ? deferred.push(s) : push(s)
    let used = 0
    while (heap.size > 0) {
      while (least < FLOORS && floors[least] === 0) least++
      if (budget - used < least) {
        heap.drainTo(deferred)
        floors.fill(0)
        least = FLOORS
        break
      }
      const stored = heap.topRatio()
      const s = heap.pop()
      floors[floorOf(s)]!--
      if (chosen[s] === 1) continue
      const gain = scoring.gain(s)
      if (gain < MIN_GAIN) continue
      const cost = scoring.cost(s)
      const ratio = gain / cost
      if (ratio < stored) {
        heap.push(ratio, s)
        entered(s)
        continue
      }
      if (used + cost > budget) {
        deferred.push(s)
        continue
      }
      used += cost
      chosen[s] = 1
      for (const t of scoring.choose(s)) if (chosen[t] === 0) push(t)
    }
    return used
  }
  const take = (s: number): number => {
    if (chosen[s] === 1) return 0
    const cost = scoring.cost(s)
    chosen[s] = 1
    for (const t of scoring.choose(s)) if (chosen[t] === 0) push(t)
    return cost
  }
  return { fill, take, cost: scoring.cost, worth: (s) => scoring.gain(s) >= MIN_GAIN, chosen }
}
