/**
 * Section `fidelity`: how many probe facts of a session an agent continuing it
 * would still find, in precis's assembled context at a 16k-token budget and
 * at the size of Claude Code's own compaction of the same span
 * (offline extractive provider; compacted as `precis compact` does with no
 * flag, its defaults, assembled as `precis context --budget N` does, at 16k
 * with and without the expansion from the DAG; and, labelled tuned, at 16k
 * over a DAG compacted with `--leaf-chunk-tokens 1000 --fresh-tail 8`), in precis's
 * summaries alone at the size of Claude Code's own compaction, in head and
 * tail truncations of the transcript at those sizes, and in that reference
 * compaction itself (the Claude Code fixtures only).
 *
 * @since 0.1.0
 */
import { CompactionManager, CompactionOptions } from "@precis/compaction"
import { Assembler, AssemblerConfig, type Condenser, Expansion, Layout } from "@precis/context"
import { type ConversationTurn, TokenEstimator, Transcript } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { Store } from "@precis/store"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as stack from "../internal/stack.js"
import { figure, type Figure } from "../Results.js"
import * as Probe from "./Probe.js"
import * as Sessions from "./Sessions.js"

/**
 * The context budget, in tokens.
 *
 * @since 0.1.0
 */
export const budget = 16_000

/**
 * The names of the methods compared.
 *
 * @since 0.1.0
 */
export const methodNames = {
  transcript: "imported transcript, whole",
  context: "precis context @16k",
  contextAtReference: "precis context @reference size",
  contextNotExpanded: "precis context @16k, not expanded",
  contextTuned: "precis context @16k, tuned (--leaf-chunk-tokens 1000 --fresh-tail 8)",
  summaries: "precis summaries @reference size",
  summariesWhole: "precis summaries, whole",
  headContext: "head truncation @context size",
  tailContext: "tail truncation @context size",
  headReference: "head truncation @reference size",
  tailReference: "tail truncation @reference size",
  reference: "reference compaction"
} as const

/**
 * What the methods are cut from: the transcript span as precis imported it
 * (rendered one turn per line), precis's assembled context (expanded from the
 * DAG, and not) and its summaries (the top summaries of the context not
 * expanded; rendered as the agent sees them), and the reference summary when
 * there is one.
 *
 * @since 0.1.0
 */
export interface Material {
  readonly transcript: string
  readonly context: string
  /** The context assembled at the reference's size (`precis context --budget` of the reference's tokens). */
  readonly contextAtReference?: string | undefined
  readonly contextNotExpanded: string
  /** The context at 16k over a DAG compacted with tuned flags (`CompactionOptions.fromBudget(16000)`). */
  readonly contextTuned?: string | undefined
  readonly summaries: string
  /** The summaries alone filled from the DAG to the reference's size (see {@link assemble}); else `summaries` cut. */
  readonly summariesAtReference?: string | undefined
  readonly reference: string | undefined
}

/**
 * One method's text.
 *
 * @since 0.1.0
 */
export interface Text {
  readonly method: string
  readonly text: string
}

const estimator = TokenEstimator.approximate

/**
 * The last `maxTokens` tokens of `text` under the default estimator (as many
 * code points as its head truncation keeps).
 *
 * @since 0.1.0
 */
export const tail = (text: string, maxTokens: number): string => {
  const keep = TokenEstimator.codePointLength(estimator.truncate(text, maxTokens))
  const points = Array.from(text)
  return points.length <= keep ? text : points.slice(points.length - keep).join("")
}

/**
 * The text of every method, from a session's material. Without a reference,
 * the summaries are measured whole and the truncations only at the context's size.
 *
 * @since 0.1.0
 */
export const texts = (material: Material): ReadonlyArray<Text> => {
  const { context, contextAtReference, contextNotExpanded, contextTuned, reference, summaries, summariesAtReference, transcript } =
    material
  const contextTokens = estimator.estimate(context)
  const referenceTokens = reference === undefined ? undefined : estimator.estimate(reference)
  return [
    { method: methodNames.transcript, text: transcript },
    { method: methodNames.context, text: context },
    ...(referenceTokens === undefined || contextAtReference === undefined
      ? []
      : [{ method: methodNames.contextAtReference, text: contextAtReference }]),
    { method: methodNames.contextNotExpanded, text: contextNotExpanded },
    ...(contextTuned === undefined ? [] : [{ method: methodNames.contextTuned, text: contextTuned }]),
    ...(referenceTokens === undefined
      ? []
      : [{ method: methodNames.summaries, text: estimator.truncate(summariesAtReference ?? summaries, referenceTokens) }]),
    { method: methodNames.summariesWhole, text: summaries },
    { method: methodNames.headContext, text: estimator.truncate(transcript, contextTokens) },
    { method: methodNames.tailContext, text: tail(transcript, contextTokens) },
    ...(reference === undefined || referenceTokens === undefined ? [] : [
      { method: methodNames.headReference, text: estimator.truncate(transcript, referenceTokens) },
      { method: methodNames.tailReference, text: tail(transcript, referenceTokens) },
      { method: methodNames.reference, text: reference }
    ])
  ]
}

/**
 * One method's result: its size and the probes it keeps and misses.
 *
 * @since 0.1.0
 */
export interface MethodResult extends Probe.Score {
  readonly method: string
  readonly tokens: number
}

/**
 * One session's results.
 *
 * @since 0.1.0
 */
export interface Row {
  readonly session: string
  readonly probes: number
  readonly methods: ReadonlyArray<MethodResult>
}

/**
 * Scores every method's text against the probes.
 *
 * @since 0.1.0
 */
export const scoreTexts = (probes: ReadonlyArray<Probe.Probe>, all: ReadonlyArray<Text>): ReadonlyArray<MethodResult> =>
  all.map(({ method, text }) => ({ method, tokens: text.length === 0 ? 0 : estimator.estimate(text), ...Probe.score(probes, text) }))

/**
 * The targets of the issue, on the ratio to the reference compaction's probes.
 *
 * @since 0.1.0
 */
export const targets: Readonly<Record<string, number>> = {
  [methodNames.context]: 1,
  [methodNames.contextAtReference]: 0.9,
  [methodNames.summaries]: 0.6
}

/**
 * The section's figures: per session and method, the probes kept, against the
 * reference compaction's (or, without one, against the whole transcript's),
 * with the issue's targets on the context and the summaries.
 *
 * @since 0.1.0
 */
export const figures = (rows: ReadonlyArray<Row>): ReadonlyArray<Figure> =>
  rows.flatMap((row) => {
    const base = row.methods.find((m) => m.method === methodNames.reference) ??
      row.methods.find((m) => m.method === methodNames.transcript)
    return row.methods.filter((m) => m !== base).map((m) => {
      const target = base?.method === methodNames.reference ? targets[m.method] : undefined
      return figure({
        section: "fidelity",
        name: `${row.session}: ${m.method}`,
        value: m.kept.length,
        unit: "probes",
        ...(base === undefined ? {} : { baseline: { name: base.method, value: base.kept.length, unit: "probes" } }),
        ...(target === undefined ? {} : { target: { op: ">=", value: target, on: "ratio" } as const }),
        note: `of ${row.probes}; ${m.tokens} tokens` +
          (base === undefined ? "" : `; ${base.method} ${base.tokens} tokens`)
      })
    })
  })

const sessionId = "fidelity"

/**
 * precis's assembled context of `turns` at {@link budget} and its summaries,
 * rendered: the turns appended to a fresh SQLite store, compacted with the
 * offline extractive provider and `compaction` (default: none, the defaults,
 * what `precis compact` does with no flag), then assembled read-only
 * (`Assembler.assemble` with `compact: false`: mask, forget, window and
 * the expansion, as `precis context --budget 16000` does), and once more
 * without the expansion (whose top summaries are the summaries measured
 * whole). Given `summaryTokens` (the reference's size), the context is also
 * assembled at that budget (`precis context --budget` of the reference's
 * tokens, over the same DAG), and the summaries alone are filled from the DAG
 * to that size (`Expansion.expand` of the top summaries without the turns, no
 * reserve, no turns): the summaries at the reference's size.
 *
 * @since 0.1.0
 */
export const assemble = (
  turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
  summaryTokens?: number,
  compaction: CompactionOptions.Options = {}
): Promise<{
  readonly context: string
  readonly contextAtSize: string | undefined
  readonly contextNotExpanded: string
  readonly summaries: string
  readonly summariesAtSize: string | undefined
  readonly summaryCount: number
  readonly report: Condenser.Report
}> =>
  stack.runWithStack(
    ExtractiveProvider.layer(),
    {},
    Effect.gen(function*() {
      const store = yield* Store.all
      const manager = yield* CompactionManager.CompactionManager
      // As `precis context --budget` assembles it: once, filled to the one-shot mark.
      const once = yield* Assembler.make({ compact: false, ...AssemblerConfig.oneShot })
      const notExpanded = yield* Assembler.make({ compact: false, ...AssemblerConfig.oneShot, expand: false })
      yield* store.appendTurns(sessionId, turns)
      yield* manager.compact(sessionId, compaction)
      const assembled = yield* once.assemble(sessionId, { budget })
      const flat = yield* notExpanded.assemble(sessionId, { budget })
      const contextAtSize = summaryTokens === undefined
        ? undefined
        : yield* once.assemble(sessionId, { budget: summaryTokens })
      const atSize = summaryTokens === undefined ? undefined : yield* Expansion.expand(
        { summaries: flat.summaries, turns: [] },
        { budget: summaryTokens, reserve: 0, turns: false }
      )
      return {
        context: Layout.render(assembled),
        contextAtSize: contextAtSize === undefined ? undefined : Layout.render(contextAtSize),
        contextNotExpanded: Layout.render(flat),
        summaries: Transcript.renderSummaries(flat.summaries),
        summariesAtSize: atSize === undefined ? undefined : Transcript.renderSummaries(atSize.summaries),
        summaryCount: flat.summaries.length,
        report: assembled.report
      }
    })
  )

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

/**
 * Writes each method's text to `DIR/SESSION/METHOD.txt` and a table of which
 * method keeps which probe to `DIR/SESSION/probes.md`, for a human to read the
 * context as the agent would.
 *
 * @since 0.1.0
 */
export const dump = (dir: string, session: Sessions.Session, all: ReadonlyArray<Text>, row: Row): void => {
  const out = path.join(dir, session.name)
  fs.mkdirSync(out, { recursive: true })
  for (const { method, text } of all) fs.writeFileSync(path.join(out, `${slug(method)}.txt`), text)
  const header = ["probe", "category", "description", ...row.methods.map((m) => `${m.method} (${m.tokens} t)`)]
  const lines = [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...session.probes.map((p) =>
      `| ${
        [p.id, p.category, p.description.replaceAll("|", "\\|"), ...row.methods.map((m) => m.kept.includes(p.id) ? "yes" : "")]
          .join(" | ")
      } |`
    ),
    `| kept | | | ${row.methods.map((m) => `${m.kept.length}/${row.probes}`).join(" | ")} |`
  ]
  fs.writeFileSync(path.join(out, "probes.md"), `${lines.join("\n")}\n`)
}

/**
 * One session's details in `results.json`.
 *
 * @since 0.1.0
 */
export interface Details extends Row {
  readonly boundaryLine: number | undefined
  readonly turns: number
  readonly summaries: number
  readonly report: Condenser.Report
}

/**
 * Measures one session.
 *
 * @since 0.1.0
 */
export const measure = async (session: Sessions.Session, dumpDir?: string): Promise<Details> => {
  const span = Sessions.span(session.file)
  const reference = session.reference === undefined
    ? undefined
    : Sessions.referenceSummary(fs.readFileSync(session.reference, "utf8"))
  const assembled = await assemble(span.turns, reference === undefined ? undefined : estimator.estimate(reference))
  // Tuned: what `precis compact --leaf-chunk-tokens 1000 --fresh-tail 8` makes for 16000 (`fromBudget`).
  const tuned = await assemble(span.turns, undefined, CompactionOptions.fromBudget(budget))
  const all = texts({
    transcript: Transcript.formatTurns(span.turns),
    context: assembled.context,
    contextAtReference: assembled.contextAtSize,
    contextNotExpanded: assembled.contextNotExpanded,
    contextTuned: tuned.context,
    summaries: assembled.summaries,
    summariesAtReference: assembled.summariesAtSize,
    reference
  })
  const row: Row = { session: session.name, probes: session.probes.length, methods: scoreTexts(session.probes, all) }
  if (dumpDir !== undefined) dump(dumpDir, session, all, row)
  return {
    ...row,
    boundaryLine: span.boundary,
    turns: span.turns.length,
    summaries: assembled.summaryCount,
    report: assembled.report
  }
}

/**
 * The section: every available session, its figures and details; prints the
 * probes the context misses on stderr.
 *
 * @since 0.1.0
 */
export const run = async (options: { readonly dump?: string | undefined }): Promise<{
  figures: ReadonlyArray<Figure>
  details: ReadonlyArray<Details>
}> => {
  const details: Array<Details> = []
  for (const session of Sessions.available()) {
    const measured = await measure(session, options.dump)
    details.push(measured)
    // What the contexts miss, to read next to the table (the details and the dump have every method's).
    for (const method of [methodNames.context, methodNames.contextAtReference]) {
      const result = measured.methods.find((m) => m.method === method)
      if (result === undefined) continue
      process.stderr.write(`fidelity: ${session.name}: ${method} misses ${result.missed.length}: ${result.missed.join(", ")}\n`)
    }
  }
  return { figures: figures(details), details }
}
