/**
 * The figures a bench run produces, how they are compared with their
 * baselines and targets, and how they print.
 *
 * @since 0.1.0
 */

/**
 * A target on a figure's value or on its ratio to the baseline.
 *
 * @since 0.1.0
 */
export interface Target {
  readonly op: "<=" | ">="
  readonly value: number
  readonly on: "value" | "ratio"
}

/**
 * One measured figure. `ratio` is `value / baseline.value`, both measured in
 * the same run.
 *
 * @since 0.1.0
 */
export interface Figure {
  readonly section: string
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly baseline?: { readonly name: string; readonly value: number; readonly unit: string } | undefined
  readonly ratio?: number | undefined
  readonly target?: Target | undefined
  readonly pass?: boolean | undefined
  readonly note?: string | undefined
}

/**
 * The inputs of {@link figure}.
 *
 * @since 0.1.0
 */
export interface FigureInput {
  readonly section: string
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly baseline?: { readonly name: string; readonly value: number; readonly unit: string } | undefined
  readonly target?: Target | undefined
  readonly note?: string | undefined
}

/**
 * Whether `x` meets `target`.
 *
 * @since 0.1.0
 */
export const meets = (target: Target, x: number): boolean =>
  Number.isFinite(x) && (target.op === "<=" ? x <= target.value : x >= target.value)

/**
 * A figure, with its ratio to the baseline (when there is one) and whether it
 * meets its target (when there is one).
 *
 * @since 0.1.0
 */
export const figure = (input: FigureInput): Figure => {
  const ratio = input.baseline === undefined ? undefined : input.value / input.baseline.value
  const subject = input.target?.on === "ratio" ? ratio : input.value
  const pass = input.target === undefined || subject === undefined ? undefined : meets(input.target, subject)
  return {
    ...input,
    ...(ratio === undefined ? {} : { ratio }),
    ...(pass === undefined ? {} : { pass })
  }
}

/**
 * A number with about three significant digits (integers as they are).
 *
 * @since 0.1.0
 */
export const formatNumber = (x: number): string => {
  if (!Number.isFinite(x)) return String(x)
  if (Number.isInteger(x)) return String(x)
  const abs = Math.abs(x)
  if (abs >= 100) return x.toFixed(0)
  if (abs >= 10) return x.toFixed(1)
  if (abs >= 1) return x.toFixed(2)
  return x.toPrecision(3)
}

/**
 * The figures as a Markdown table: section, figure, value, baseline, ratio,
 * target, whether it is met, and the note.
 *
 * @since 0.1.0
 */
export const table = (figures: ReadonlyArray<Figure>): string => {
  const rows = figures.map((f) => [
    f.section,
    f.name,
    `${formatNumber(f.value)} ${f.unit}`,
    f.baseline === undefined ? "" : `${f.baseline.name}: ${formatNumber(f.baseline.value)} ${f.baseline.unit}`,
    f.ratio === undefined ? "" : formatNumber(f.ratio),
    f.target === undefined ? "" : `${f.target.on === "ratio" ? "ratio" : "value"} ${f.target.op} ${f.target.value}`,
    f.pass === undefined ? "" : f.pass ? "yes" : "NO",
    f.note ?? ""
  ])
  const header = ["section", "figure", "value", "baseline", "ratio", "target", "met", "note"]
  const escape = (s: string) => s.replaceAll("|", "\\|")
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(escape).join(" | ")} |`)
  ].join("\n")
}
