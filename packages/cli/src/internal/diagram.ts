/**
 * The summary DAG as a diagram to paste into Markdown (Mermaid) or to feed to
 * Graphviz (DOT): one node per summary, labelled with its depth, tier, token
 * estimate, time range and short id, and an edge from each parent to each of
 * its children, in order. Labels are escaped for each language by core's
 * `Escape` (one function per format), whatever the ids or fields hold.
 *
 * @internal
 */
import { Escape, type SummaryRecord } from "@precis/core"
import { timeRange } from "./render.js"

/** The diagram languages of `precis show --format`. */
export const formats = ["mermaid", "dot"] as const

/** A value of {@link formats}. */
export type Format = typeof formats[number]

/** The lines of a node's label: `depth 1 · normal`, `812 tokens`, the time range, the short id. */
const labelLines = (summary: SummaryRecord.SummaryRecord): ReadonlyArray<string> => [
  `depth ${summary.depth} · ${summary.tier ?? "?"}`,
  `${summary.tokenEstimate ?? "?"} tokens`,
  timeRange(summary),
  summary.id.slice(0, 8)
]

/** Each summary's edges to its children present in `summaries`, in order. */
const edges = (summaries: ReadonlyArray<SummaryRecord.SummaryRecord>): Array<readonly [number, number]> => {
  const index = new Map(summaries.map((s, i) => [s.id, i]))
  return summaries.flatMap((parent, i) =>
    (parent.sourceSummaryIds ?? []).flatMap((id) => {
      const child = index.get(id)
      return child === undefined ? [] : [[i, child] as const]
    })
  )
}

/**
 * The DAG as a Mermaid flowchart, top down. Node names are `n0`, `n1`, ... in
 * the order given (ids need no escaping); a title line names the session, as
 * a YAML string (`Escape.yaml`) that nothing in the id can end; labels are
 * escaped by `Escape.mermaid`.
 */
export const mermaid = (sessionId: string, summaries: ReadonlyArray<SummaryRecord.SummaryRecord>): string =>
  [
    "---",
    `title: ${Escape.yaml(`session ${sessionId}`)}`,
    "---",
    "flowchart TD",
    ...summaries.map((s, i) => `  n${i}["${labelLines(s).map(Escape.mermaid).join("<br/>")}"]`),
    ...edges(summaries).map(([from, to]) => `  n${from} --> n${to}`)
  ].join("\n")

/** The DAG as a Graphviz digraph: boxes named by summary id, parents above their children (`Escape.dot`). */
export const dot = (sessionId: string, summaries: ReadonlyArray<SummaryRecord.SummaryRecord>): string =>
  [
    `digraph "${Escape.dot(sessionId)}" {`,
    `  node [shape=box, fontname="Helvetica"];`,
    ...summaries.map((s) => `  "${Escape.dot(s.id)}" [label="${labelLines(s).map(Escape.dot).join("\\n")}"];`),
    ...edges(summaries).map(([from, to]) =>
      `  "${Escape.dot(summaries[from]!.id)}" -> "${Escape.dot(summaries[to]!.id)}";`
    ),
    "}"
  ].join("\n")

/** The DAG in `format`. */
export const render = (
  format: Format,
  sessionId: string,
  summaries: ReadonlyArray<SummaryRecord.SummaryRecord>
): string => (format === "mermaid" ? mermaid(sessionId, summaries) : dot(sessionId, summaries))
