/**
 * precis JSONL: `{ role, content, timestamp?, id?, sessionId?, metadata? }` per line.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { derivedId, isRecord } from "./common.js"
import type { Format } from "./format.js"
import { badLine, type LineReader, lineReader } from "./jsonl.js"

const SHAPE = "expected a JSON object with string \"role\" and \"content\""

const State = Schema.Struct({ index: Schema.NonNegativeInt })

/** A reader of one precis JSONL file; `saved`, what an earlier one's `save` gave, to go on after its last line. */
export const reader = (saved?: unknown): LineReader => {
  let index = saved === undefined ? 0 : Schema.decodeUnknownSync(State)(saved).index
  const read = lineReader((value, line, out) => {
    if (!isRecord(value) || typeof value.role !== "string" || typeof value.content !== "string") badLine(line, SHAPE)
    const v = value as Record<string, unknown> & { role: string; content: string }
    for (const key of ["timestamp", "id", "sessionId"] as const) {
      if (v[key] !== undefined && typeof v[key] !== "string") badLine(line, `"${key}" must be a string when present`)
    }
    if (v.metadata !== undefined && !isRecord(v.metadata)) badLine(line, "\"metadata\" must be a JSON object when present")
    const timestamp = v.timestamp as string | undefined
    out.add(line, {
      role: v.role,
      content: v.content,
      id: (v.id as string | undefined) ?? derivedId("precis", index, v.role, v.content, timestamp),
      timestamp,
      sessionId: v.sessionId as string | undefined,
      metadata: v.metadata as Record<string, unknown> | undefined
    })
    index++
  })
  return { ...read, save: (): typeof State.Encoded => ({ index }) }
}

/** precis JSONL: a line with a string `role` and a `content` (a shape others may share: weak evidence). */
export const format = {
  name: "precis",
  title: "precis JSONL",
  lineBased: true,
  lenient: false,
  reader,
  detect: {
    claims: () => false,
    suggests: (probe) =>
      probe._tag === "Object"
        ? typeof probe.value.role === "string" && "content" in probe.value
        : probe._tag === "ObjectText" && /^\{\s*"role"\s*:/.test(probe.firstLine)
  }
} as const satisfies Format<"precis">
