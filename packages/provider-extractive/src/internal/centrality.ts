/**
 * TF-IDF centrality of the candidate segments in the material: how much of
 * what the material keeps talking about a segment names.
 *
 * @internal
 */
import { isAsciiDigit, isAsciiLetter } from "./chars.js"

const STOP = new Set(
  ("the and for are but not you all any can had her was one our out day get has him his how man new now old see two way who " +
    "did its let put say she too use that with have this will your from they know want been good much some time very when " +
    "come here just like long make many more only over such take than them well were what into then there these would " +
    "about which their other could should after also because where while being does done okay sure thanks")
    .split(" ")
)

const TERM = /[\p{L}_][\p{L}\p{N}_]+|\d{2,}/gu

/**
 * Term ids by text, without a string per occurrence: a term of an ASCII text
 * is hashed and compared in place (lower-cased as it is read); a string is
 * made only for a new term. Open addressing, linear probing.
 */
class Terms {
  /** Slot → term id + 1 (0: empty). */
  private table = new Int32Array(1024)
  private readonly hashes: Array<number> = []
  readonly texts: Array<string> = []
  /** The id of the stop words' first term: ids below it are stop words. */
  readonly stops: number
  constructor() {
    for (const word of STOP) this.idOf(word, 0, word.length, false)
    this.stops = this.texts.length
  }
  /** The id of the term `text.slice(from, to)` lower-cased (`lower`: lower-case ASCII letters as read). */
  idOf(text: string, from: number, to: number, lower: boolean): number {
    let hash = 0
    for (let i = from; i < to; i++) {
      let c = text.charCodeAt(i)
      if (lower && c >= 65 && c <= 90) c += 32
      hash = Math.imul(hash ^ c, 0x01000193)
    }
    const mask = this.table.length - 1
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!
      if (entry === 0) break
      const id = entry - 1
      if (this.hashes[id] === hash && this.same(this.texts[id]!, text, from, to, lower)) return id
    }
    const id = this.texts.length
    const term = text.slice(from, to)
    this.texts.push(lower ? term.toLowerCase() : term)
    this.hashes.push(hash)
    if (2 * this.texts.length > this.table.length) this.grow()
    else this.place(hash, id)
    return id
  }
  private same(term: string, text: string, from: number, to: number, lower: boolean): boolean {
    if (term.length !== to - from) return false
    for (let i = from; i < to; i++) {
      let c = text.charCodeAt(i)
      if (lower && c >= 65 && c <= 90) c += 32
      if (c !== term.charCodeAt(i - from)) return false
    }
    return true
  }
  private place(hash: number, id: number): void {
    const mask = this.table.length - 1
    let slot = hash & mask
    while (this.table[slot] !== 0) slot = (slot + 1) & mask
    this.table[slot] = id + 1
  }
  private grow(): void {
    this.table = new Int32Array(this.table.length * 2)
    for (let id = 0; id < this.texts.length; id++) this.place(this.hashes[id]!, id)
  }
}

const isTermStart = (c: number): boolean => isAsciiLetter(c) || c === 95

const isTermPart = (c: number): boolean => isAsciiLetter(c) || isAsciiDigit(c) || c === 95

/**
 * TF-IDF centrality of each text in [0, 1]: the weight of its distinct terms in
 * the whole material (log term frequency times inverse document frequency,
 * documents being the texts), normalized by the square root of its term count
 * and by the best score. Terms are the lower-cased {@link TERM}s (an ASCII text
 * by a scan of its characters). Linear in the size of the texts.
 */
export const centrality = (texts: ReadonlyArray<string>): Float64Array => {
  const dictionary = new Terms()
  const tf: Array<number> = []
  const df: Array<number> = []
  const seen: Array<number> = []
  // Each text's distinct terms in order of appearance: docTerms[docStart[d] .. docStart[d + 1]).
  let docTerms = new Int32Array(1024)
  let size = 0
  const docStart = new Int32Array(texts.length + 1)
  let d = 0
  const count = (id: number) => {
    if (id < dictionary.stops) return
    const term = id - dictionary.stops
    if (term === tf.length) {
      tf.push(0)
      df.push(0)
      seen.push(-1)
    }
    tf[term]!++
    if (seen[term] !== d) {
      seen[term] = d
      df[term]!++
      if (size === docTerms.length) {
        const grown = new Int32Array(size * 2)
        grown.set(docTerms)
        docTerms = grown
      }
      docTerms[size++] = term
    }
  }
  for (; d < texts.length; d++) {
    docStart[d] = size
    const text = texts[d]!
    const n = text.length
    let ascii = true
    for (let i = 0; i < n && ascii; i++) ascii = text.charCodeAt(i) <= 127
    if (!ascii) {
      for (const term of text.toLowerCase().match(TERM) ?? []) count(dictionary.idOf(term, 0, term.length, false))
      continue
    }
    let i = 0
    while (i < n) {
      const c = text.charCodeAt(i)
      const start = i++
      if (isTermStart(c)) {
        while (i < n && isTermPart(text.charCodeAt(i))) i++
        if (i - start >= 2) count(dictionary.idOf(text, start, i, true))
      } else if (isAsciiDigit(c)) {
        while (i < n && isAsciiDigit(text.charCodeAt(i))) i++
        if (i - start >= 2) count(dictionary.idOf(text, start, i, false))
      }
    }
  }
  docStart[texts.length] = size
  const n = texts.length
  const weight = tf.map((f, id) => Math.log1p(f) * Math.log((n + 1) / (df[id]! + 0.5)))
  const scores = new Float64Array(n)
  let best = 0
  for (let d = 0; d < n; d++) {
    const from = docStart[d]!
    const to = docStart[d + 1]!
    let sum = 0
    for (let k = from; k < to; k++) sum += Math.max(0, weight[docTerms[k]!]!)
    const score = to === from ? 0 : sum / Math.sqrt(to - from + 1)
    scores[d] = score
    if (score > best) best = score
  }
  if (best > 0) for (let d = 0; d < n; d++) scores[d] = scores[d]! / best
  return scores
}
