/**
 * JSON helpers for importers: parsing with the line of a syntax error, and
 * the lines where the elements of a top-level array start.
 *
 * @internal
 */
import { LineFailure } from "./common.js"

/** The 1-based line of character `offset` in `text`. */
export const lineAt = (text: string, offset: number): number => {
  let line = 1
  const end = Math.min(offset, text.length)
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

const WS = new Set([32, 9, 10, 13])

const describe = (text: string, at: number): string =>
  at >= text.length ? "unexpected end of input" : `unexpected character ${JSON.stringify(text[at])}`

/** Where a check stopped: the offset of the first syntax error and what it is. */
class Stop {
  constructor(readonly offset: number, readonly reason: string) {}
}

/** The offset just after the string whose opening quote is at `i`; a {@link Stop} at its first fault. */
const stringEnd = (text: string, i: number): number => {
  i++ // opening quote
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 34) return i + 1
    if (c === 92) {
      const next = text[i + 1]
      if (next === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i, "invalid \\u escape in string")
        i += 6
      } else if (next !== undefined && "\"\\/bfnrt".includes(next)) {
        i += 2
      } else {
        throw new Stop(i, "invalid escape in string")
      }
      continue
    }
    if (c < 32) throw new Stop(i, c === 10 ? "unterminated string (a raw line break inside it)" : "control character in string")
    i++
  }
  throw new Stop(i, "unterminated string")
}

/**
 * Where the first JSON syntax error in `text` is, and what it is; `undefined`
 * when the text is valid JSON. Only run after `JSON.parse` failed, since
 * engines differ in whether their messages carry a position.
 */
export const syntaxError = (text: string): { readonly offset: number; readonly reason: string } | undefined => {
  let i = 0
  const skip = () => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++
  }
  const expect = (what: string): never => {
    throw new Stop(i, i >= text.length ? `unexpected end of input, expected ${what}` : `expected ${what}, found ${JSON.stringify(text[i])}`)
  }
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
  // Recursive, a frame per level of nesting: absurd nesting may overflow the stack before the
  // depth check stops it (caught below).
  const value = (depth: number): void => {
    if (depth > 10_000) throw new Stop(i, "nesting too deep")
    skip()
    const c = text[i]
    if (c === "{") {
      i++
      skip()
      if (text[i] === "}") {
        i++
        return
      }
      for (;;) {
        skip()
        if (text[i] !== "\"") expect("a string key")
        i = stringEnd(text, i)
        skip()
        if (text[i] !== ":") expect("':'")
        i++
        value(depth + 1)
        skip()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "}") {
          i++
          return
        }
        expect("',' or '}'")
      }
    }
    if (c === "[") {
      i++
      skip()
      if (text[i] === "]") {
        i++
        return
      }
      for (;;) {
        value(depth + 1)
        skip()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "]") {
          i++
          return
        }
        expect("',' or ']'")
      }
    }
    if (c === "\"") {
      i = stringEnd(text, i)
      return
    }
    for (const literal of ["true", "false", "null"]) {
      if (text.startsWith(literal, i)) {
        i += literal.length
        return
      }
    }
    NUMBER.lastIndex = i
    if (NUMBER.exec(text) !== null && NUMBER.lastIndex > i) {
      i = NUMBER.lastIndex
      return
    }
    throw new Stop(i, describe(text, i))
  }
  try {
    value(0)
    skip()
    if (i < text.length) throw new Stop(i, `unexpected ${JSON.stringify(text[i])} after the JSON value`)
    return undefined
  } catch (e) {
    if (e instanceof Stop) return { offset: e.offset, reason: e.reason }
    // A stack overflow on absurd nesting: no position to give.
    return { offset: 0, reason: "nesting too deep" }
  }
}

/**
 * `JSON.parse(text)`, or a {@link LineFailure} at the line of the syntax error
 * (counted from `firstLine`).
 */
export const parseJson = (raw: string, firstLine = 1): unknown => {
  // A byte-order mark is not JSON but editors write it; it takes no line.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
  try {
    return JSON.parse(text)
  } catch {
    const found = syntaxError(text)
    const offset = found?.offset ?? 0
    throw new LineFailure(firstLine + lineAt(text, offset) - 1, `invalid JSON: ${found?.reason ?? "syntax error"}`)
  }
}

/**
 * The 1-based lines where the elements of an array start: the top-level array
 * when `key` is `undefined`, else the array valued at `key` in the top-level
 * object. One linear scan that skips strings.
 */
export const elementLines = (text: string, key?: string): ReadonlyArray<number> => {
  const lines: Array<number> = []
  let line = 1
  let depth = 0
  let targetDepth = key === undefined ? 1 : -1
  let lastString = ""
  let keyOfValue = ""
  let expectingElement = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) {
      line++
      continue
    }
    if (WS.has(c)) continue
    if (expectingElement && depth === targetDepth && c !== 93 /* ] */) {
      lines.push(line)
      expectingElement = false
    }
    if (c === 34) {
      const start = i + 1
      i++
      while (i < text.length && text.charCodeAt(i) !== 34) {
        if (text.charCodeAt(i) === 92) i++
        else if (text.charCodeAt(i) === 10) line++
        i++
      }
      if (depth === 1) lastString = text.slice(start, i)
      continue
    }
    if (c === 58 /* : */ && depth === 1) keyOfValue = lastString
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++
      if (c === 91 && key !== undefined && depth === 2 && keyOfValue === key && targetDepth === -1) targetDepth = 2
      if (c === 91 && depth === targetDepth) expectingElement = true
    } else if (c === 125 || c === 93) {
      // Only the first matching array counts.
      if (depth === targetDepth && c === 93) targetDepth = -2
      depth--
    } else if (c === 44 /* , */ && depth === targetDepth) expectingElement = true
  }
  return lines
}
