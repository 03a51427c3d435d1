/**
 * Text laid out at a width: the help pages are blocks of words (a paragraph,
 * a usage line, an option's name) and tables of two columns, wrapped at the
 * terminal's width. `@effect/cli` prints each paragraph on one line whatever
 * its length, so its renderer is not used.
 *
 * @internal
 */

/**
 * Words laid out as one paragraph: `indent` spaces before each line, and
 * `hang` more before each line after the first. A word may hold spaces (a
 * usage element such as `[--format auto | precis]`): it is broken at them only
 * when it does not fit on a line of its own.
 */
export interface Text {
  readonly _tag: "Text"
  readonly words: ReadonlyArray<string>
  readonly indent: number
  readonly hang: number
  readonly strong: boolean
}

/** Rows of two columns (a name, what it is), the second wrapped in its column. */
export interface Table {
  readonly _tag: "Table"
  readonly rows: ReadonlyArray<readonly [string, string]>
  readonly indent: number
}

/** One block of a page; blocks are printed with a blank line between them. */
export type Block = Text | Table

/** The words of `text`, split at its blanks. */
export const words = (text: string): ReadonlyArray<string> => text.split(/\s+/).filter((word) => word.length > 0)

/** A {@link Text} block of `text` (split into words) or of the given words. */
export const text = (
  content: string | ReadonlyArray<string>,
  options: { readonly indent?: number; readonly hang?: number; readonly strong?: boolean } = {}
): Text => ({
  _tag: "Text",
  words: typeof content === "string" ? words(content) : content,
  indent: options.indent ?? 0,
  hang: options.hang ?? 0,
  strong: options.strong ?? false
})

/** A {@link Table} block. */
export const table = (rows: ReadonlyArray<readonly [string, string]>, indent = 0): Table => ({ _tag: "Table", rows, indent })

/**
 * `words` in lines of at most `width` characters, the lines after the first
 * starting with `hang` spaces (counted in the width). A word longer than a
 * line is broken at its spaces, else left whole (the only way past `width`).
 */
export const wrap = (words: ReadonlyArray<string>, width: number, hang = 0): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  const room = () => width - (lines.length === 0 ? 0 : hang)
  const place = (word: string) => {
    if (line.length === 0) line = word
    else if (line.length + 1 + word.length <= room()) line += ` ${word}`
    else {
      lines.push(line)
      line = word
    }
  }
  for (const word of words) {
    const fitsHere = (line.length === 0 ? 0 : line.length + 1) + word.length <= room()
    if (!fitsHere && word.length > width - hang && word.includes(" ")) {
      for (const part of word.split(" ")) if (part.length > 0) place(part)
    } else place(word)
  }
  if (line.length > 0) lines.push(line)
  return lines.map((l, i) => (i === 0 ? l : `${" ".repeat(hang)}${l}`))
}

// The narrowest second column of a table; narrower, it goes under the first.
const MIN_COLUMN = 24

const BOLD = "\x1b[1m"
const RESET = "\x1b[0m"

const renderText = (block: Text, width: number): string => {
  const pad = " ".repeat(block.indent)
  return wrap(block.words, width - block.indent, block.hang)
    .map((line) => (block.strong ? `${pad}${BOLD}${line}${RESET}` : `${pad}${line}`))
    .join("\n")
}

const renderTable = (block: Table, width: number): string => {
  const pad = " ".repeat(block.indent)
  const column = Math.max(...block.rows.map(([left]) => left.length)) + 2
  const room = width - block.indent - column
  return block.rows.flatMap(([left, right]) =>
    room >= MIN_COLUMN
      ? wrap(words(right), room).map((line, i) => `${pad}${i === 0 ? left.padEnd(column) : " ".repeat(column)}${line}`)
      : [`${pad}${left}`, ...wrap(words(right), width - block.indent - 4).map((line) => `${pad}    ${line}`)]
  ).join("\n")
}

/** The blocks as text at `width` columns, a blank line between blocks. */
export const render = (blocks: ReadonlyArray<Block>, width: number): string =>
  blocks.map((block) => (block._tag === "Text" ? renderText(block, width) : renderTable(block, width))).join("\n\n")
