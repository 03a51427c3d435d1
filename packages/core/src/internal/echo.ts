/**
 * Whether a model's reply repeats the prompt's own instructions (the prompt
 * without the material and the prior summary it carries): a model that
 * echoes its prompt writes no summary, however short the echo.
 *
 * @internal
 */

/** Words a reply and a prompt share in runs of this many count as copied. */
const RUN = 8
/** Runs of the instructions in a reply that make it an echo: about 15 words in a row, or several shorter copies. */
const ECHOED_RUNS = 8

const words = (text: string): ReadonlyArray<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

const runs = (list: ReadonlyArray<string>): Array<string> =>
  Array.from({ length: Math.max(0, list.length - RUN + 1) }, (_, i) => list.slice(i, i + RUN).join(" "))

/**
 * Whether `reply` copies {@link ECHOED_RUNS} or more runs of words of the
 * prompt's instructions that the data does not hold (a summary may quote the
 * data, even where it holds the instructions' words).
 */
export const repeatsInstructions = (
  reply: string,
  prompt: () => string,
  data: { readonly material: string; readonly priorSummary?: string | undefined }
): boolean => {
  const candidates = runs(words(reply))
  if (candidates.length < ECHOED_RUNS) return false
  // The prompt is rendered only for a reply long enough to echo it.
  let instructions = prompt().split(data.material).join("\n")
  if (data.priorSummary !== undefined && data.priorSummary.length > 0) {
    instructions = instructions.split(data.priorSummary).join("\n")
  }
  const own = new Set(runs(words(instructions)))
  let inData: string | undefined
  let echoed = 0
  for (const run of candidates) {
    if (!own.has(run)) continue
    inData ??= ` ${words(`${data.priorSummary ?? ""}\n${data.material}`).join(" ")} `
    if (inData.includes(` ${run} `)) continue
    if (++echoed >= ECHOED_RUNS) return true
  }
  return false
}
