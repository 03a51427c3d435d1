/**
 * The near-duplicate key of a segment: texts that differ only in their
 * numbers, hex ids, case, punctuation or spacing share it; its hash, length
 * and wordiness read in one scan, without building it.
 *
 * @internal
 */
import { isAsciiDigit, isAsciiLetter } from "./chars.js"

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
