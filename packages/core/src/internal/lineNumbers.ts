/**
 * A listing's line-number prefixes, as tools write them: what
 * `OutputDigest.stripLineNumbers`, `numberedRange` and `stripLineNumber` read.
 *
 * @internal
 */

// Claude Code's Read (`    12→code`), always a line number.
const ARROW_PREFIX = /^\s*\d+→/
// `cat -n` (`     12\tcode`) and SWE-agent's viewer (`12:code`): only when most
// lines carry one, since `15:18:53 [warning]` must not lose its hour.
const TAB_PREFIX = /^\s*\d+\t/
const COLON_PREFIX = /^\s*\d+:(?!\d)/
// A numbered listing with two spaces after the number (`   12  code`).
const SPACE_PREFIX = /^\s*\d+ {2}/
// grep -n (`lib/foo.ex:12:code`): the path stays, the number goes.
const GREP_PREFIX = /^([^\s:]*[./][^\s:]*):\d+:/
const LISTING_NUMBER = /^\s*(\d+)(?:→|\t|:| {2})/

/**
 * The lines of a listing without their line-number prefixes: Claude Code's
 * `12→`, `cat -n`'s `12<TAB>`, a viewer's `12:` and `12  ` (each only when
 * most lines carry one), and the number of grep's `path:12:` (the path stays).
 *
 * @example
 * ```ts
 * import { OutputDigest } from "@precis/core"
 * OutputDigest.stripLineNumbers(["     1→import x", "     2→x()"]) // ["import x", "x()"]
 * ```
 * @internal
 */
export const stripLineNumbers = (listing: ReadonlyArray<string>): Array<string> => {
  let tab = 0
  let colon = 0
  let space = 0
  for (const line of listing) {
    if (TAB_PREFIX.test(line)) tab++
    else if (COLON_PREFIX.test(line)) colon++
    else if (SPACE_PREFIX.test(line)) space++
  }
  const half = listing.length / 2
  return listing.map((line) => {
    if (ARROW_PREFIX.test(line)) return line.replace(ARROW_PREFIX, "")
    if (tab > half && TAB_PREFIX.test(line)) return line.replace(TAB_PREFIX, "")
    if (colon > half && COLON_PREFIX.test(line)) return line.replace(COLON_PREFIX, "")
    if (space > half && SPACE_PREFIX.test(line)) return line.replace(SPACE_PREFIX, "")
    return line.replace(GREP_PREFIX, "$1: ")
  })
}

/**
 * The first and last line numbers of a numbered listing, when its lines have them.
 *
 * @internal
 */
export const numberedRange = (listing: ReadonlyArray<string>): readonly [number, number] | undefined => {
  let first: number | undefined
  let last: number | undefined
  for (const line of listing) {
    const number = LISTING_NUMBER.exec(line)?.[1]
    if (number === undefined) continue
    first ??= Number(number)
    last = Number(number)
  }
  return first === undefined || last === undefined ? undefined : [first, last]
}

// A line number that needs no context: Claude Code's `    12→`, `cat -n`'s
// `    12\t`, grep's `path:12:` (or `path-12-` for context lines), after an
// optional `… ` a summary left in front of a line.
const LINE_NUMBER = /^((?:\s*… )?)(?:\s*\d+(?:→|\t)|((?:[\w.@+-]*\/)*[\w@+-]*\.\w+)[:-]\d+[:-](?!\d))/

/**
 * One line without a line-number prefix that needs no context to be told
 * (`  12→`, `12<TAB>`, grep's `path:12:`, which keeps the path): for a line
 * read out of its listing, as in the material or a summary.
 *
 * @example
 * ```ts
 * import { OutputDigest } from "@precis/core"
 * OutputDigest.stripLineNumber("src/app.ts:42:  const x = 1") // "src/app.ts: const x = 1"
 * ```
 * @internal
 */
export const stripLineNumber = (line: string): string => {
  const match = LINE_NUMBER.exec(line)
  if (match === null) return line
  const rest = line.slice(match[0].length)
  return match[2] === undefined ? `${match[1]}${rest}` : `${match[1]}${match[2]}: ${rest.trimStart()}`
}
