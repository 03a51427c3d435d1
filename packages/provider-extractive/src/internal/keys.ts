/**
 * The facts of a segment as keys for coverage: file paths and names, code
 * spans, identifiers, error names and codes, URLs and numbers, each under its
 * exact text. A summary that keeps a key once keeps that fact; keeping it
 * twice adds nothing.
 *
 * @internal
 */

// One pass: the first alternative that matches at a position wins, so a path
// is one key (not its parts) and a code span is keyed by its content. The
// group that matched tells the kind.
const KEY = new RegExp(
  [
    // 1: URLs
    /(\bhttps?:\/\/[^\s<>"'`)\]}]+)/.source,
    // 2: code spans
    "(`[^`\\n]{1,80}`)",
    // 3: paths: segments joined by slashes, optionally rooted
    /((?:~\/|\.{1,2}\/|\/)?(?:[\w.@+-]+\/)+[\w.@+-]*\w)/.source,
    // 4: file names with an extension
    /(\b[\w-]+\.(?:tsx?|jsx?|mjs|cjs|py|rs|go|java|kt|rb|php|cs|c|h|cc|cpp|hpp|swift|json|ya?ml|toml|md|rst|txt|sh|css|scss|html|vue|svelte|sql|lock|cfg|ini|env|xml|gradle|traj|csv|log|pdf|dcm)\b)/
      .source,
    // 5: error names
    /(\b[A-Z]\w*(?:Error|Exception|Warning|Fault)\b)/.source,
    // 6: codes: ENOENT, ERR_X, TS2304, E501, INV-2025-0412
    /(\bE[A-Z]{3,}\b|\bERR_[A-Z0-9_]+|\b[A-Z]{1,4}[-_]?\d{2,}(?:-\d+)*\b)/.source,
    // 7: qualified names and calls (a.b.c, a::b, f()), camelCase, PascalCase
    // with an inner capital, snake_case and CONSTANT_CASE
    /(\b[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)+(?:\(\))?|\b[A-Za-z_$][\w$]*\(\)|\b[A-Za-z][a-z0-9]*[a-z0-9][A-Z]\w*|\b[A-Z]{2,}[a-z]\w*|\b[A-Za-z]\w*_\w+)/
      .source,
    // 8: numbers: versions, amounts, times, sizes (two characters or more)
    /((?<![\w.])\d+(?:[.,:]\d+)*(?!\w))/.source
  ].join("|"),
  "g"
)

/** The weight of a key by its kind (the group of {@link KEY} that matched, 0: a command). */
const KIND_WEIGHT = [1, 1, 1, 1, 1, 1, 1, 0.25, 1]

const TRAILING = /[.,;:!?]+$/
// A lone number with at most a bracket or two beside it (`  18  `, `16  })`)
// is a listing's line number or a count out of context: not a fact.
const BARE_NUMBER = /^\s*\d+[:.]?\s*[^\w\s]{0,3}\s*$/
// A command line: after a `$ ` prompt, or a line that starts with a shell,
// build or agent-tool command (the whole line is the command).
const PROMPT =
  /^\s*(?:\$ (\S.{0,200})|((?:npm|pnpm|yarn|npx|node|tsx|git|pytest|python3?|pip3?|make|cargo|go|docker|kubectl|ls|grep|rg|cd|cat|sed|awk|find|curl|tsc|vitest|jest|bash|sh|mkdir|rm|mv|cp|chmod|touch|submit|edit|open|create|goto|find_file|search_dir|search_file|scroll_up|scroll_down)(?:\s.{0,200})?))$/

/** The fact keys of a text with their weights. */
export interface Keys {
  readonly keys: ReadonlyArray<string>
  readonly weights: ReadonlyArray<number>
}

/**
 * The distinct fact keys of `text`, in order of appearance, each with its
 * weight: a named fact (path, file, URL, code span, command, error name,
 * code) weighs 1, a number `weightOfNumbers`, an identifier a quarter. Single
 * digits are everywhere (list items, counts) and are not keys, nor is a number
 * alone on its line (a listing's line number); a code span's key is its
 * content; a `$ command` line's key is the command. Line-number prefixes
 * (`12→`, `12\t`) are for the caller to strip (`segments.ts` does, by
 * `OutputDigest.stripLineNumber`).
 */
export const keysOf = (text: string, weightOfNumbers = 1): Keys => {
  const keys: Array<string> = []
  const weights: Array<number> = []
  eachKey(text, weightOfNumbers, (key, weight) => {
    if (keys.includes(key)) return
    keys.push(key)
    weights.push(weight)
  })
  return { keys, weights }
}

/**
 * Each fact key of `text` with its weight, in order of appearance, as
 * {@link keysOf} finds them but with repeats (a caller that numbers the keys
 * drops them cheaper by their numbers).
 */
export const eachKey = (text: string, weightOfNumbers: number, f: (key: string, weight: number) => void): void => {
  const add = (key: string, weight: number) => {
    if (key.length >= 2) f(key, weight)
  }
  const numbers = !BARE_NUMBER.test(text)
  const prompt = PROMPT.exec(text)
  if (prompt !== null) add((prompt[1] ?? prompt[2]!).trim(), KIND_WEIGHT[0]!)
  KEY.lastIndex = 0
  for (let match = KEY.exec(text); match !== null; match = KEY.exec(text)) {
    let kind = 1
    while (match[kind] === undefined) kind++
    let key = match[0]
    if (kind === 1) key = key.replace(TRAILING, "")
    else if (kind === 2) key = key.slice(1, -1).trim()
    if (kind === 8) {
      if (numbers) add(key, weightOfNumbers)
    } else {
      add(key, KIND_WEIGHT[kind]!)
    }
  }
}
