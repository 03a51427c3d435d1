/**
 * The sessions of the fidelity benchmark: the example session of the
 * repository (whole) and, when the shared fixtures are present, the two Claude
 * Code sessions up to their compact boundary, each with its probes and, for
 * the fixtures, Claude Code's own compaction of that span (the reference).
 *
 * @since 0.1.0
 */
import type { ConversationTurn } from "@precis/core"
import { Importer } from "@precis/importers"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Inputs from "../Inputs.js"
import * as CodingSession from "./CodingSessionProbes.js"
import type { Probe } from "./Probe.js"
import * as SpotterAnnotations from "./SpotterAnnotationsProbes.js"
import * as SpotterOtel from "./SpotterOtelProbes.js"

/**
 * A session to measure: its transcript, its probes and, when there is one, the
 * file of the reference compaction.
 *
 * @since 0.1.0
 */
export interface Session {
  readonly name: string
  readonly file: string
  readonly probes: ReadonlyArray<Probe>
  readonly reference: string | undefined
}

const fixture = (name: string, probes: ReadonlyArray<Probe>): Session => ({
  name,
  file: path.join(Inputs.fixturesDir, `${name}.jsonl`),
  probes,
  reference: path.join(Inputs.fixturesDir, `${name}.compact-reference.jsonl`)
})

/**
 * Every session of the benchmark, whether or not its files exist.
 *
 * @since 0.1.0
 */
export const all: ReadonlyArray<Session> = [
  { name: "coding-session", file: Inputs.exampleSession, probes: CodingSession.probes, reference: undefined },
  fixture("claude-code-spotter-ae4a77f8", SpotterOtel.probes),
  fixture("claude-code-spotter-258c7280", SpotterAnnotations.probes)
]

/**
 * The sessions whose files exist (the fixtures only when `../shared` is there).
 *
 * @since 0.1.0
 */
export const available = (): ReadonlyArray<Session> =>
  all.filter((s) => fs.existsSync(s.file) && (s.reference === undefined || fs.existsSync(s.reference)))

const BoundaryLine = Schema.parseJson(Schema.Struct({ type: Schema.Literal("system"), subtype: Schema.Literal("compact_boundary") }))
const decodeBoundary = Schema.decodeUnknownOption(BoundaryLine)

/**
 * The 1-based line of the first Claude Code `compact_boundary` line of a
 * transcript, if it has one.
 *
 * @since 0.1.0
 */
export const boundaryLine = (text: string): number | undefined => {
  const lines = text.split("\n")
  const index = lines.findIndex((line) => line.includes("compact_boundary") && Option.isSome(decodeBoundary(line)))
  return index === -1 ? undefined : index + 1
}

/**
 * The part of a transcript before its compact boundary (all of it without
 * one): the raw text, the boundary's line and the imported turns of the lines
 * before it.
 *
 * @since 0.1.0
 */
export interface Span {
  readonly raw: string
  readonly boundary: number | undefined
  readonly turns: ReadonlyArray<ConversationTurn.ConversationTurn>
}

/**
 * Reads the span of a session's transcript before its compact boundary;
 * throws when the file cannot be imported.
 *
 * @since 0.1.0
 */
export const span = (file: string): Span => {
  const text = fs.readFileSync(file, "utf8")
  const boundary = boundaryLine(text)
  const raw = boundary === undefined ? text : text.split("\n").slice(0, boundary - 1).join("\n")
  const parsed = Importer.parse(raw, "auto", file)
  if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
  return { raw, boundary, turns: Importer.allTurns(parsed.right) }
}

/**
 * The part of a session's transcript after its compact boundary (none
 * without one): the session as it went on from Claude Code's own compaction,
 * a span no default of precis was chosen on. Throws when the file cannot be
 * imported.
 *
 * @since 0.1.0
 */
export const continuation = (file: string): ReadonlyArray<ConversationTurn.ConversationTurn> => {
  const text = fs.readFileSync(file, "utf8")
  const boundary = boundaryLine(text)
  if (boundary === undefined) return []
  const parsed = Importer.parse(text.split("\n").slice(boundary).join("\n"), "auto", file)
  if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
  return Importer.allTurns(parsed.right)
}

const Text = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
const Block = Schema.Union(Text, Schema.Struct({ type: Schema.String }))
const AssistantLine = Schema.parseJson(Schema.Struct({
  type: Schema.Literal("assistant"),
  message: Schema.Struct({ content: Schema.Union(Schema.String, Schema.Array(Block)) })
}))
const decodeAssistant = Schema.decodeUnknownOption(AssistantLine)

/**
 * The summary a Claude Code compaction wrote: the text of the last assistant
 * message of its `*.compact-reference.jsonl`; `undefined` when there is none.
 *
 * @since 0.1.0
 */
export const referenceSummary = (text: string): string | undefined => {
  let summary: string | undefined
  for (const line of text.split("\n")) {
    const decoded = decodeAssistant(line)
    if (Option.isNone(decoded)) continue
    const content = decoded.value.message.content
    summary = typeof content === "string"
      ? content
      : content.flatMap((block) => "text" in block ? [block.text] : []).join("\n")
  }
  return summary
}
