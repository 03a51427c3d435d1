/**
 * Scoring of candidate segments beyond their facts (which `keys.ts` finds):
 * errors and their fixes, decisions, the user's requests, TF-IDF centrality
 * in the material, filler; and the near-duplicate key.
 *
 * @internal
 */
import { ConversationTurn, OutputDigest, ToolKind, ToolMetadata } from "@precis/core"

const RESOLUTION =
  /\b(?:fix|fixed|fixes|fixing|resolv\w*|solv\w*|root cause|caused by|works now|now pass\w*|all tests pass\w*|\d+ passed|passing|succeeded|workaround|patched)\b/i
const DECISION =
  /\b(?:decid\w*|decision|chose|choose|instead|we will|we'll|i'll use|let's use|going with|plan|agreed|must|should|don't|do not|never|always|todo|next step|approach|prefer|requirement|need to)\b/i
// A change in the state of the work: issue status updates, test and build
// results with their counts, commits, pushes, merges. A bare "closed" is not
// one (`:closed` atoms, "excludes closed annotations" are code).
const STATE =
  /--status[= ]\w+|\bbd (?:close|update|create)\b|✓ (?:Updated|Closed|Created)\b|\b(?:git (?:commit|push|merge|tag)|gh pr (?:create|merge))\b|\b\d+ (?:tests?|passed|failed|failures?|errors?|skipped|examples?|doctests?|properties)\b|\b(?:tests?|build|lint|checks?|compilation) (?:passed|failed|succeeded|pass|fail|fails|green|red)\b|^\[[\w/.-]+ [0-9a-f]{7,}\]|\b(?:merged|pushed|committed|in[_ ]progress|status: \w+)\b/i
// Words that are only syntax: a line made of them and punctuation (`end`,
// `} else {`, `</div>`, `);`) says nothing by itself.
const SYNTAX_WORDS = new Set(
  "end do else elif elsif fi done esac then begin rescue ensure try finally catch pass endif endfor endwhile div span li ul template script style"
    .split(" ")
)
const NOT_WORD = /[^\p{L}\p{N}_]+/u
// A line that stands for a tool call: a rendered action (`$ mix test`, `Read PATH`,
// `Edit PATH: …`, `Grep "x"`: a tool's name as its agent spells it, `ToolKind.allNames`)
// or result (`read PATH`, `wrote PATH`); the raw `[tool_call Name] {json}` of an import
// is `ToolMetadata.isCallLine`.
const ACTION = new RegExp(
  `^\\s*(?:\\$ \\S|(?:${[...ToolKind.allNames, "read", "wrote", "edited", "created"].join("|")}) \\S)`
)
const THINKING = /^\s*\[thinking\]/
// A line that opens with a tag (`<task-notification>`, `</div>`): markup, not prose.
const TAG = /^\s*<\/?[\w-]+>/

const FILLER =
  /^(?:ok|okay|sure|thanks|thank you|great|got it|alright|sounds good|let me|let's see|now let's|i will now|i'll now|done|yes|no)\b/i

const isAsciiLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90)
const isAsciiDigit = (c: number): boolean => c >= 48 && c <= 57

const isHexWord = (word: string): boolean => {
  if (word.length < 7) return false
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i)
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false
  }
  return true
}

const hasDigit = (word: string): boolean => {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i)
    if (c >= 48 && c <= 57) return true
  }
  return false
}

const normalizeWord = (word: string): string =>
  isHexWord(word) || (word.startsWith("0x") && isHexWord(`${word.slice(2)}0000000`))
    ? "h"
    : hasDigit(word)
    ? word.replace(DIGITS, "0")
    : word

const DIGITS = /\d+/g
const WORD = /[\p{L}\p{N}]+/gu

/**
 * A key under which exact and near-duplicate texts coincide: lower-cased
 * words, hex ids (7+ hex digits, or `0x...`) as `h`, digit runs as `0`,
 * punctuation and spacing ignored. One pass over the text.
 */
export const nearKey = (text: string): string => {
  const n = text.length
  let key = ""
  let start = -1
  // ASCII words by a scan of the characters; any other character sends the
  // text to the Unicode-aware match.
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32
    if (c > 127) return nearKeyUnicode(text)
    if (isAsciiLetter(c) || isAsciiDigit(c)) {
      if (start < 0) start = i
    } else if (start >= 0) {
      const word = normalizeWord(text.slice(start, i).toLowerCase())
      key = key.length === 0 ? word : `${key} ${word}`
      start = -1
    }
  }
  return key
}

const nearKeyUnicode = (text: string): string => {
  const words = text.toLowerCase().match(WORD)
  if (words === null) return ""
  for (let i = 0; i < words.length; i++) words[i] = normalizeWord(words[i]!)
  return words.join(" ")
}

/** Keys shorter than this are too generic to call two lines duplicates. */
export const MIN_KEY = 8

/** Whether a near-duplicate key has `MIN_KEY` characters of words besides numbers and hex ids. */
export const wordy = (key: string): boolean => {
  let chars = 0
  let start = 0
  for (let i = 0; i <= key.length; i++) {
    if (i < key.length && key.charCodeAt(i) !== 32) continue
    const length = i - start
    if (length !== 1 || (key[start] !== "0" && key[start] !== "h")) chars += length + 1
    if (chars > MIN_KEY) return true
    start = i + 1
  }
  return false
}

/** A hash of a string's characters (FNV-1a over UTF-16 code units), continued from `hash`. */
export const hashOf = (text: string, from = 0, to = text.length, hash = FNV_SEED): number => {
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME)
  return hash
}

const FNV_SEED = 0x811c9dc5
const FNV_PRIME = 0x01000193

/** What {@link nearKeyFacts} finds of a text's near key. */
export interface NearFacts {
  /** {@link hashOf} the key. */
  hash: number
  /** The key's length. */
  length: number
  /** {@link wordy} the key. */
  wordy: boolean
}

const isLowerHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102)

/**
 * The hash, length and {@link wordy}ness of {@link nearKey}`(text)` into
 * `facts`, without building the key when the text is ASCII (one scan of its
 * characters).
 */
export const nearKeyFacts = (text: string, facts: NearFacts): void => {
  const n = text.length
  let hash = FNV_SEED
  let length = 0
  let chars = 0
  // The word being read: the hash before it (with its separator), its hash as
  // written (lower-cased, digit runs as one `0`), how many characters that
  // writes and the last of them, its size, and whether it is a hex id (all
  // hex digits, or `0x` then hex digits).
  let inWord = false
  let before = 0
  let wordHash = 0
  let written = 0
  let last = 0
  let size = 0
  let first = 0
  let allHex = true
  let restHex = true
  let zeroX = false
  let previousDigit = false
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32
    if (isAsciiLetter(c) || isAsciiDigit(c)) {
      if (!inWord) {
        inWord = true
        before = length > 0 ? Math.imul(hash ^ 32, FNV_PRIME) : hash
        wordHash = before
        written = 0
        size = 0
        first = c
        allHex = true
        restHex = true
        previousDigit = false
      }
      const lower = c | 32
      if (!isLowerHex(lower)) {
        allHex = false
        if (size >= 2) restHex = false
      }
      if (size === 1) zeroX = first === 48 && lower === 120
      const digit = c <= 57
      if (!digit) {
        wordHash = Math.imul(wordHash ^ lower, FNV_PRIME)
        written++
        last = lower
      } else if (!previousDigit) {
        wordHash = Math.imul(wordHash ^ 48, FNV_PRIME)
        written++
        last = 48
      }
      previousDigit = digit
      size++
      continue
    }
    if (c > 127) {
      const key = nearKeyUnicode(text)
      facts.hash = hashOf(key)
      facts.length = key.length
      facts.wordy = wordy(key)
      return
    }
    if (!inWord) continue
    inWord = false
    if ((size >= 7 && allHex) || (size >= 2 && zeroX && restHex)) {
      hash = Math.imul(before ^ 104, FNV_PRIME)
      written = 1
      last = 104
    } else {
      hash = wordHash
    }
    length += (length > 0 ? 1 : 0) + written
    if (written !== 1 || (last !== 48 && last !== 104)) chars += written + 1
  }
  facts.hash = hash
  facts.length = length
  facts.wordy = chars > MIN_KEY
}

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

/** What is known about a segment besides its text. */
export interface Context {
  /** Whether it reports an error ({@link isError}). */
  readonly error: boolean
  /** Whether it reports a change of state ({@link isState}). */
  readonly state: boolean
  readonly role: string
  readonly firstRequest: boolean
  readonly turnHead: boolean
  /** Whether the segment holds a fact (a short line with one is not filler). */
  readonly hasFacts: boolean
  readonly alreadySummarized: boolean
}

/** Whether a text reports an error (`OutputDigest.isErrorLine`; such lines survive tool-output shortening). */
export const isError = (text: string): boolean => OutputDigest.isErrorLine(text)

/**
 * Whether a text reports a change in the state of the work (a status update, a
 * test result, a commit). A test runner's line for one file that passed is not
 * one: the run's totals are (`OutputDigest.isPassedFileLine`).
 */
export const isState = (text: string): boolean => STATE.test(text) && !OutputDigest.isPassedFileLine(text)

/** Whether a line is only syntax (brackets, `end`, `else`, closing tags) or blank. */
export const isSyntax = (text: string): boolean => {
  // Words of ASCII letters, digits and `_` are checked as they end (most lines
  // fail at their first word); any other character sends the text to the
  // Unicode-aware split.
  const n = text.length
  let start = -1
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32
    if (c > 127) return isSyntaxUnicode(text)
    if (isAsciiLetter(c) || isAsciiDigit(c) || c === 95) {
      if (start < 0) start = i
    } else if (start >= 0) {
      if (!SYNTAX_WORDS.has(text.slice(start, i))) return false
      start = -1
    }
  }
  return true
}

const isSyntaxUnicode = (text: string): boolean => {
  for (const word of text.split(NOT_WORD)) {
    if (word.length > 0 && !SYNTAX_WORDS.has(word)) return false
  }
  return true
}

/** Whether a line of a conversational turn is a tool call rather than prose. */
export const isAction = (text: string): boolean => ToolMetadata.isCallLine(text) || ACTION.test(text)

/**
 * Whether a line is no one's prose: markup (a line that opens with a tag), or
 * what a harness writes into a user turn (`OutputDigest.isHarnessNoise`:
 * `<command-name>`, `[Request interrupted by user]`, a continuation summary).
 */
export const isInjected = (text: string): boolean => TAG.test(text) || OutputDigest.isHarnessNoise(text.trimStart())

/** Whether a line is the assistant's hidden reasoning (`[thinking] …`). */
export const isThinking = (text: string): boolean => THINKING.test(text)

/** Weights of what a segment says beyond its facts (its facts count as coverage keys). */
export const emphasisWeights = {
  error: 0.5,
  state: 1.5,
  resolution: 0.5,
  decision: 0.25,
  user: 0.5,
  firstRequest: 0.5,
  centrality: 0.25,
  short: -0.5,
  filler: -0.5,
  alreadySummarized: -1
} as const

/**
 * What a segment is worth besides the new facts it adds (commands are facts):
 * a change of state (most), an error, its resolution, a decision, the user's words (the first request
 * most), centrality; filler and lines the prior summary holds count against.
 */
export const emphasis = (text: string, context: Context, central: number): number => {
  const w = emphasisWeights
  const trimmed = text.trim()
  let score = w.centrality * central
  if (context.error) score += w.error
  if (context.state) score += w.state
  if (RESOLUTION.test(text)) score += w.resolution
  if (DECISION.test(text)) score += w.decision
  // The user's words: the first line of each turn (not what a harness wrote there), and all of the first request.
  if (ConversationTurn.isUserRole(context.role) && context.turnHead && !isInjected(text)) score += w.user
  if (context.firstRequest) score += w.firstRequest
  if (!context.hasFacts && trimmed.length < 16) score += w.short
  if (FILLER.test(trimmed)) score += w.filler
  if (context.alreadySummarized) score += w.alreadySummarized
  return score
}
