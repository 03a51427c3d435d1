/**
 * Runs of repeated lines in an output, folded into one line with a count.
 *
 * @internal
 */

// A run shorter than this is kept as it is.
const MIN_RUN = 3

const NUMBER = /\d+/g

// The numbers of a line, in order.
const numbersOf = (line: string): Array<string> => line.match(NUMBER) ?? []

// Whether two lines repeat each other: the same text, or the same text but for one number
// (`Iteration 3 failed`, `Iteration 4 failed`); a blank line repeats nothing.
const repeats = (a: string, b: string): boolean => {
  if (a.trim().length === 0 || a.trim() !== b.trim() && a.replace(NUMBER, "N") !== b.replace(NUMBER, "N")) return false
  const x = numbersOf(a)
  const y = numbersOf(b)
  return x.filter((n, i) => n !== y[i]).length <= 1
}

// The line that stands for a run: the line itself with its count when the run
// repeats it exactly, else its shape with the range of the one number that varies.
const foldedLine = (run: ReadonlyArray<string>): string => {
  const first = run[0]!
  const count = `×${run.length}`
  if (run.every((line) => line === first)) return `${first} (${count})`
  const numbers = run.map(numbersOf)
  const varying = numbers[0]!.map((_, i) => i).filter((i) => numbers.some((n) => n[i] !== numbers[0]![i]))
  if (varying.length !== 1) return `${first} … (${count} like it)`
  const at = varying[0]!
  let index = 0
  const shaped = first.replace(NUMBER, (n) => index++ === at ? "N" : n)
  return `${shaped} (${count}, N = ${numbers[0]![at]}..${numbers[run.length - 1]![at]})`
}

/**
 * `lines` with each run of three or more consecutive lines that repeat the
 * first (the same text, or the same text but for one number) folded into one line with
 * its count: twenty `Iteration N failed` lines become `Iteration N failed
 * (×20, N = 1..20)`, and the line that differs from its neighbours stays as
 * it is. Blank lines are never folded. `folded[i]` says whether line `i` of
 * the result stands for a run.
 *
 * @internal
 */
export const foldRepeats = (
  lines: ReadonlyArray<string>
): { readonly lines: Array<string>; readonly folded: Array<boolean> } => {
  const out: Array<string> = []
  const folded: Array<boolean> = []
  let i = 0
  while (i < lines.length) {
    let end = i + 1
    while (end < lines.length && repeats(lines[i]!, lines[end]!) && repeats(lines[end - 1]!, lines[end]!)) end++
    if (end - i >= MIN_RUN) {
      out.push(foldedLine(lines.slice(i, end)))
      folded.push(true)
    } else {
      for (let j = i; j < end; j++) {
        out.push(lines[j]!)
        folded.push(false)
      }
    }
    i = end
  }
  return { lines: out, folded }
}
